/* fuzz-kernel-image.c: libFuzzer target for the kernel image loader (PNG and PGM) of clfftconvolve. */
#include "fuzz-file.h"
#include "gstclfftkernelfile.h"

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  fuzz_file_init (".img");
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  GError *error = NULL;
  guint w = 0, h = 0;
  gfloat *taps;

  taps = gst_clfft_load_kernel_image (fuzz_file_write (data, size), &w, &h,
      &error);
  if (!taps) {
    fuzz_file_check_error (error);
    return 0;
  }
  /* what the element relies on: a non-empty bounded grid of finite taps
   * in [0, 1] */
  if (error || w == 0 || h == 0
      || (guint64) w * h > GST_CLFFT_KERNEL_FILE_MAX_TAPS)
    abort ();
  for (guint64 i = 0; i < (guint64) w * h; i++)
    if (!(taps[i] >= 0.0f && taps[i] <= 1.0f))
      abort ();
  g_free (taps);
  return 0;
}

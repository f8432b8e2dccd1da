/* fuzz-impulse-response.c: libFuzzer target for clfftconvolve's impulse response file loader (libsndfile). */
#include <math.h>

#include "fuzz-file.h"
#include "gstclfftconvolveaudio.h"

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  fuzz_file_init (".wav");
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  GError *error = NULL;
  guint frames = 0, channels = 0;
  gdouble *ir;

  ir = gst_clfft_load_impulse_response (fuzz_file_write (data, size),
      &frames, &channels, &error);
  if (!ir) {
    fuzz_file_check_error (error);
    return 0;
  }
  /* what the element relies on: a non-empty response of finite taps whose
   * size fits a guint count of samples */
  if (error || frames == 0 || channels == 0
      || (guint64) frames * channels > G_MAXINT)
    abort ();
  for (guint64 i = 0; i < (guint64) frames * channels; i++)
    if (!isfinite (ir[i]))
      abort ();
  g_free (ir);
  return 0;
}

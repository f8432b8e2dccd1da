/* fuzz-kernel-image.c: libFuzzer target for the kernel image loader (PNG and PGM) of clfftconvolve. */
#include <gst/gst.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gstclfftkernelfile.h"

/* The loader reads a path, so every input goes through one file of this
 * process. */
static gchar *path;

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  gst_init (NULL, NULL);
  path = g_strdup_printf ("%s/clfft-fuzz-kernel-%d.img", g_get_tmp_dir (),
      (int) getpid ());
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  GError *error = NULL;
  guint w = 0, h = 0;
  gfloat *taps;
  FILE *f = fopen (path, "wb");

  if (!f || fwrite (data, 1, size, f) != size || fclose (f) != 0)
    abort ();
  taps = gst_clfft_load_kernel_image (path, &w, &h, &error);
  if (taps) {
    /* what the element relies on: a non-empty bounded grid of finite taps
     * in [0, 1] */
    if (error || w == 0 || h == 0
        || (guint64) w * h > GST_CLFFT_KERNEL_FILE_MAX_TAPS)
      abort ();
    for (guint64 i = 0; i < (guint64) w * h; i++)
      if (!(taps[i] >= 0.0f && taps[i] <= 1.0f))
        abort ();
    g_free (taps);
  } else {
    /* failures are reported, in the documented domain, naming the file */
    if (!error || error->domain != GST_RESOURCE_ERROR
        || !strstr (error->message, path))
      abort ();
    g_error_free (error);
  }
  return 0;
}

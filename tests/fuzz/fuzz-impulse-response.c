/* fuzz-impulse-response.c: libFuzzer target for clfftconvolve's impulse response file loader (libsndfile). */
#include <gst/gst.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gstclfftconvolveaudio.h"

/* The loader reads a path, so every input goes through one file of this
 * process. */
static gchar *path;

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  gst_init (NULL, NULL);
  path = g_strdup_printf ("%s/clfft-fuzz-ir-%d.wav", g_get_tmp_dir (),
      (int) getpid ());
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  GError *error = NULL;
  guint frames = 0, channels = 0;
  gdouble *ir;
  FILE *f = fopen (path, "wb");

  if (!f || fwrite (data, 1, size, f) != size || fclose (f) != 0)
    abort ();
  ir = gst_clfft_load_impulse_response (path, &frames, &channels, &error);
  if (ir) {
    /* what the element relies on: a non-empty response of finite taps
     * whose size fits a guint count of samples */
    if (error || frames == 0 || channels == 0
        || (guint64) frames * channels > G_MAXINT)
      abort ();
    for (guint64 i = 0; i < (guint64) frames * channels; i++)
      if (!isfinite (ir[i]))
        abort ();
    g_free (ir);
  } else {
    if (!error || error->domain != GST_RESOURCE_ERROR
        || !strstr (error->message, path))
      abort ();
    g_error_free (error);
  }
  return 0;
}

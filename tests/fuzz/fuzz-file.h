/* fuzz-file.h: what both file-loader fuzz targets share: the loaders read
 * a path, so every input goes through one temporary file of the process,
 * and a rejected input must come back as a GError that names that file. */
#ifndef __CLFFT_FUZZ_FILE_H__
#define __CLFFT_FUZZ_FILE_H__

#include <gst/gst.h>
#include <glib/gstdio.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

static gchar *fuzz_path;

/* libFuzzer ends a bounded run through exit (); a crash keeps the file,
 * which libFuzzer saves as an artifact anyway */
static void
fuzz_file_remove (void)
{
  g_unlink (fuzz_path);
}

/* suffix: the file name's ending, which some loaders look at */
static void
fuzz_file_init (const gchar * suffix)
{
  gst_init (NULL, NULL);
  fuzz_path = g_strdup_printf ("%s/clfft-fuzz-%d%s", g_get_tmp_dir (),
      (int) getpid (), suffix);
  atexit (fuzz_file_remove);
}

/* The input as the file's contents; its path. */
static const gchar *
fuzz_file_write (const uint8_t * data, size_t size)
{
  FILE *f = fopen (fuzz_path, "wb");

  if (!f || fwrite (data, 1, size, f) != size || fclose (f) != 0)
    abort ();
  return fuzz_path;
}

/* A failure is reported, in the documented domain, naming the file. */
static void
fuzz_file_check_error (GError * error)
{
  if (!error || error->domain != GST_RESOURCE_ERROR
      || !strstr (error->message, fuzz_path))
    abort ();
  g_error_free (error);
}

#endif

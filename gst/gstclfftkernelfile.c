/* gstclfftkernelfile.c: reads convolution kernels from PNG and PGM images. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclfftkernelfile.h"

#include <errno.h>
#include <string.h>
#include <gst/gst.h>

#ifdef HAVE_LIBPNG
#include <png.h>
#endif

static const guint8 png_signature[8] = { 0x89, 'P', 'N', 'G', '\r', '\n',
  0x1a, '\n'
};

static gboolean
check_size (const gchar * path, guint64 width, guint64 height, GError ** error)
{
  if (width == 0 || height == 0
      || width * height > GST_CLFFT_KERNEL_FILE_MAX_TAPS) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
        "Kernel image \"%s\" is %" G_GUINT64_FORMAT "x%" G_GUINT64_FORMAT
        ": kernels need 1 to %u taps", path, width, height,
        GST_CLFFT_KERNEL_FILE_MAX_TAPS);
    return FALSE;
  }
  return TRUE;
}

/* ---- PGM ---------------------------------------------------------------- */

/* Skips whitespace and '#' comments, then reads one decimal number. */
static gboolean
pgm_number (const guint8 ** p, const guint8 * end, guint64 * value)
{
  const guint8 *s = *p;
  guint64 v = 0;
  gboolean any = FALSE;

  for (;;) {
    while (s < end && g_ascii_isspace (*s))
      s++;
    if (s < end && *s == '#') {
      while (s < end && *s != '\n' && *s != '\r')
        s++;
      continue;
    }
    break;
  }
  while (s < end && g_ascii_isdigit (*s)) {
    v = v * 10 + (*s++ - '0');
    any = TRUE;
    if (v > G_MAXUINT32)
      return FALSE;
  }
  *p = s;
  *value = v;
  return any;
}

static gfloat *
read_pgm (const gchar * path, const guint8 * data, gsize size,
    guint * width, guint * height, GError ** error)
{
  const guint8 *p = data + 2, *end = data + size;
  gboolean binary = data[1] == '5';
  guint64 w, h, maxval, n, i;
  gfloat *taps;

  if (!pgm_number (&p, end, &w) || !pgm_number (&p, end, &h)
      || !pgm_number (&p, end, &maxval) || maxval < 1 || maxval > 65535)
    goto bad_header;
  if (!check_size (path, w, h, error))
    return NULL;
  n = w * h;
  taps = g_new (gfloat, n);
  if (binary) {
    guint bps = maxval > 255 ? 2 : 1;

    /* exactly one whitespace byte separates the header from the samples */
    if (p >= end || !g_ascii_isspace (*p))
      goto bad_header_free;
    p++;
    if ((guint64) (end - p) < n * bps) {
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
          "Kernel image \"%s\" is truncated: %" G_GUINT64_FORMAT "x%"
          G_GUINT64_FORMAT " samples need %" G_GUINT64_FORMAT " bytes, the "
          "file has %" G_GSIZE_FORMAT, path, w, h, n * bps, (gsize) (end - p));
      g_free (taps);
      return NULL;
    }
    for (i = 0; i < n; i++, p += bps) {
      guint v = bps == 2 ? (p[0] << 8) | p[1] : p[0];
      taps[i] = (gfloat) ((gdouble) MIN (v, maxval) / maxval);
    }
  } else {
    for (i = 0; i < n; i++) {
      guint64 v;
      if (!pgm_number (&p, end, &v)) {
        g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
            "Kernel image \"%s\" is truncated or not a number at sample %"
            G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT, path, i, n);
        g_free (taps);
        return NULL;
      }
      taps[i] = (gfloat) ((gdouble) MIN (v, maxval) / maxval);
    }
  }
  *width = w;
  *height = h;
  return taps;

bad_header_free:
  g_free (taps);
bad_header:
  g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
      "Kernel image \"%s\" has a broken PGM header (need P2 or P5, width, "
      "height, maxval 1..65535)", path);
  return NULL;
}

/* ---- PNG ---------------------------------------------------------------- */

#ifdef HAVE_LIBPNG
typedef struct
{
  const guint8 *data;
  gsize size, pos;
  gchar message[256];
} PngReader;

static void
png_read_memory (png_structp png, png_bytep out, png_size_t len)
{
  PngReader *r = png_get_io_ptr (png);

  if (len > r->size - r->pos)
    png_error (png, "file is truncated");
  memcpy (out, r->data + r->pos, len);
  r->pos += len;
}

static void
png_on_error (png_structp png, png_const_charp msg)
{
  PngReader *r = png_get_error_ptr (png);

  g_strlcpy (r->message, msg, sizeof (r->message));
  png_longjmp (png, 1);
}

static void
png_on_warning (png_structp png, png_const_charp msg)
{
  GST_DEBUG ("libpng: %s", msg);
}

static gfloat *
read_png (const gchar * path, const guint8 * data, gsize size,
    guint * width, guint * height, GError ** error)
{
  PngReader reader = { data, size, 0, "" };
  png_structp png;
  png_infop info = NULL;
  /* volatile: they change between setjmp and a possible longjmp */
  gfloat *volatile taps = NULL;
  guint8 *volatile row = NULL;
  guint8 *volatile image = NULL;
  png_uint_32 w, h, y, x;
  int depth, channels, c, passes, pass;
  gsize rowbytes;

  png = png_create_read_struct (PNG_LIBPNG_VER_STRING, &reader, png_on_error,
      png_on_warning);
  if (png)
    info = png_create_info_struct (png);
  if (!png || !info) {
    png_destroy_read_struct (&png, NULL, NULL);
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
        "Cannot set up libpng to read \"%s\"", path);
    return NULL;
  }
  if (setjmp (png_jmpbuf (png))) {
    png_destroy_read_struct (&png, &info, NULL);
    g_free (taps);
    g_free (row);
    g_free (image);
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
        "Kernel image \"%s\" is not a readable PNG: %s", path, reader.message);
    return NULL;
  }
  png_set_read_fn (png, &reader, png_read_memory);
  png_read_info (png, info);
  w = png_get_image_width (png, info);
  h = png_get_image_height (png, info);
  if (!check_size (path, w, h, error)) {
    png_destroy_read_struct (&png, &info, NULL);
    return NULL;
  }
  /* palette -> RGB, grey < 8 bits -> 8 bits, then no alpha (also not the
   * one expanded from tRNS): 1 or 3 channels */
  png_set_expand (png);
  png_set_strip_alpha (png);
  /* Adam7: without this, png_read_row hands out the rows of each pass's
   * reduced image, not the image's rows */
  passes = png_set_interlace_handling (png);
  png_read_update_info (png, info);
  depth = png_get_bit_depth (png, info);
  channels = png_get_channels (png, info);
  rowbytes = png_get_rowbytes (png, info);

  taps = g_new (gfloat, (gsize) w * h);
  if (passes > 1) {
    /* every pass fills in part of every row: the whole image first */
    image = g_malloc (rowbytes * h);
    for (pass = 0; pass < passes; pass++)
      for (y = 0; y < h; y++)
        png_read_row (png, image + (gsize) y * rowbytes, NULL);
  } else {
    row = g_malloc (rowbytes);
  }
  for (y = 0; y < h; y++) {
    const guint8 *r = image ? image + (gsize) y * rowbytes : row;

    if (!image)
      png_read_row (png, row, NULL);
    for (x = 0; x < w; x++) {
      gdouble s[3];
      for (c = 0; c < MIN (channels, 3); c++) {
        gsize i = (gsize) x * channels + c;
        s[c] = depth == 16 ? ((r[2 * i] << 8) | r[2 * i + 1]) / 65535.0
            : r[i] / 255.0;
      }
      /* grey from colour in double, not libpng's truncating 8-bit one */
      taps[(gsize) y * w + x] = (gfloat) (channels < 3 ? s[0] :
          0.299 * s[0] + 0.587 * s[1] + 0.114 * s[2]);
    }
  }
  png_destroy_read_struct (&png, &info, NULL);
  g_free (image);
  g_free (row);
  *width = w;
  *height = h;
  return taps;
}
#endif

gfloat *
gst_clfft_load_kernel_image (const gchar * path, guint * width,
    guint * height, GError ** error)
{
  gchar *data = NULL;
  gsize size = 0;
  GError *ferr = NULL;
  gfloat *taps = NULL;

  g_return_val_if_fail (path != NULL, NULL);

  if (!g_file_get_contents (path, &data, &size, &ferr)) {
    gint code = g_error_matches (ferr, G_FILE_ERROR, G_FILE_ERROR_NOENT) ?
        GST_RESOURCE_ERROR_NOT_FOUND : GST_RESOURCE_ERROR_OPEN_READ;
    g_set_error (error, GST_RESOURCE_ERROR, code,
        "Cannot read kernel image: %s", ferr->message);
    g_error_free (ferr);
    return NULL;
  }
  if (size >= 8 && memcmp (data, png_signature, 8) == 0) {
#ifdef HAVE_LIBPNG
    taps = read_png (path, (const guint8 *) data, size, width, height, error);
#else
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
        "Kernel image \"%s\" is a PNG, but this build has no libpng: use a "
        "PGM image", path);
#endif
  } else if (size >= 2 && data[0] == 'P' && (data[1] == '2' || data[1] == '5')) {
    taps = read_pgm (path, (const guint8 *) data, size, width, height, error);
  } else {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
        "Kernel image \"%s\" is neither a PNG nor a PGM (P2/P5) image", path);
  }
  g_free (data);
  return taps;
}

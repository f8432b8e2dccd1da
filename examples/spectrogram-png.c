/* spectrogram-png.c: collects clfftspectrum's `spectrum` messages over time and writes them as a spectrogram PNG. */
#include <gst/gst.h>
#include <gst/controller/controller.h>
#include <png.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#define RATE 44100
#define BANDS 300
#define MIN_FREQ 50.0
#define INTERVAL_MS 10
#define LEFT 44                 /* margin for the frequency labels */
#define BOTTOM 22               /* margin for the time labels */
#define FONT_SCALE 2

static gint seconds = 4;
static GOptionEntry entries[] = {
  {"seconds", 's', 0, G_OPTION_ARG_INT, &seconds, "Length of the sound", "S"},
  {NULL}
};

/* ---- the sound: a log sweep, a tone with vibrato, a steady tone, ticks --- */

static void
control (GstElement * e, const gchar * prop, GstControlSource * cs)
{
  gst_object_add_control_binding (GST_OBJECT (e),
      gst_direct_control_binding_new_absolute (GST_OBJECT (e), prop, cs));
  gst_object_unref (cs);
}

static void
add_controls (GstBin * bin, gdouble length)
{
  GstControlSource *sweep = gst_interpolation_control_source_new ();
  GstControlSource *vibrato = gst_interpolation_control_source_new ();
  GstElement *e;
  guint k;

  /* linear between geometric points: evenly up the log axis */
  g_object_set (sweep, "mode", GST_INTERPOLATION_MODE_LINEAR, NULL);
  for (k = 0; k <= 32; k++)
    gst_timed_value_control_source_set (GST_TIMED_VALUE_CONTROL_SOURCE
        (sweep), (GstClockTime) (length * GST_SECOND * k / 32),
        80.0 * pow (16000.0 / 80.0, k / 32.0));
  e = gst_bin_get_by_name (bin, "sweep");
  control (e, "freq", sweep);
  gst_object_unref (e);

  /* 3 kHz +- 400 Hz at 1.5 Hz (GstLFOControlSource only spans 0..1) */
  g_object_set (vibrato, "mode", GST_INTERPOLATION_MODE_CUBIC, NULL);
  for (k = 0; k <= length * 24; k++)
    gst_timed_value_control_source_set (GST_TIMED_VALUE_CONTROL_SOURCE
        (vibrato), k * GST_SECOND / 24, 3000.0 + 400.0 * sin (2 * G_PI *
            1.5 * k / 24.0));
  e = gst_bin_get_by_name (bin, "vibrato");
  control (e, "freq", vibrato);
  gst_object_unref (e);
}

/* ---- drawing ------------------------------------------------------------ */

/* magma-like colour map: dark purple at the threshold, pale yellow at 0 dB */
static void
colour (gdouble t, png_bytep rgb)
{
  static const guint8 stops[][3] = { {0, 0, 4}, {40, 11, 84},
  {101, 21, 110}, {159, 42, 99}, {212, 72, 66}, {245, 125, 21},
  {250, 193, 39}, {252, 255, 164}
  };
  const gint n = G_N_ELEMENTS (stops) - 1;
  gdouble x = CLAMP (t, 0.0, 1.0) * n;
  gint i = MIN ((gint) x, n - 1), c;

  for (c = 0; c < 3; c++)
    rgb[c] = (guint8) lround (stops[i][c] + (x - i) * (stops[i + 1][c] -
            stops[i][c]));
}

/* 3x5 glyphs for the axis labels, one row of 3 bits per entry */
static const gchar glyph_chars[] = "0123456789kHzs";
static const guint8 glyphs[][5] = {
  {7, 5, 5, 5, 7}, {2, 6, 2, 2, 7}, {7, 1, 7, 4, 7}, {7, 1, 7, 1, 7},
  {5, 5, 7, 1, 1}, {7, 4, 7, 1, 7}, {7, 4, 7, 5, 7}, {7, 1, 1, 1, 1},
  {7, 5, 7, 5, 7}, {7, 5, 7, 1, 7}, {4, 5, 6, 5, 5}, {5, 5, 7, 5, 5},
  {0, 7, 1, 2, 7}, {0, 3, 2, 1, 6}
};

typedef struct
{
  guint width, height;
  guint8 *rgb;
} Image;

static void
put (Image * img, gint x, gint y, guint8 v)
{
  if (x >= 0 && y >= 0 && x < (gint) img->width && y < (gint) img->height)
    memset (img->rgb + 3 * ((gsize) y * img->width + x), v, 3);
}

static void
text (Image * img, gint x, gint y, const gchar * s)
{
  for (; *s; s++, x += 4 * FONT_SCALE) {
    const gchar *p = strchr (glyph_chars, *s);
    gint gx, gy, sx, sy;

    if (!p)
      continue;
    for (gy = 0; gy < 5; gy++)
      for (gx = 0; gx < 3; gx++)
        if (glyphs[p - glyph_chars][gy] & (4 >> gx))
          for (sy = 0; sy < FONT_SCALE; sy++)
            for (sx = 0; sx < FONT_SCALE; sx++)
              put (img, x + gx * FONT_SCALE + sx, y + gy * FONT_SCALE + sy,
                  230);
  }
}

/* Row of the plot for frequency f: band b of the log scale is centred on
 * MIN_FREQ * r^b, the last band at Nyquist; low frequencies at the bottom. */
static gint
frequency_row (gdouble f)
{
  gdouble b = log (f / MIN_FREQ) / log (RATE / 2.0 / MIN_FREQ) * (BANDS - 1);
  return BANDS - 1 - (gint) lround (b);
}

static gboolean
write_png (const gchar * path, GArray * levels, guint columns, gint threshold)
{
  Image img = { LEFT + columns, BANDS + BOTTOM, NULL };
  static const gdouble ticks[] = { 100, 1000, 10000 };
  static const gchar *labels[] = { "100", "1k", "10k" };
  png_structp png;
  png_infop info;
  FILE *f;
  guint x, y, i;

  img.rgb = g_malloc0 (3 * (gsize) img.width * img.height);
  for (x = 0; x < columns; x++)
    for (y = 0; y < BANDS; y++) {
      gfloat db = g_array_index (levels, gfloat, x * BANDS + (BANDS - 1 - y));
      colour ((db - threshold) / (gdouble) - threshold,
          img.rgb + 3 * ((gsize) y * img.width + LEFT + x));
    }
  /* frequency ticks and labels on the left, seconds below */
  for (i = 0; i < G_N_ELEMENTS (ticks); i++) {
    gint row = frequency_row (ticks[i]);
    for (x = LEFT - 5; x < LEFT; x++)
      put (&img, x, row, 230);
    text (&img, 2, row - 5, labels[i]);
  }
  text (&img, 2, 4, "Hz");
  for (i = 0; i * 1000 <= (guint) columns * INTERVAL_MS; i++) {
    gint col = LEFT + i * 1000 / INTERVAL_MS;
    gchar s[16];
    for (y = BANDS; y < BANDS + 5; y++)
      put (&img, col, y, 230);
    g_snprintf (s, sizeof (s), "%us", i);
    text (&img, col - 4, BANDS + 8, s);
  }

  f = fopen (path, "wb");
  if (!f) {
    perror (path);
    g_free (img.rgb);
    return FALSE;
  }
  png = png_create_write_struct (PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
  info = png_create_info_struct (png);
  if (setjmp (png_jmpbuf (png))) {
    g_printerr ("%s: PNG write failed\n", path);
    fclose (f);
    g_free (img.rgb);
    return FALSE;
  }
  png_init_io (png, f);
  png_set_IHDR (png, info, img.width, img.height, 8, PNG_COLOR_TYPE_RGB,
      PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
      PNG_FILTER_TYPE_DEFAULT);
  png_write_info (png, info);
  for (y = 0; y < img.height; y++)
    png_write_row (png, img.rgb + 3 * (gsize) y * img.width);
  png_write_end (png, NULL);
  png_destroy_write_struct (&png, &info);
  fclose (f);
  g_free (img.rgb);
  return TRUE;
}

int
main (int argc, char **argv)
{
  GOptionContext *opts = g_option_context_new ("[OUT.png] - spectrogram of "
      "a test sound from clfftspectrum messages");
  GError *error = NULL;
  GstElement *pipeline, *spectrum;
  GstBus *bus;
  GArray *levels = g_array_new (FALSE, TRUE, sizeof (gfloat));
  const gchar *out;
  gchar *desc;
  gint threshold, status = 0, buffers;
  guint columns = 0;
  gboolean done = FALSE;

  g_option_context_add_main_entries (opts, entries, NULL);
  g_option_context_add_group (opts, gst_init_get_option_group ());
  if (!g_option_context_parse (opts, &argc, &argv, &error) || argc > 2) {
    g_printerr ("%s\n", error ? error->message : "one output file at most");
    return 2;
  }
  g_option_context_free (opts);
  out = argc > 1 ? argv[1] : "spectrogram.png";
  buffers = MAX (seconds, 1) * RATE / 1024;

  /* overlap 0.9: a 4096-point FFT (4 periods of MIN_FREQ) every 410
   * samples, so each 10 ms interval averages about one fresh FFT;
   * Blackman-Harris keeps the side lobes under the -90 dB floor */
  desc = g_strdup_printf ("audiomixer name=mix ! audio/x-raw,rate=%d,"
      "channels=1 ! clfftspectrum name=spectrum bands=%d frequency-scale=log "
      "min-frequency=%g interval=%d overlap=0.9 threshold=-90 "
      "window=blackman-harris "
      "message-format=array ! fakesink sync=false "
      "audiotestsrc name=sweep num-buffers=%d volume=0.3 ! mix. "
      "audiotestsrc name=vibrato num-buffers=%d volume=0.1 ! mix. "
      "audiotestsrc freq=440 num-buffers=%d volume=0.05 ! mix. "
      "audiotestsrc wave=pink-noise num-buffers=%d volume=0.003 ! mix. "
      "audiotestsrc wave=ticks freq=6000 num-buffers=%d volume=0.5 ! mix.",
      RATE, BANDS, MIN_FREQ, INTERVAL_MS * 1000000, buffers, buffers,
      buffers, buffers, buffers);
  pipeline = gst_parse_launch (desc, &error);
  g_free (desc);
  if (error) {
    g_printerr ("cannot build the pipeline: %s (is GST_PLUGIN_PATH set to "
        "the build's gst folder?)\n", error->message);
    return 1;
  }
  add_controls (GST_BIN (pipeline), MAX (seconds, 1));
  spectrum = gst_bin_get_by_name (GST_BIN (pipeline), "spectrum");
  g_object_get (spectrum, "threshold", &threshold, NULL);
  gst_object_unref (spectrum);

  bus = gst_element_get_bus (pipeline);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  while (!done) {
    GstMessage *msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
        GST_MESSAGE_ELEMENT | GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    const GstStructure *s;

    if (!msg) {
      g_printerr ("no message for 60 s\n");
      status = 1;
      break;
    }
    s = gst_message_get_structure (msg);
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ELEMENT
        && gst_structure_has_name (s, "spectrum")) {
      const GValue *mag = gst_structure_get_value (s, "magnitude");
      guint b;

      for (b = 0; b < BANDS && b < gst_value_array_get_size (mag); b++) {
        gfloat db = g_value_get_float (gst_value_array_get_value (mag, b));
        g_array_append_val (levels, db);
      }
      g_array_set_size (levels, (columns + 1) * BANDS);
      columns++;
    } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      gst_message_parse_error (msg, &error, NULL);
      g_printerr ("error from %s: %s\n", GST_OBJECT_NAME (msg->src),
          error->message);
      g_clear_error (&error);
      status = 1;
      done = TRUE;
    } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS) {
      done = TRUE;
    }
    gst_message_unref (msg);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);

  if (status == 0) {
    if (write_png (out, levels, columns, threshold))
      g_print ("%s: %u columns of %d ms, %d log bands from %g Hz\n", out,
          columns, INTERVAL_MS, BANDS, MIN_FREQ);
    else
      status = 1;
  }
  g_array_unref (levels);
  return status;
}

/* spectrum-bars.c: reads clfftspectrum's `spectrum` messages from the bus and draws a live text bar graph of a frequency sweep. */
#include <gst/gst.h>
#include <gst/controller/controller.h>

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define RATE 44100
#define SAMPLES_PER_BUFFER 1024
#define MIN_FREQ 100.0
#define ROWS 8                  /* height of the terminal graph */

typedef struct
{
  GMainLoop *loop;
  guint bands;
  gint threshold;               /* dB shown as an empty bar */
  gboolean tty;                 /* redraw in place, else one line each */
  gboolean drawn;
  gint status;
} App;

static gint seconds = 3, bands = 24;
static gboolean no_sync = FALSE;
static GOptionEntry entries[] = {
  {"seconds", 's', 0, G_OPTION_ARG_INT, &seconds, "Length of the sweep", "S"},
  {"bands", 'b', 0, G_OPTION_ARG_INT, &bands, "Frequency bands (2-64)", "N"},
  {"no-sync", 0, 0, G_OPTION_ARG_NONE, &no_sync,
      "Run as fast as possible instead of in real time", NULL},
  {NULL}
};

/* Centre of band b on clfftspectrum's log scale: MIN_FREQ * r^b with the
 * last band at Nyquist. */
static gdouble
band_frequency (guint b, guint n)
{
  return MIN_FREQ * pow (RATE / 2.0 / MIN_FREQ, (gdouble) b / (n - 1));
}

/* The dB level of band i, from a list (the default message-format, as
 * spectrum posts) or an array field. */
static gfloat
band_level (const GValue * magnitude, guint i)
{
  if (GST_VALUE_HOLDS_LIST (magnitude))
    return g_value_get_float (gst_value_list_get_value (magnitude, i));
  return g_value_get_float (gst_value_array_get_value (magnitude, i));
}

/* 0 (threshold) .. 1 (0 dB) */
static gdouble
fraction (App * app, gfloat db)
{
  return CLAMP ((db - app->threshold) / (gdouble) - app->threshold, 0.0, 1.0);
}

/* stdio, not g_print: g_print converts to the locale's charset, and the
 * block characters are UTF-8 */
static void
draw (App * app, GstClockTime ts, const GValue * magnitude)
{
  /* eighth blocks, from empty to full */
  static const gchar *blocks[] = { " ", "\u2581", "\u2582", "\u2583",
    "\u2584", "\u2585", "\u2586", "\u2587", "\u2588"
  };
  guint i, n, peak = 0;
  gint row;

  n = GST_VALUE_HOLDS_LIST (magnitude) ? gst_value_list_get_size (magnitude)
      : gst_value_array_get_size (magnitude);
  for (i = 1; i < n; i++)
    if (band_level (magnitude, i) > band_level (magnitude, peak))
      peak = i;

  if (!app->tty) {
    /* one row per message: a scrolling spectrogram of the sweep */
    printf ("%6.2f s |", (gdouble) ts / GST_SECOND);
    for (i = 0; i < n; i++)
      printf ("%s", blocks[(guint) lround (fraction (app,
                      band_level (magnitude, i)) * 8)]);
    printf ("| peak %6.0f Hz %6.1f dB\n", band_frequency (peak, n),
        band_level (magnitude, peak));
    fflush (stdout);
    return;
  }

  /* ROWS rows of two-column bars, redrawn over the previous graph */
  if (app->drawn)
    printf ("\033[%dA", ROWS + 1);
  for (row = ROWS - 1; row >= 0; row--) {
    for (i = 0; i < n; i++) {
      gint eighths = (gint) lround (fraction (app,
              band_level (magnitude, i)) * ROWS * 8) - row * 8;
      const gchar *b = blocks[CLAMP (eighths, 0, 8)];
      printf ("%s%s", b, b);
    }
    printf ("\n");
  }
  printf ("%6.2f s  peak %6.0f Hz %6.1f dB\033[K\n",
      (gdouble) ts / GST_SECOND, band_frequency (peak, n),
      band_level (magnitude, peak));
  fflush (stdout);
  app->drawn = TRUE;
}

static gboolean
on_message (GstBus * bus, GstMessage * msg, gpointer user_data)
{
  App *app = user_data;

  switch (GST_MESSAGE_TYPE (msg)) {
    case GST_MESSAGE_ELEMENT:{
      const GstStructure *s = gst_message_get_structure (msg);
      GstClockTime ts;

      if (gst_structure_has_name (s, "spectrum")
          && gst_structure_get_clock_time (s, "timestamp", &ts))
        draw (app, ts, gst_structure_get_value (s, "magnitude"));
      break;
    }
    case GST_MESSAGE_ERROR:{
      GError *error = NULL;
      gchar *debug = NULL;

      gst_message_parse_error (msg, &error, &debug);
      g_printerr ("error from %s: %s\n%s\n", GST_OBJECT_NAME (msg->src),
          error->message, debug ? debug : "");
      g_error_free (error);
      g_free (debug);
      app->status = 1;
      g_main_loop_quit (app->loop);
      break;
    }
    case GST_MESSAGE_EOS:
      g_main_loop_quit (app->loop);
      break;
    default:
      break;
  }
  return TRUE;
}

/* Sweeps audiotestsrc's frequency from 150 Hz to 12 kHz, evenly on the log
 * scale: the controller interpolates linearly between points spaced
 * geometrically. */
static void
add_sweep (GstElement * src, gdouble length)
{
  GstControlSource *cs = gst_interpolation_control_source_new ();
  GstTimedValueControlSource *tv = GST_TIMED_VALUE_CONTROL_SOURCE (cs);
  const guint points = 32;
  guint k;

  g_object_set (cs, "mode", GST_INTERPOLATION_MODE_LINEAR, NULL);
  for (k = 0; k <= points; k++)
    gst_timed_value_control_source_set (tv,
        (GstClockTime) (length * GST_SECOND * k / points),
        150.0 * pow (12000.0 / 150.0, (gdouble) k / points));
  gst_object_add_control_binding (GST_OBJECT (src),
      gst_direct_control_binding_new_absolute (GST_OBJECT (src), "freq", cs));
  gst_object_unref (cs);
}

int
main (int argc, char **argv)
{
  GOptionContext *opts = g_option_context_new ("- live spectrum bar graph");
  GError *error = NULL;
  GstElement *pipeline, *src, *spectrum;
  GstBus *bus;
  gchar *desc;
  App app = { 0, };

  g_option_context_add_main_entries (opts, entries, NULL);
  g_option_context_add_group (opts, gst_init_get_option_group ());
  if (!g_option_context_parse (opts, &argc, &argv, &error)) {
    g_printerr ("%s\n", error->message);
    return 2;
  }
  g_option_context_free (opts);
  bands = CLAMP (bands, 2, 64);
  seconds = MAX (seconds, 1);

  desc = g_strdup_printf ("audiotestsrc name=src num-buffers=%d "
      "samplesperbuffer=%d ! audio/x-raw,rate=%d,channels=1 ! "
      "clfftspectrum name=spectrum bands=%d frequency-scale=log "
      "min-frequency=%g interval=50000000 ! fakesink sync=%s",
      seconds * RATE / SAMPLES_PER_BUFFER, SAMPLES_PER_BUFFER, RATE, bands,
      MIN_FREQ, no_sync ? "false" : "true");
  pipeline = gst_parse_launch (desc, &error);
  g_free (desc);
  if (error) {
    g_printerr ("cannot build the pipeline: %s (is GST_PLUGIN_PATH set to "
        "the build's gst folder?)\n", error->message);
    return 1;
  }
  src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  spectrum = gst_bin_get_by_name (GST_BIN (pipeline), "spectrum");
  add_sweep (src, seconds);
  app.bands = bands;
  g_object_get (spectrum, "threshold", &app.threshold, NULL);
  app.tty = isatty (STDOUT_FILENO);
  app.loop = g_main_loop_new (NULL, FALSE);

  bus = gst_element_get_bus (pipeline);
  gst_bus_add_watch (bus, on_message, &app);
  g_print ("%d log-spaced bands, %.0f Hz to %.0f Hz; each bar from %d dB "
      "to 0 dB\n", bands, MIN_FREQ, RATE / 2.0, app.threshold);
  /* a failure to start posts an error too, which ends the loop */
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  g_main_loop_run (app.loop);

  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_bus_remove_watch (bus);
  gst_object_unref (bus);
  gst_object_unref (src);
  gst_object_unref (spectrum);
  gst_object_unref (pipeline);
  g_main_loop_unref (app.loop);
  return app.status;
}

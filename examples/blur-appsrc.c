/* blur-appsrc.c: an application feeds its own frames through clfftconvolve (appsrc -> appsink) and changes the radius while playing. */
#include <gst/gst.h>
#include <gst/app/app.h>
#include <gst/video/video.h>

#include <math.h>
#include <stdlib.h>

#define WIDTH 320
#define HEIGHT 240
#define FPS 25

/* The radius each quarter of the run uses. */
static const gfloat radii[] = { 0.0f, 2.0f, 8.0f, 32.0f };

/* A checkerboard of 16-pixel squares that slides one pixel a frame. */
static GstBuffer *
make_frame (guint index)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, WIDTH * HEIGHT, NULL);
  GstMapInfo map;
  guint x, y;

  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  for (y = 0; y < HEIGHT; y++)
    for (x = 0; x < WIDTH; x++)
      map.data[y * WIDTH + x] = (((x + index) / 16 + y / 16) & 1) ? 220 : 30;
  gst_buffer_unmap (buf, &map);
  GST_BUFFER_PTS (buf) = gst_util_uint64_scale (index, GST_SECOND, FPS);
  GST_BUFFER_DURATION (buf) = GST_SECOND / FPS;
  return buf;
}

/* RMS difference of horizontal neighbours: a blur spreads each edge over
 * more pixels, so it falls as the radius grows. */
static gdouble
sharpness (GstSample * sample)
{
  GstVideoInfo info;
  GstVideoFrame frame;
  gdouble sum = 0.0;
  gint x, y;

  gst_video_info_from_caps (&info, gst_sample_get_caps (sample));
  gst_video_frame_map (&frame, &info, gst_sample_get_buffer (sample),
      GST_MAP_READ);
  for (y = 0; y < GST_VIDEO_FRAME_HEIGHT (&frame); y++) {
    const guint8 *row = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame,
        0) + y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);
    for (x = 1; x < GST_VIDEO_FRAME_WIDTH (&frame); x++) {
      gdouble d = (gdouble) row[x] - row[x - 1];
      sum += d * d;
    }
  }
  gst_video_frame_unmap (&frame);
  return sqrt (sum / ((gdouble) (WIDTH - 1) * HEIGHT));
}

/* Prints the pipeline's error, if it stopped on one. */
static gboolean
report_error (GstElement * pipeline)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  GError *error = NULL;
  gchar *debug = NULL;

  gst_object_unref (bus);
  if (!msg)
    return FALSE;
  gst_message_parse_error (msg, &error, &debug);
  g_printerr ("error from %s: %s\n%s\n", GST_OBJECT_NAME (msg->src),
      error->message, debug ? debug : "");
  g_error_free (error);
  g_free (debug);
  gst_message_unref (msg);
  return TRUE;
}

int
main (int argc, char **argv)
{
  GstElement *pipeline, *src, *blur, *sink;
  GError *error = NULL;
  guint frames = 40, i, n_radii = G_N_ELEMENTS (radii), done = 0;
  gdouble sum = 0.0;
  gchar *device = NULL;
  gint ret = 0;

  gst_init (&argc, &argv);
  if (argc > 1)
    frames = MAX (n_radii, (guint) atoi (argv[1]));

  pipeline = gst_parse_launch ("appsrc name=src format=time "
      "caps=video/x-raw,format=GRAY8,width=" G_STRINGIFY (WIDTH) ",height="
      G_STRINGIFY (HEIGHT) ",framerate=" G_STRINGIFY (FPS) "/1 "
      "! clfftconvolve name=blur kernel-shape=gaussian "
      "! appsink name=sink sync=false", &error);
  if (error) {
    /* a missing element still gives a pipeline, without it */
    g_printerr ("cannot build the pipeline: %s (is GST_PLUGIN_PATH set to "
        "the build's gst folder?)\n", error->message);
    return 1;
  }
  src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  blur = gst_bin_get_by_name (GST_BIN (pipeline), "blur");
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");

  g_object_set (blur, "radius", radii[0], NULL);
  if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE) {
    report_error (pipeline);
    ret = 1;
    goto out;
  }

  /* One frame in, one frame out: each frame sees the radius set before it
   * was pushed. The property may change at any time while playing. */
  for (i = 0; i < frames; i++) {
    guint r = i * n_radii / frames;
    GstSample *sample;

    if (i > 0 && r != (i - 1) * n_radii / frames) {
      g_print ("radius %5.1f: RMS gradient %6.2f over %u frames\n",
          radii[r - 1], sum / done, done);
      sum = 0.0;
      done = 0;
      g_object_set (blur, "radius", radii[r], NULL);
    }
    if (gst_app_src_push_buffer (GST_APP_SRC (src), make_frame (i)) !=
        GST_FLOW_OK)
      break;
    /* a frame after a new radius may wait for its plans to compile: on
     * PoCL with empty caches about 5 s at this size on a 2-core EPYC */
    sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
        60 * GST_SECOND);
    if (!sample)
      break;
    if (i == 0) {
      g_object_get (blur, "device-name", &device, NULL);
      g_print ("clfftconvolve runs on %s\n", device);
    }
    sum += sharpness (sample);
    done++;
    gst_sample_unref (sample);
  }
  if (done > 0)
    g_print ("radius %5.1f: RMS gradient %6.2f over %u frames\n",
        radii[n_radii - 1], sum / done, done);

  gst_app_src_end_of_stream (GST_APP_SRC (src));
  if (i < frames) {
    report_error (pipeline);
    g_printerr ("stopped after %u of %u frames\n", i, frames);
    ret = 1;
  } else if (report_error (pipeline)) {
    ret = 1;
  }

out:
  gst_element_set_state (pipeline, GST_STATE_NULL);
  g_free (device);
  gst_object_unref (src);
  gst_object_unref (blur);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  return ret;
}

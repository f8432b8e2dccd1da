/* test-reliability-video.c: clfftconvolve and clfftspectrum on unusual video: 1x1, odd and prime sizes, a 1921x1081 frame, bad buffers, untimed and GAP frames, media switches. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/audio/audio.h>
#include <math.h>
#include <string.h>

#include "clf.h"
#include "reference.h"

#define THRESHOLD -60

/* ---- frames ------------------------------------------------------------- */

static guint
comp_get (GstVideoFrame * f, guint c, gint x, gint y)
{
  const guint8 *p = (const guint8 *) GST_VIDEO_FRAME_COMP_DATA (f, c) +
      y * GST_VIDEO_FRAME_COMP_STRIDE (f, c) +
      x * GST_VIDEO_FRAME_COMP_PSTRIDE (f, c);
  return GST_VIDEO_FRAME_COMP_DEPTH (f, c) > 8 ? GST_READ_UINT16_LE (p) : p[0];
}

static void
comp_set (GstVideoFrame * f, guint c, gint x, gint y, guint v)
{
  guint8 *p = (guint8 *) GST_VIDEO_FRAME_COMP_DATA (f, c) +
      y * GST_VIDEO_FRAME_COMP_STRIDE (f, c) +
      x * GST_VIDEO_FRAME_COMP_PSTRIDE (f, c);
  if (GST_VIDEO_FRAME_COMP_DEPTH (f, c) > 8)
    GST_WRITE_UINT16_LE (p, v);
  else
    p[0] = v;
}

/* Random samples in every component. */
static GstBuffer *
random_frame (const GstVideoInfo * info, guint seed)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, info->size, NULL);
  GRand *rand = g_rand_new_with_seed (seed);
  GstVideoFrame f;
  guint c;
  gint x, y;

  gst_buffer_memset (buf, 0, 0, info->size);
  fail_unless (gst_video_frame_map (&f, info, buf, GST_MAP_WRITE));
  for (c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (info); c++) {
    guint max = (1u << GST_VIDEO_INFO_COMP_DEPTH (info, c)) - 1;
    for (y = 0; y < GST_VIDEO_INFO_COMP_HEIGHT (info, c); y++)
      for (x = 0; x < GST_VIDEO_INFO_COMP_WIDTH (info, c); x++)
        comp_set (&f, c, x, y, g_rand_int_range (rand, 0, max + 1));
  }
  gst_video_frame_unmap (&f);
  g_rand_free (rand);
  GST_BUFFER_PTS (buf) = 0;
  GST_BUFFER_DURATION (buf) = GST_SECOND / 25;
  return buf;
}

static GstHarness *
video_harness (const gchar * element, const GstVideoInfo * in,
    const GstVideoInfo * out, GstBus ** bus)
{
  GstHarness *h = gst_harness_new (element);

  *bus = gst_bus_new ();
  gst_element_set_bus (h->element, *bus);
  gst_harness_set_caps (h, gst_video_info_to_caps (in),
      gst_video_info_to_caps (out));
  return h;
}

static void
harness_free (GstHarness * h, GstBus * bus)
{
  gst_bus_set_flushing (bus, TRUE);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

static void
check_no_error (GstBus * bus, const gchar * what)
{
  GstMessage *m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);

  if (m) {
    GError *err;
    gst_message_parse_error (m, &err, NULL);
    fail ("%s: error %s", what, err->message);
  }
}

/* The error a failed push posted: a message (in the given domain unless
 * 0) whose text contains `text` unless NULL. */
static void
check_error (GstBus * bus, GQuark domain, const gchar * text,
    const gchar * what)
{
  GstMessage *m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  GError *err = NULL;
  gchar *dbg = NULL;

  fail_unless (m != NULL, "%s: no error message", what);
  gst_message_parse_error (m, &err, &dbg);
  GST_INFO ("%s: %s (%s)", what, err->message, dbg);
  fail_unless (!domain || err->domain == domain, "%s: %s domain: %s", what,
      g_quark_to_string (err->domain), err->message);
  fail_unless (!text || strstr (err->message, text), "%s: \"%s\" not in "
      "\"%s\"", what, text, err->message);
  g_error_free (err);
  g_free (dbg);
  gst_message_unref (m);
}

/* ---- clfftconvolve: a shift kernel -------------------------------------- */

/* A 3x3 kernel whose only tap sits at (2, 0): offset (+1, -1) from the
 * centre, so out(x, y) = in(x - 1, y + 1), wrapped at the edges. As a
 * true convolution of integer samples with a unit tap, every output
 * sample is an input sample: float32 FFT error (~1e-6 of 65535 for the
 * grids here) stays far below the 0.5 that rounding forgives, so the
 * result must be exact, for every plane, subsampled ones included. */
static void
set_shift_kernel (GstElement * e)
{
  gst_util_set_object_arg (G_OBJECT (e), "kernel",
      "<0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0>");
  gst_util_set_object_arg (G_OBJECT (e), "edge-mode", "wrap");
}

static void
check_shifted (const GstVideoInfo * info, GstBuffer * in, GstBuffer * out,
    const gchar * what)
{
  GstVideoFrame fi, fo;
  guint c;
  gint x, y;

  fail_unless (gst_video_frame_map (&fi, info, in, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fo, info, out, GST_MAP_READ));
  for (c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (info); c++) {
    gint w = GST_VIDEO_INFO_COMP_WIDTH (info, c);
    gint h = GST_VIDEO_INFO_COMP_HEIGHT (info, c);
    for (y = 0; y < h; y++)
      for (x = 0; x < w; x++) {
        guint want = comp_get (&fi, c, (x - 1 + w) % w, (y + 1) % h);
        guint got = comp_get (&fo, c, x, y);
        fail_unless (got == want, "%s %s %dx%d component %u at (%d,%d): "
            "got %u, want %u", what, GST_VIDEO_INFO_NAME (info),
            GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info), c, x,
            y, got, want);
      }
  }
  gst_video_frame_unmap (&fi);
  gst_video_frame_unmap (&fo);
}

static void
convolve_shift (GstVideoFormat format, gint w, gint h, const gchar * what)
{
  GstVideoInfo info;
  GstHarness *hn;
  GstBus *bus;
  GstBuffer *in, *out;

  gst_video_info_set_format (&info, format, w, h);
  hn = video_harness ("clfftconvolve", &info, &info, &bus);
  set_shift_kernel (hn->element);
  in = random_frame (&info, w * 1000 + h);
  fail_unless_equals_int (gst_harness_push (hn, gst_buffer_ref (in)),
      GST_FLOW_OK);
  out = gst_harness_pull (hn);
  check_shifted (&info, in, out, what);
  check_no_error (bus, what);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  harness_free (hn, bus);
}

/* 1x1, single rows and columns, odd and prime sizes, in grey, 16-bit,
 * packed RGBA and subsampled planar and semi-planar YUV. */
GST_START_TEST (test_convolve_sizes)
{
  static const gint sizes[][2] = { {1, 1}, {1, 9}, {9, 1}, {2, 2}, {3, 5},
  {13, 17}, {31, 29}, {97, 89}
  };
  static const GstVideoFormat formats[] = { GST_VIDEO_FORMAT_GRAY8,
    GST_VIDEO_FORMAT_GRAY16_LE, GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_I420,
    GST_VIDEO_FORMAT_NV12
  };
  guint s, f;

  for (s = 0; s < G_N_ELEMENTS (sizes); s++)
    for (f = 0; f < G_N_ELEMENTS (formats); f++)
      convolve_shift (formats[f], sizes[s][0], sizes[s][1], "shift");

  /* the column pass split in two, as on GPUs */
  clf_debug_force_column_split (1);
  convolve_shift (GST_VIDEO_FORMAT_GRAY8, 97, 89, "split columns");
  convolve_shift (GST_VIDEO_FORMAT_I420, 31, 29, "split columns");
  clf_debug_force_column_split (0);
}

GST_END_TEST;

/* One 1921x1081 frame (both sides odd, 1921 = 17 x 113) with a gaussian of
 * radius 1.5 and clamped edges against a direct double convolution:
 * within one code value (float32 error ~1e-4 of a code value, then
 * rounding). */
GST_START_TEST (test_convolve_1921x1081)
{
  const gint w = 1921, h = 1081, c = 2;
  const gdouble radius = 1.5, sigma = radius / 3.0;
  GstVideoInfo info;
  GstHarness *hn;
  GstBus *bus;
  GstBuffer *in, *out;
  GstVideoFrame fi, fo;
  gdouble k[5][5], sum = 0.0;
  gint x, y, i, j, worst = 0;

  for (j = -c; j <= c; j++)
    for (i = -c; i <= c; i++)
      sum += k[j + c][i + c] = exp (-(i * i + j * j) / (2 * sigma * sigma));
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, w, h);
  hn = video_harness ("clfftconvolve", &info, &info, &bus);
  g_object_set (hn->element, "radius", (gfloat) radius, NULL);
  in = random_frame (&info, 1921);
  fail_unless_equals_int (gst_harness_push (hn, gst_buffer_ref (in)),
      GST_FLOW_OK);
  out = gst_harness_pull (hn);
  fail_unless (gst_video_frame_map (&fi, &info, in, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fo, &info, out, GST_MAP_READ));
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      gdouble acc = 0.0;
      gint want, got;
      for (j = -c; j <= c; j++)
        for (i = -c; i <= c; i++)
          acc += k[j + c][i + c] * comp_get (&fi, 0, CLAMP (x - i, 0, w - 1),
              CLAMP (y - j, 0, h - 1));
      want = (gint) floor (acc / sum + 0.5);
      got = comp_get (&fo, 0, x, y);
      fail_unless (ABS (got - want) <= 1, "(%d,%d): got %d, want %d (%g)", x,
          y, got, want, acc / sum);
      worst = MAX (worst, ABS (got - want));
    }
  GST_INFO ("1921x1081: worst difference %d", worst);
  gst_video_frame_unmap (&fi);
  gst_video_frame_unmap (&fo);
  check_no_error (bus, "1921x1081");
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  harness_free (hn, bus);
}

GST_END_TEST;

/* ---- clfftspectrum: the documented image -------------------------------- */

/* The element's image against the documented mapping of a double FFT of
 * the luma: pixel (x, y) shows bin ((x - w/2) mod w, (y - h/2) mod h) at
 * (dB - threshold) / (peak dB - threshold) of 255, dB = 10 log10
 * (|X|^2 / N^2). A float32 FFT's error is ~1e-6 of the largest bin, so a
 * bin of power p is off by ~8.7 * 2e-6 * sqrt (peak / p) dB; plus one
 * step of rounding. */
static void
check_spectrum_image (GstBuffer * in, const GstVideoInfo * in_info,
    GstBuffer * out, const gchar * what)
{
  gint w = GST_VIDEO_INFO_WIDTH (in_info), h = GST_VIDEO_INFO_HEIGHT (in_info);
  gsize n = (gsize) w * h, i;
  gdouble *cin = g_new0 (gdouble, 2 * n), *cout = g_new (gdouble, 2 * n);
  gdouble *p = g_new (gdouble, n), peak = 0.0, range;
  GstVideoInfo oinfo;
  GstVideoFrame fi, fo;
  gint x, y;

  /* GRAY8 and I420 luma read as value / 255 */
  fail_unless (gst_video_frame_map (&fi, in_info, in, GST_MAP_READ));
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++)
      cin[2 * ((gsize) y * w + x)] = comp_get (&fi, 0, x, y) / 255.0;
  gst_video_frame_unmap (&fi);
  ref_fft (cin, cout, w, h, -1);
  for (i = 0; i < n; i++) {
    p[i] = (cout[2 * i] * cout[2 * i] + cout[2 * i + 1] * cout[2 * i + 1]) /
        ((gdouble) n * n);
    peak = MAX (peak, p[i]);
  }
  range = 10 * log10 (peak) - THRESHOLD;

  gst_video_info_set_format (&oinfo, GST_VIDEO_FORMAT_GRAY8, w, h);
  fail_unless (gst_video_frame_map (&fo, &oinfo, out, GST_MAP_READ));
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      gsize k = (gsize) ((y + h - h / 2) % h) * w + (x + w - w / 2) % w;
      gdouble level = CLAMP ((10 * log10 (MAX (p[k], 1e-300)) - THRESHOLD) /
          range, 0.0, 1.0);
      gdouble tol = 1.0 + 255 * 8.7 * 2e-6 * sqrt (peak / MAX (p[k],
              1e-30)) / range;
      gdouble got = comp_get (&fo, 0, x, y);
      fail_unless (fabs (got - level * 255) <= tol, "%s %dx%d (%d,%d): %g, "
          "expected %g", what, w, h, x, y, got, level * 255);
    }
  gst_video_frame_unmap (&fo);
  g_free (cin);
  g_free (cout);
  g_free (p);
}

static void
spectrum_frame (GstVideoFormat format, gint w, gint h, const gchar * what)
{
  GstVideoInfo in_info, out_info;
  GstHarness *hn;
  GstBus *bus;
  GstBuffer *in, *out;

  gst_video_info_set_format (&in_info, format, w, h);
  gst_video_info_set_format (&out_info, GST_VIDEO_FORMAT_GRAY8, w, h);
  hn = video_harness ("clfftspectrum", &in_info, &out_info, &bus);
  g_object_set (hn->element, "post-messages", FALSE, NULL);
  in = random_frame (&in_info, w * 7 + h);
  fail_unless_equals_int (gst_harness_push (hn, gst_buffer_ref (in)),
      GST_FLOW_OK);
  out = gst_harness_pull (hn);
  check_spectrum_image (in, &in_info, out, what);
  check_no_error (bus, what);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  harness_free (hn, bus);
}

/* Below the caps' 2x2 minimum a frame cannot be negotiated: refused
 * without a crash; from 2x2 on, odd and prime sizes are exact. */
GST_START_TEST (test_spectrum_sizes)
{
  static const gint sizes[][2] = { {2, 2}, {2, 3}, {3, 5}, {13, 17},
  {31, 29}, {97, 89}
  };
  static const gint tiny[][2] = { {1, 1}, {1, 9}, {9, 1} };
  guint s;

  for (s = 0; s < G_N_ELEMENTS (tiny); s++) {
    GstHarness *hn = gst_harness_new ("clfftspectrum");
    GstVideoInfo info;
    GstBuffer *in;

    gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, tiny[s][0],
        tiny[s][1]);
    gst_harness_set_src_caps (hn, gst_video_info_to_caps (&info));
    in = random_frame (&info, s);
    fail_unless_equals_int (gst_harness_push (hn, in), GST_FLOW_NOT_NEGOTIATED);
    gst_harness_teardown (hn);
  }
  for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
    spectrum_frame (GST_VIDEO_FORMAT_GRAY8, sizes[s][0], sizes[s][1], "GRAY8");
    spectrum_frame (GST_VIDEO_FORMAT_I420, sizes[s][0], sizes[s][1], "I420");
  }
  clf_debug_force_column_split (1);
  spectrum_frame (GST_VIDEO_FORMAT_GRAY8, 97, 89, "split columns");
  clf_debug_force_column_split (0);
}

GST_END_TEST;

/* ---- bad and unusual buffers -------------------------------------------- */

/* A buffer smaller than the negotiated frame (empty, or half a frame) is
 * refused with a clean error, and the next proper frame is processed
 * correctly; GAP frames and frames without timestamps are processed like
 * any other. For both elements. */
static void
odd_buffers (const gchar * element)
{
  GstVideoInfo in_info, out_info;
  GstHarness *hn;
  GstBus *bus;
  GstBuffer *in, *out, *bad;
  gboolean spectrum = g_str_equal (element, "clfftspectrum");
  guint i;

  gst_video_info_set_format (&in_info, GST_VIDEO_FORMAT_GRAY8, 21, 13);
  out_info = in_info;
  hn = video_harness (element, &in_info, &out_info, &bus);
  if (spectrum)
    g_object_set (hn->element, "post-messages", FALSE, NULL);
  else
    set_shift_kernel (hn->element);

  for (i = 0; i < 2; i++) {
    bad = gst_buffer_new_allocate (NULL, i == 0 ? 0 : in_info.size / 2, NULL);
    gst_buffer_memset (bad, 0, 0, gst_buffer_get_size (bad));
    GST_BUFFER_PTS (bad) = i * GST_SECOND;
    fail_unless_equals_int (gst_harness_push (hn, bad), GST_FLOW_ERROR);
    /* clfftconvolve names the sizes; clfftspectrum posts a generic
     * RESOURCE/READ text with the reason in the debug string */
    check_error (bus, spectrum ? 0 : GST_STREAM_ERROR, spectrum ? NULL :
        "21x13 GRAY8 frame (312 bytes)", i == 0 ? "empty frame" : "half frame");
  }

  /* then a good frame, untimed and flagged GAP */
  in = random_frame (&in_info, 77);
  GST_BUFFER_PTS (in) = GST_CLOCK_TIME_NONE;
  GST_BUFFER_DURATION (in) = GST_CLOCK_TIME_NONE;
  GST_BUFFER_FLAG_SET (in, GST_BUFFER_FLAG_GAP);
  fail_unless_equals_int (gst_harness_push (hn, gst_buffer_ref (in)),
      GST_FLOW_OK);
  out = gst_harness_pull (hn);
  fail_if (GST_BUFFER_PTS_IS_VALID (out));
  if (spectrum)
    check_spectrum_image (in, &in_info, out, "after bad buffers");
  else
    check_shifted (&in_info, in, out, "after bad buffers");
  gst_buffer_unref (out);

  /* a bigger buffer than the frame: the frame is read from its start */
  bad = gst_buffer_new_allocate (NULL, in_info.size + 100, NULL);
  gst_buffer_memset (bad, in_info.size, 0xff, 100);
  {
    GstMapInfo map;
    gst_buffer_map (bad, &map, GST_MAP_WRITE);
    gst_buffer_extract (in, 0, map.data, in_info.size);
    gst_buffer_unmap (bad, &map);
  }
  fail_unless_equals_int (gst_harness_push (hn, bad), GST_FLOW_OK);
  out = gst_harness_pull (hn);
  if (spectrum)
    check_spectrum_image (in, &in_info, out, "oversized buffer");
  else
    check_shifted (&in_info, in, out, "oversized buffer");
  gst_buffer_unref (out);
  check_no_error (bus, "good frames");

  gst_buffer_unref (in);
  harness_free (hn, bus);
}

GST_START_TEST (test_convolve_odd_buffers)
{
  odd_buffers ("clfftconvolve");
}

GST_END_TEST;

GST_START_TEST (test_spectrum_odd_buffers)
{
  odd_buffers ("clfftspectrum");
}

GST_END_TEST;

/* ---- segments not in TIME ------------------------------------------------ */

/* appsrc's default segment is BYTES: buffers flow without GLib criticals
 * (gst-check fails on those), and spectrum messages carry no running or
 * stream time rather than made-up ones. */
static void
bytes_segment (const gchar * element, const gchar * caps, gsize size,
    guint buffers, gboolean expect_messages)
{
  gchar *desc = g_strdup_printf ("appsrc name=src caps=\"%s\" ! %s ! "
      "appsink name=sink sync=false", caps, element);
  GstElement *pipe = gst_parse_launch (desc, NULL);
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *m;
  guint i, got = 0, messages = 0;
  GstSample *sample;
  GstFlowReturn ret;

  fail_unless (pipe != NULL, "%s", desc);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  for (i = 0; i < buffers; i++) {
    GstBuffer *b = gst_buffer_new_allocate (NULL, size, NULL);
    gst_buffer_memset (b, 0, 40 + i, size);
    GST_BUFFER_PTS (b) = i * GST_SECOND / 10;
    g_signal_emit_by_name (src, "push-buffer", b, &ret);
    gst_buffer_unref (b);
    fail_unless_equals_int (ret, GST_FLOW_OK);
  }
  g_signal_emit_by_name (src, "end-of-stream", &ret);
  for (;;) {
    sample = NULL;
    g_signal_emit_by_name (sink, "pull-sample", &sample);
    if (!sample)
      break;
    got++;
    gst_sample_unref (sample);
  }
  fail_unless_equals_int (got, buffers);
  while ((m = gst_bus_pop (bus))) {
    fail_if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR, "%s: error", desc);
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ELEMENT &&
        gst_message_has_name (m, "spectrum")) {
      const GstStructure *st = gst_message_get_structure (m);
      guint64 rt = 0;
      fail_unless (gst_structure_get_uint64 (st, "running-time", &rt));
      fail_unless_equals_uint64 (rt, GST_CLOCK_TIME_NONE);
      messages++;
    }
    gst_message_unref (m);
  }
  if (expect_messages)
    fail_unless (messages > 0, "%s: no spectrum messages", desc);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  g_free (desc);
}

GST_START_TEST (test_bytes_segment)
{
  bytes_segment ("clfftconvolve radius=2",
      "video/x-raw,format=GRAY8,width=16,height=8,framerate=10/1", 16 * 8, 5,
      FALSE);
  bytes_segment ("clfftspectrum bands=16 interval=10000000",
      "audio/x-raw,format=" GST_AUDIO_NE (F32) ",layout=interleaved,"
      "rate=8000,channels=1", 800 * sizeof (gfloat), 3, TRUE);
}

GST_END_TEST;

/* ---- switching between audio and video ---------------------------------- */

static gchar *
audio_caps_str (guint rate, guint channels)
{
  return g_strdup_printf ("audio/x-raw,format=" GST_AUDIO_NE (F32)
      ",layout=interleaved,rate=%u,channels=%u", rate, channels);
}

static GstBuffer *
audio_buffer (guint frames, guint channels, gfloat value)
{
  GstBuffer *b = gst_buffer_new_allocate (NULL,
      (gsize) frames * channels * sizeof (gfloat), NULL);
  GstMapInfo map;
  guint i;

  gst_buffer_map (b, &map, GST_MAP_WRITE);
  for (i = 0; i < frames * channels; i++)
    ((gfloat *) map.data)[i] = value * sinf (i * 0.3f);
  gst_buffer_unmap (b, &map);
  GST_BUFFER_PTS (b) = 0;
  GST_BUFFER_FLAG_SET (b, GST_BUFFER_FLAG_DISCONT);
  return b;
}

/* video -> audio -> video on one clfftconvolve: each mode works after the
 * other, the audio tail rings out at the switch. */
GST_START_TEST (test_convolve_media_switch)
{
  GstVideoInfo info;
  GstHarness *hn;
  GstBus *bus;
  GstBuffer *in, *out;
  gchar *acaps = audio_caps_str (48000, 2);
  gsize audio_bytes = 0;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, 23, 19);
  hn = video_harness ("clfftconvolve", &info, &info, &bus);
  set_shift_kernel (hn->element);
  gst_util_set_object_arg (G_OBJECT (hn->element), "impulse-response",
      "<0.5, 0.25, 0.125>");
  g_object_set (hn->element, "block-size", 64, NULL);
  in = random_frame (&info, 5);
  fail_unless_equals_int (gst_harness_push (hn, gst_buffer_ref (in)),
      GST_FLOW_OK);
  out = gst_harness_pull (hn);
  check_shifted (&info, in, out, "video before audio");
  gst_buffer_unref (out);

  gst_harness_set_caps_str (hn, acaps, acaps);
  fail_unless_equals_int (gst_harness_push (hn, audio_buffer (100, 2, 0.5f)),
      GST_FLOW_OK);
  while ((out = gst_harness_try_pull (hn))) {
    audio_bytes += gst_buffer_get_size (out);
    gst_buffer_unref (out);
  }
  /* back to video: the audio rings out first (100 + 2 frames in all) */
  gst_harness_set_caps (hn, gst_video_info_to_caps (&info),
      gst_video_info_to_caps (&info));
  while ((out = gst_harness_try_pull (hn))) {
    audio_bytes += gst_buffer_get_size (out);
    gst_buffer_unref (out);
  }
  fail_unless_equals_int (audio_bytes, 102 * 2 * sizeof (gfloat));
  fail_unless_equals_int (gst_harness_push (hn, gst_buffer_ref (in)),
      GST_FLOW_OK);
  out = gst_harness_pull (hn);
  check_shifted (&info, in, out, "video after audio");
  gst_buffer_unref (out);
  check_no_error (bus, "media switch");
  gst_buffer_unref (in);
  g_free (acaps);
  harness_free (hn, bus);
}

GST_END_TEST;

/* audio -> video -> audio on one clfftspectrum: messages for audio, exact
 * images for video, whichever came before. */
GST_START_TEST (test_spectrum_media_switch)
{
  GstVideoInfo info, oinfo;
  GstHarness *hn = gst_harness_new ("clfftspectrum");
  GstBus *bus = gst_bus_new ();
  GstBuffer *in, *out;
  GstMessage *m;
  gchar *acaps = audio_caps_str (8000, 1);
  guint round, messages;

  gst_element_set_bus (hn->element, bus);
  g_object_set (hn->element, "bands", 16, "interval", GST_SECOND / 100, NULL);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 17, 11);
  gst_video_info_set_format (&oinfo, GST_VIDEO_FORMAT_GRAY8, 17, 11);
  for (round = 0; round < 2; round++) {
    gst_harness_set_caps_str (hn, acaps, acaps);
    fail_unless_equals_int (gst_harness_push (hn, audio_buffer (800, 1,
                0.7f)), GST_FLOW_OK);
    gst_buffer_unref (gst_harness_pull (hn));
    messages = 0;
    while ((m = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT))) {
      messages++;
      gst_message_unref (m);
    }
    /* 800 frames at 8 kHz in intervals of 80 frames */
    fail_unless_equals_int (messages, 10);

    if (round == 1)
      break;
    gst_harness_set_caps (hn, gst_video_info_to_caps (&info),
        gst_video_info_to_caps (&oinfo));
    in = random_frame (&info, 9);
    fail_unless_equals_int (gst_harness_push (hn, gst_buffer_ref (in)),
        GST_FLOW_OK);
    out = gst_harness_pull (hn);
    check_spectrum_image (in, &info, out, "video between audio");
    gst_buffer_unref (in);
    gst_buffer_unref (out);
    while ((m = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT)))
      gst_message_unref (m);
  }
  check_no_error (bus, "media switch");
  g_free (acaps);
  harness_free (hn, bus);
}

GST_END_TEST;

static Suite *
reliability_video_suite (void)
{
  Suite *s = suite_create ("reliability-video");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_convolve_sizes);
  tcase_add_test (tc, test_convolve_1921x1081);
  tcase_add_test (tc, test_spectrum_sizes);
  tcase_add_test (tc, test_convolve_odd_buffers);
  tcase_add_test (tc, test_spectrum_odd_buffers);
  tcase_add_test (tc, test_bytes_segment);
  tcase_add_test (tc, test_convolve_media_switch);
  tcase_add_test (tc, test_spectrum_media_switch);
  return s;
}

GST_CHECK_MAIN (reliability_video);

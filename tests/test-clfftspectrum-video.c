/* test-clfftspectrum-video.c: clfftspectrum's 2D video spectra against a double-precision FFT of the same frames. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <math.h>
#include <string.h>

#include "reference.h"

#define THRESHOLD -60

/* ---- frames ------------------------------------------------------------ */

/* Luma in [0, 1]: a horizontal cosine of kx periods across the frame on a
 * mid-grey level, plus optional noise (for spectra with many bands). */
static gdouble *
make_luma (guint w, guint h, guint kx, gdouble noise, guint seed)
{
  gdouble *l = g_new (gdouble, (gsize) w * h);
  gfloat *n = g_new (gfloat, (gsize) w * h);
  guint x, y;

  ref_fill_random (n, (gsize) w * h, seed);
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++)
      l[y * w + x] = CLAMP (0.5 + 0.25 * cos (2 * M_PI * kx * x / w) +
          noise * n[y * w + x], 0.0, 1.0);
  g_free (n);
  return l;
}

/* A frame of format fmt showing luma (grey pixels for RGB formats,
 * neutral chroma for YUV); *as_read receives the luma the element reads
 * (the quantised values scaled back to [0, 1]). */
static GstBuffer *
make_frame (GstVideoFormat fmt, guint w, guint h, const gdouble * luma,
    gdouble * as_read)
{
  GstVideoInfo info;
  GstVideoFrame f;
  GstBuffer *buf;
  guint x, y, p;
  gboolean is16 = fmt == GST_VIDEO_FORMAT_GRAY16_LE;

  gst_video_info_set_format (&info, fmt, w, h);
  buf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&info), NULL);
  fail_unless (gst_video_frame_map (&f, &info, buf, GST_MAP_WRITE));
  /* neutral chroma, opaque alpha, zero padding */
  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (&f); p++)
    memset (GST_VIDEO_FRAME_PLANE_DATA (&f, p), p ? 128 : 255,
        GST_VIDEO_FRAME_PLANE_STRIDE (&f, p) *
        GST_VIDEO_FRAME_COMP_HEIGHT (&f, p ? 1 : 0));

  for (y = 0; y < h; y++) {
    for (x = 0; x < w; x++) {
      gdouble l = luma[y * w + x];
      guint8 *px;

      if (is16) {
        guint16 v = (guint16) lround (l * 65535.0);
        px = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0) +
            y * GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0) + 2 * x;
        GST_WRITE_UINT16_LE (px, v);
        as_read[y * w + x] = v / 65535.0;
      } else if (GST_VIDEO_INFO_IS_RGB (&info)) {
        guint8 v = (guint8) lround (l * 255.0);
        guint c;
        px = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0) +
            y * GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0) +
            x * GST_VIDEO_FRAME_COMP_PSTRIDE (&f, 0);
        for (c = 0; c < 3; c++)
          px[GST_VIDEO_FRAME_COMP_POFFSET (&f, c)] = v;
        /* luma weights sum to one: grey reads as its value */
        as_read[y * w + x] = v / 255.0;
      } else {
        guint8 v = (guint8) lround (l * 255.0);
        px = (guint8 *) GST_VIDEO_FRAME_COMP_DATA (&f, 0) +
            y * GST_VIDEO_FRAME_COMP_STRIDE (&f, 0) +
            x * GST_VIDEO_FRAME_COMP_PSTRIDE (&f, 0);
        *px = v;
        as_read[y * w + x] = v / 255.0;
      }
    }
  }
  gst_video_frame_unmap (&f);
  return buf;
}

/* An RGB frame whose three components are independent noise, and the
 * luma the element reads from it (BT.709 weights: caps without a luma
 * matrix) into as_read */
static GstBuffer *
make_colour_frame (GstVideoFormat fmt, guint w, guint h, guint seed,
    gdouble * as_read)
{
  static const gdouble k[3] = { 0.2126, 0.7152, 0.0722 };
  GRand *rand = g_rand_new_with_seed (seed);
  GstVideoInfo info;
  GstVideoFrame f;
  GstBuffer *buf;
  guint x, y, c;

  gst_video_info_set_format (&info, fmt, w, h);
  buf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&info), NULL);
  fail_unless (gst_video_frame_map (&f, &info, buf, GST_MAP_WRITE));
  /* opaque alpha and padding that would show if read as a component */
  memset (GST_VIDEO_FRAME_PLANE_DATA (&f, 0), 255,
      GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0) * h);
  for (y = 0; y < h; y++) {
    for (x = 0; x < w; x++) {
      guint8 *px = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0) +
          y * GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0) +
          x * GST_VIDEO_FRAME_COMP_PSTRIDE (&f, 0);
      gdouble l = 0.0;

      for (c = 0; c < 3; c++) {
        guint8 v = (guint8) g_rand_int_range (rand, 0, 200);

        px[GST_VIDEO_FRAME_COMP_POFFSET (&f, c)] = v;
        l += k[c] * v / 255.0;
      }
      as_read[y * w + x] = l;
    }
  }
  gst_video_frame_unmap (&f);
  g_rand_free (rand);
  return buf;
}

static gchar *
video_caps (GstVideoFormat fmt, guint w, guint h)
{
  return g_strdup_printf ("video/x-raw, format=%s, width=%u, height=%u, "
      "framerate=25/1", gst_video_format_to_string (fmt), w, h);
}

/* ---- reference --------------------------------------------------------- */

/* Normalised power |X|^2 / N^2 of the luma's 2D spectrum, unshifted,
 * [ky][kx]. */
static gdouble *
ref_power (const gdouble * luma, guint w, guint h)
{
  gsize n = (gsize) w * h, i;
  gdouble *in = g_new0 (gdouble, 2 * n), *out = g_new (gdouble, 2 * n);
  gdouble *p = g_new (gdouble, n);

  for (i = 0; i < n; i++)
    in[2 * i] = luma[i];
  ref_fft (in, out, w, h, -1);
  for (i = 0; i < n; i++)
    p[i] = (out[2 * i] * out[2 * i] + out[2 * i + 1] * out[2 * i + 1]) /
        ((gdouble) n * n);
  g_free (in);
  g_free (out);
  return p;
}

/* Compares the element's image with the reference mapping: pixel (x, y)
 * shows bin ((x - w/2) mod w, (y - h/2) mod h) at
 * (dB - threshold) / (peak dB - threshold) of full scale.
 *
 * Tolerance per pixel: a float32 FFT's error is about 1e-6 of the largest
 * bin (the DC here), so a bin of power p is off by a relative 2e-6 *
 * sqrt (peak / p) in power, 8.7 dB times that; on the output scale that is
 * divided by the dB range; plus one step of rounding. */
static void
check_image (GstBuffer * out, GstVideoFormat ofmt, guint w, guint h,
    const gdouble * luma, gint threshold)
{
  GstVideoInfo info;
  GstVideoFrame f;
  gdouble *p = ref_power (luma, w, h), peak = 0.0, peak_db, range, worst = 0;
  gdouble full = ofmt == GST_VIDEO_FORMAT_GRAY16_LE ? 65535.0 : 255.0;
  guint x, y;

  for (x = 0; x < w * h; x++)
    peak = MAX (peak, p[x]);
  peak_db = 10 * log10 (peak);
  range = peak_db - threshold;

  gst_video_info_set_format (&info, ofmt, w, h);
  fail_unless (gst_video_frame_map (&f, &info, out, GST_MAP_READ));
  for (y = 0; y < h; y++) {
    for (x = 0; x < w; x++) {
      guint kx = (x + w - w / 2) % w, ky = (y + h - h / 2) % h;
      gdouble pw = p[ky * w + kx];
      gdouble level = CLAMP ((10 * log10 (pw) - threshold) / range, 0, 1);
      gdouble expect = level * full;
      const guint8 *row = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0)
          + y * GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0);
      gdouble got = full > 255 ? GST_READ_UINT16_LE (row + 2 * x) : row[x];
      gdouble tol = 1.0 + full * 8.7 * 2e-6 * sqrt (peak / MAX (pw,
              1e-30)) / range;

      fail_unless (fabs (got - expect) <= tol,
          "%ux%u pixel (%u, %u): %g, expected %g (tolerance %g)", w, h, x, y,
          got, expect, tol);
      if (level > 0)
        worst = MAX (worst, fabs (got - expect));
    }
  }
  gst_video_frame_unmap (&f);
  GST_INFO ("%ux%u -> %s: worst %g steps", w, h,
      gst_video_format_to_string (ofmt), worst);
  g_free (p);
}

static guint8
pixel8 (GstBuffer * out, guint w, guint h, guint x, guint y)
{
  GstVideoInfo info;
  GstVideoFrame f;
  guint8 v;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, w, h);
  fail_unless (gst_video_frame_map (&f, &info, out, GST_MAP_READ));
  v = ((const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0))[y *
      GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0) + x];
  gst_video_frame_unmap (&f);
  return v;
}

/* ---- harness ----------------------------------------------------------- */

static GstHarness *
harness_new (const gchar * launch, const gchar * in, const gchar * out,
    GstBus ** bus)
{
  GstHarness *h = gst_harness_new_parse (launch);

  *bus = gst_bus_new ();
  gst_element_set_bus (h->element, *bus);
  gst_harness_set_caps_str (h, in, out);
  return h;
}

/* clfftspectrum without messages from fmt to GRAY8 images of w x h */
static GstHarness *
image_harness (GstVideoFormat fmt, guint w, guint h, GstBus ** bus)
{
  gchar *in = video_caps (fmt, w, h);
  gchar *out = video_caps (GST_VIDEO_FORMAT_GRAY8, w, h);
  GstHarness *hn = harness_new ("clfftspectrum post-messages=false", in,
      out, bus);

  g_free (in);
  g_free (out);
  return hn;
}

/* Tears down a harness_new harness; the bus is flushed first, or the
 * messages queued on it would keep the elements that posted them alive. */
static void
harness_free (GstHarness * h, GstBus * bus)
{
  gst_bus_set_flushing (bus, TRUE);
  gst_harness_teardown (h);
  gst_object_unref (bus);
}

static GstBuffer *
process (GstHarness * h, GstBuffer * in, guint64 pts)
{
  GST_BUFFER_PTS (in) = pts;
  GST_BUFFER_DURATION (in) = GST_SECOND / 25;
  fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  return gst_harness_pull (h);
}

static void
check_no_error (GstBus * bus)
{
  GstMessage *m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  if (m) {
    GError *err;
    gst_message_parse_error (m, &err, NULL);
    fail ("error: %s", err->message);
  }
}

/* ---- tests ------------------------------------------------------------- */

/* A horizontal cosine: DC white at the centre, two symmetric peaks kx
 * columns either side at the cosine's level, in every input format. */
GST_START_TEST (test_cosine_every_format)
{
  static const GstVideoFormat formats[] = { GST_VIDEO_FORMAT_GRAY8,
    GST_VIDEO_FORMAT_GRAY16_LE, GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRA,
    GST_VIDEO_FORMAT_RGBx, GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_ARGB,
    GST_VIDEO_FORMAT_ABGR, GST_VIDEO_FORMAT_xRGB, GST_VIDEO_FORMAT_xBGR,
    GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_BGR, GST_VIDEO_FORMAT_I420,
    GST_VIDEO_FORMAT_NV12
  };
  const guint w = 64, h = 48, kx = 8;
  gdouble *luma = make_luma (w, h, kx, 0.0, 0);
  gdouble *as_read = g_new (gdouble, w * h);
  guint i;

  for (i = 0; i < G_N_ELEMENTS (formats); i++) {
    GstBus *bus;
    GstHarness *hn = image_harness (formats[i], w, h, &bus);
    GstBuffer *res = process (hn, make_frame (formats[i], w, h, luma,
            as_read), 0);
    gdouble mean = 0.0, dc_db;
    guint8 expect;
    guint k;

    /* DC at the mean (about -6 dB), each half of the cosine at
     * 20 log10 (0.25 / 2) dB */
    for (k = 0; k < w * h; k++)
      mean += as_read[k] / (w * h);
    dc_db = 20 * log10 (mean);
    expect = (guint8) ((20 * log10 (0.125) - THRESHOLD) /
        (dc_db - THRESHOLD) * 255 + 0.5);

    GST_INFO ("format %s", gst_video_format_to_string (formats[i]));
    check_image (res, GST_VIDEO_FORMAT_GRAY8, w, h, as_read, THRESHOLD);
    fail_unless_equals_int (pixel8 (res, w, h, w / 2, h / 2), 255);
    fail_unless (abs (pixel8 (res, w, h, w / 2 - kx, h / 2) - expect) <= 1);
    fail_unless (abs (pixel8 (res, w, h, w / 2 + kx, h / 2) - expect) <= 1);
    fail_unless_equals_int (pixel8 (res, w, h, w / 2 - kx, h / 2),
        pixel8 (res, w, h, w / 2 + kx, h / 2));
    /* rows away from the centre row hold nothing but quantisation noise */
    fail_unless (pixel8 (res, w, h, w / 2 + kx, h / 2 + 3) < expect / 2);

    gst_buffer_unref (res);
    check_no_error (bus);
    harness_free (hn, bus);
  }
  g_free (luma);
  g_free (as_read);
}

GST_END_TEST;

/* Every RGB format with its components apart, so that reading one in
 * place of another, or alpha, shows in the spectrum */
GST_START_TEST (test_rgb_components)
{
  static const GstVideoFormat formats[] = { GST_VIDEO_FORMAT_RGBA,
    GST_VIDEO_FORMAT_BGRA, GST_VIDEO_FORMAT_RGBx, GST_VIDEO_FORMAT_BGRx,
    GST_VIDEO_FORMAT_ARGB, GST_VIDEO_FORMAT_ABGR, GST_VIDEO_FORMAT_xRGB,
    GST_VIDEO_FORMAT_xBGR, GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_BGR
  };
  const guint w = 40, h = 30;
  gdouble *as_read = g_new (gdouble, w * h);
  guint i;

  for (i = 0; i < G_N_ELEMENTS (formats); i++) {
    GstBus *bus;
    GstHarness *hn = image_harness (formats[i], w, h, &bus);
    GstBuffer *res = process (hn, make_colour_frame (formats[i], w, h, i + 1,
            as_read), 0);

    GST_INFO ("format %s", gst_video_format_to_string (formats[i]));
    check_image (res, GST_VIDEO_FORMAT_GRAY8, w, h, as_read, THRESHOLD);
    gst_buffer_unref (res);
    check_no_error (bus);
    harness_free (hn, bus);
  }
  g_free (as_read);
}

GST_END_TEST;

/* Odd and prime sizes, noise for a full spectrum, GRAY8 and GRAY16_LE
 * output (chosen by what downstream accepts). */
GST_START_TEST (test_odd_sizes_and_depths)
{
  static const guint sizes[][2] = { {33, 21}, {31, 17}, {50, 7}, {97, 64} };
  static const GstVideoFormat in_fmts[] = { GST_VIDEO_FORMAT_GRAY8,
    GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_NV12
  };
  guint s, o;

  for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
    guint w = sizes[s][0], h = sizes[s][1];
    gdouble *luma = make_luma (w, h, 3, 0.2, s + 1);
    gdouble *as_read = g_new (gdouble, w * h);

    for (o = 0; o < 2; o++) {
      GstVideoFormat ofmt = o ? GST_VIDEO_FORMAT_GRAY16_LE :
          GST_VIDEO_FORMAT_GRAY8;
      GstVideoFormat ifmt = in_fmts[(s + o) % G_N_ELEMENTS (in_fmts)];
      gchar *in = video_caps (ifmt, w, h);
      gchar *out = video_caps (ofmt, w, h);
      GstBus *bus;
      GstHarness *hn = harness_new ("clfftspectrum post-messages=false", in,
          out, &bus);
      GstBuffer *res = process (hn, make_frame (ifmt, w, h, luma, as_read),
          0);

      GST_INFO ("%ux%u %s", w, h, gst_video_format_to_string (ifmt));
      check_image (res, ofmt, w, h, as_read, THRESHOLD);
      gst_buffer_unref (res);
      check_no_error (bus);
      harness_free (hn, bus);
      g_free (in);
      g_free (out);
    }
    g_free (luma);
    g_free (as_read);
  }
}

GST_END_TEST;

/* With post-messages, a spectrum message per frame: the frame's times and
 * the radially averaged power per band against the reference. Pixels whose
 * radius lies within 1e-4 band of a band edge could fall either side in
 * float; bands next to such pixels are not compared. */
GST_START_TEST (test_radial_messages)
{
  /* with 32 band steps per cycle/pixel, no pixel of a 60x45 frame lies on
   * a band edge along the axes (32 k / 60 and 32 k / 45 are never
   * n + 1/2) */
  const guint w = 60, h = 45, kx = 15, bands = 17;
  gdouble *luma = make_luma (w, h, kx, 0.1, 7);
  gdouble *as_read = g_new (gdouble, w * h);
  gdouble *p, sum[17] = { 0, }, ref_db[17];
  guint count[17] = { 0, };
  gboolean unsure[17] = { FALSE, };
  gchar *in = video_caps (GST_VIDEO_FORMAT_GRAY8, w, h);
  gchar *out = video_caps (GST_VIDEO_FORMAT_GRAY8, w, h);
  GstBus *bus;
  GstHarness *hn = harness_new ("clfftspectrum bands=17 threshold=-90", in,
      out, &bus);
  guint x, y, b, frame, compared = 0, best = 1;
  GstMessage *msg;

  for (frame = 0; frame < 3; frame++) {
    GstBuffer *res = process (hn, make_frame (GST_VIDEO_FORMAT_GRAY8, w, h,
            luma, as_read), frame * GST_SECOND / 25);
    gst_buffer_unref (res);
  }

  p = ref_power (as_read, w, h);
  for (y = 0; y < h; y++) {
    for (x = 0; x < w; x++) {
      gdouble fx = ((gdouble) x - w / 2) / w, fy = ((gdouble) y - h / 2) / h;
      gdouble t = sqrt (fx * fx + fy * fy) * 2 * (bands - 1) + 0.5;
      guint kxx = (x + w - w / 2) % w, kyy = (y + h - h / 2) % h;
      b = (guint) floor (t);
      if (fabs (t - floor (t + 0.5)) < 1e-4) {
        guint e = (guint) floor (t + 0.5);
        if (e < bands)
          unsure[e] = TRUE;
        if (e > 0 && e - 1 < bands)
          unsure[e - 1] = TRUE;
      }
      if (b < bands) {
        sum[b] += p[kyy * w + kxx];
        count[b]++;
      }
    }
  }
  for (b = 0; b < bands; b++)
    ref_db[b] = count[b] ? MAX (10 * log10 (sum[b] / count[b]), -90.0) : -90;

  for (frame = 0; frame < 3; frame++) {
    const GstStructure *s;
    const GValue *mag;
    guint64 ts, dur;

    /* (popping with a filter would drop an error message) */
    while ((msg = gst_bus_pop (bus)) &&
        GST_MESSAGE_TYPE (msg) != GST_MESSAGE_ELEMENT) {
      fail_if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR);
      gst_message_unref (msg);
    }
    fail_unless (msg != NULL, "no message for frame %u", frame);
    s = gst_message_get_structure (msg);
    fail_unless (gst_structure_has_name (s, "spectrum"));
    fail_unless (gst_structure_get_uint64 (s, "timestamp", &ts));
    fail_unless (gst_structure_get_uint64 (s, "duration", &dur));
    fail_unless_equals_uint64 (ts, frame * GST_SECOND / 25);
    fail_unless_equals_uint64 (dur, GST_SECOND / 25);
    fail_unless (gst_structure_has_field (s, "running-time"));
    fail_unless (gst_structure_has_field (s, "stream-time"));
    fail_unless (gst_structure_has_field (s, "endtime"));
    mag = gst_structure_get_value (s, "magnitude");
    fail_unless (GST_VALUE_HOLDS_LIST (mag));
    fail_unless_equals_int (gst_value_list_get_size (mag), bands);
    for (b = 0; b < bands; b++) {
      gfloat v = g_value_get_float (gst_value_list_get_value (mag, b));
      if (b > 0 && v > g_value_get_float (gst_value_list_get_value (mag, best)))
        best = b;
      if (unsure[b])
        continue;
      /* sums of float powers: relative error ~1e-5 even for the weakest
       * band (a ~1e-3 relative per-bin error averages out) */
      fail_unless (fabs (v - ref_db[b]) < 0.02, "band %u: %g dB, reference "
          "%g dB", b, v, ref_db[b]);
      compared++;
    }
    gst_message_unref (msg);
  }
  /* the cosine's radius kx / w = 0.25 is band 8 exactly */
  fail_unless_equals_int (best, 8);
  fail_unless (compared >= 3 * 12, "only %u bands compared", compared);

  harness_free (hn, bus);
  g_free (p);
  g_free (in);
  g_free (out);
  g_free (luma);
  g_free (as_read);
}

GST_END_TEST;

/* message-format=array gives GstValueArray levels; without
 * message-magnitude the message carries only the times; without
 * post-messages there is none. */
GST_START_TEST (test_message_options)
{
  const guint w = 40, h = 30;
  gdouble *luma = make_luma (w, h, 4, 0.1, 13);
  gdouble *as_read = g_new (gdouble, w * h);
  gchar *caps = video_caps (GST_VIDEO_FORMAT_GRAY8, w, h);
  GstBus *bus;
  GstHarness *hn = harness_new ("clfftspectrum bands=10 message-format=array",
      caps, caps, &bus);
  GstElement *el = gst_harness_find_element (hn, "clfftspectrum");
  GstMessage *msg;
  const GstStructure *s;
  guint round;

  for (round = 0; round < 3; round++) {
    gst_buffer_unref (process (hn, make_frame (GST_VIDEO_FORMAT_GRAY8, w, h,
                luma, as_read), round * GST_SECOND / 25));
    while ((msg = gst_bus_pop (bus)) &&
        GST_MESSAGE_TYPE (msg) != GST_MESSAGE_ELEMENT) {
      fail_if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR);
      gst_message_unref (msg);
    }
    if (round == 2) {
      fail_unless (msg == NULL, "message with post-messages=false");
      break;
    }
    fail_unless (msg != NULL);
    s = gst_message_get_structure (msg);
    fail_unless (gst_structure_has_name (s, "spectrum"));
    fail_unless (gst_structure_has_field (s, "timestamp"));
    if (round == 0) {
      const GValue *v = gst_structure_get_value (s, "magnitude");
      fail_unless (v != NULL && GST_VALUE_HOLDS_ARRAY (v));
      fail_unless_equals_int (gst_value_array_get_size (v), 10);
      g_object_set (el, "message-magnitude", FALSE, NULL);
    } else {
      fail_if (gst_structure_has_field (s, "magnitude"));
      g_object_set (el, "post-messages", FALSE, NULL);
    }
    gst_message_unref (msg);
  }
  gst_object_unref (el);
  harness_free (hn, bus);
  g_free (caps);
  g_free (luma);
  g_free (as_read);
}

GST_END_TEST;

/* Size and format change mid-stream re-plans; state changes and flushes
 * leave it working. */
GST_START_TEST (test_caps_change_and_states)
{
  const guint w1 = 64, h1 = 48, w2 = 40, h2 = 30;
  gdouble *l1 = make_luma (w1, h1, 5, 0.1, 11);
  gdouble *l2 = make_luma (w2, h2, 7, 0.1, 12);
  gdouble *r1 = g_new (gdouble, w1 * h1), *r2 = g_new (gdouble, w2 * h2);
  gchar *in1 = video_caps (GST_VIDEO_FORMAT_GRAY8, w1, h1);
  gchar *out1 = video_caps (GST_VIDEO_FORMAT_GRAY8, w1, h1);
  gchar *in2 = video_caps (GST_VIDEO_FORMAT_BGRx, w2, h2);
  gchar *out2 = video_caps (GST_VIDEO_FORMAT_GRAY8, w2, h2);
  GstBus *bus;
  GstHarness *hn = harness_new ("clfftspectrum post-messages=false", in1,
      out1, &bus);
  GstBuffer *res;
  guint i;

  res = process (hn, make_frame (GST_VIDEO_FORMAT_GRAY8, w1, h1, l1, r1), 0);
  check_image (res, GST_VIDEO_FORMAT_GRAY8, w1, h1, r1, THRESHOLD);
  gst_buffer_unref (res);

  gst_harness_set_caps_str (hn, in2, out2);
  res = process (hn, make_frame (GST_VIDEO_FORMAT_BGRx, w2, h2, l2, r2), 0);
  check_image (res, GST_VIDEO_FORMAT_GRAY8, w2, h2, r2, THRESHOLD);
  gst_buffer_unref (res);

  fail_unless (gst_harness_push_event (hn, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (hn, gst_event_new_flush_stop (TRUE)));
  for (i = 0; i < 2; i++) {
    GstSegment seg;
    gst_segment_init (&seg, GST_FORMAT_TIME);
    gst_harness_push_event (hn, gst_event_new_segment (&seg));
    res = process (hn, make_frame (GST_VIDEO_FORMAT_BGRx, w2, h2, l2, r2), 0);
    check_image (res, GST_VIDEO_FORMAT_GRAY8, w2, h2, r2, THRESHOLD);
    gst_buffer_unref (res);

    fail_unless_equals_int (gst_element_set_state (hn->element,
            GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
    gst_harness_play (hn);
    gst_harness_set_caps_str (hn, in1, out1);
    res = process (hn, make_frame (GST_VIDEO_FORMAT_GRAY8, w1, h1, l1, r1), 0);
    check_image (res, GST_VIDEO_FORMAT_GRAY8, w1, h1, r1, THRESHOLD);
    gst_buffer_unref (res);
    gst_harness_set_caps_str (hn, in2, out2);
  }
  check_no_error (bus);
  harness_free (hn, bus);
  g_free (in1);
  g_free (out1);
  g_free (in2);
  g_free (out2);
  g_free (l1);
  g_free (l2);
  g_free (r1);
  g_free (r2);
}

GST_END_TEST;

/* A real pipeline: negotiates GRAY8 with videoconvert, one message per
 * frame by default. */
GST_START_TEST (test_pipeline)
{
  GstElement *p = gst_parse_launch ("videotestsrc num-buffers=5 "
      "pattern=zone-plate kx2=20 ky2=20 ! video/x-raw,format=I420,width=160,"
      "height=120,framerate=30/1 ! clfftspectrum ! videoconvert ! "
      "video/x-raw,format=RGBA ! fakesink name=sink", NULL);
  GstBus *bus = gst_element_get_bus (p);
  GstMessage *msg;
  guint count = 0;
  gboolean eos = FALSE;

  fail_unless_equals_int (gst_element_set_state (p, GST_STATE_PLAYING),
      GST_STATE_CHANGE_ASYNC);
  while (!eos && (msg = gst_bus_timed_pop (bus, 60 * GST_SECOND))) {
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR)
      fail ("pipeline error");
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS)
      eos = TRUE;
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ELEMENT &&
        gst_structure_has_name (gst_message_get_structure (msg), "spectrum"))
      count++;
    gst_message_unref (msg);
  }
  fail_unless (eos);
  fail_unless_equals_int (count, 5);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (p);
}

GST_END_TEST;

static Suite *
clfftspectrum_video_suite (void)
{
  Suite *s = suite_create ("clfftspectrum-video");
  TCase *tc = tcase_create ("video");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_cosine_every_format);
  tcase_add_test (tc, test_rgb_components);
  tcase_add_test (tc, test_odd_sizes_and_depths);
  tcase_add_test (tc, test_radial_messages);
  tcase_add_test (tc, test_message_options);
  tcase_add_test (tc, test_caps_change_and_states);
  tcase_add_test (tc, test_pipeline);
  return s;
}

GST_CHECK_MAIN (clfftspectrum_video);

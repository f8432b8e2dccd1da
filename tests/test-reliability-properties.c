/* test-reliability-properties.c: every numeric property of clfftconvolve and clfftspectrum at and beyond its limits, NaN and infinities included. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/audio/audio.h>
#include <float.h>
#include <math.h>
#include <string.h>

/* clfftspectrum against GStreamer's spectrum, as the drop-in tests. */
#define TOL_VS_SPECTRUM_DB 0.1
/* clfftconvolve audio against a direct double convolution (see
 * test-reliability-audio.c for the float32 error budget). */
#define MAX_REL_RMS 1e-5

/* ---- setting values ------------------------------------------------------ */

/* Sets a float/double/uint/int/uint64 property from a double; values the
 * param spec refuses leave the property unchanged with a warning. */
static void
set_number (GstElement * e, const gchar * name, gdouble v)
{
  GParamSpec *ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
      name);
  GValue val = G_VALUE_INIT;

  fail_unless (ps != NULL, "no property %s", name);
  g_value_init (&val, ps->value_type);
  switch (ps->value_type) {
    case G_TYPE_FLOAT:
      g_value_set_float (&val, (gfloat) v);
      break;
    case G_TYPE_DOUBLE:
      g_value_set_double (&val, v);
      break;
    case G_TYPE_UINT:
      g_value_set_uint (&val, (guint) v);
      break;
    case G_TYPE_INT:
      g_value_set_int (&val, (gint) v);
      break;
    case G_TYPE_UINT64:
      g_value_set_uint64 (&val, (guint64) v);
      break;
    default:
      fail ("%s: unexpected type", name);
  }
  g_object_set_property (G_OBJECT (e), name, &val);
  g_value_unset (&val);
}

static gdouble
get_number (GstElement * e, const gchar * name)
{
  GParamSpec *ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
      name);
  GValue val = G_VALUE_INIT;
  gdouble d = 0;

  g_value_init (&val, ps->value_type);
  g_object_get_property (G_OBJECT (e), name, &val);
  switch (ps->value_type) {
    case G_TYPE_FLOAT:
      d = g_value_get_float (&val);
      break;
    case G_TYPE_DOUBLE:
      d = g_value_get_double (&val);
      break;
    case G_TYPE_UINT:
      d = g_value_get_uint (&val);
      break;
    case G_TYPE_INT:
      d = g_value_get_int (&val);
      break;
    case G_TYPE_UINT64:
      d = g_value_get_uint64 (&val);
      break;
  }
  g_value_unset (&val);
  return d;
}

/* A value beyond the range, NaN or infinite: a warning, and the property
 * keeps its previous value. */
static void
check_refused (const gchar * element, const gchar * name, gdouble bad)
{
  GstElement *e = gst_element_factory_make (element, NULL);
  gdouble before = get_number (e, name);

  ASSERT_WARNING (set_number (e, name, bad));
  fail_unless (get_number (e, name) == before, "%s %s=%g changed it to %g",
      element, name, bad, get_number (e, name));
  gst_object_unref (e);
}

/* Every numeric property of both elements: its range limits are accepted
 * as given, values beyond them, NaN and the infinities are refused. */
GST_START_TEST (test_numeric_ranges)
{
  static const gchar *elements[] = { "clfftconvolve", "clfftspectrum" };
  guint e, p, n;

  for (e = 0; e < G_N_ELEMENTS (elements); e++) {
    GstElement *el = gst_element_factory_make (elements[e], NULL);
    GParamSpec **props = g_object_class_list_properties (G_OBJECT_GET_CLASS
        (el), &n);

    for (p = 0; p < n; p++) {
      GParamSpec *ps = props[p];
      gdouble lo, hi;
      gboolean is_float = FALSE;

      if (!(ps->flags & G_PARAM_WRITABLE))
        continue;
      if (G_IS_PARAM_SPEC_FLOAT (ps)) {
        lo = G_PARAM_SPEC_FLOAT (ps)->minimum;
        hi = G_PARAM_SPEC_FLOAT (ps)->maximum;
        is_float = TRUE;
      } else if (G_IS_PARAM_SPEC_DOUBLE (ps)) {
        lo = G_PARAM_SPEC_DOUBLE (ps)->minimum;
        hi = G_PARAM_SPEC_DOUBLE (ps)->maximum;
        is_float = TRUE;
      } else if (G_IS_PARAM_SPEC_UINT (ps)) {
        lo = G_PARAM_SPEC_UINT (ps)->minimum;
        hi = G_PARAM_SPEC_UINT (ps)->maximum;
      } else if (G_IS_PARAM_SPEC_INT (ps)) {
        lo = G_PARAM_SPEC_INT (ps)->minimum;
        hi = G_PARAM_SPEC_INT (ps)->maximum;
      } else if (G_IS_PARAM_SPEC_UINT64 (ps)) {
        lo = G_PARAM_SPEC_UINT64 (ps)->minimum;
        /* a double cannot hold G_MAXUINT64 - 1 etc.: the maximum is
         * checked through its own type below */
        hi = -1;
      } else {
        continue;
      }
      GST_INFO ("%s %s [%g, %g]", elements[e], ps->name, lo, hi);
      set_number (el, ps->name, lo);
      fail_unless (get_number (el, ps->name) == lo, "%s %s=%g", elements[e],
          ps->name, lo);
      if (hi >= 0) {
        set_number (el, ps->name, hi);
        fail_unless (get_number (el, ps->name) == hi, "%s %s=%g",
            elements[e], ps->name, hi);
      } else {
        g_object_set (el, ps->name, G_MAXUINT64, NULL);
      }
      g_object_set_property (G_OBJECT (el), ps->name,
          g_param_spec_get_default_value (ps));
      /* below the minimum (where the type has room) */
      if (is_float || lo > 0 || (G_IS_PARAM_SPEC_INT (ps) && lo > G_MININT))
        check_refused (elements[e], ps->name, is_float ? lo - fabs (lo) - 1 :
            lo - 1);
      /* above the maximum */
      if (is_float || (G_IS_PARAM_SPEC_UINT (ps) && hi < G_MAXUINT)
          || (G_IS_PARAM_SPEC_INT (ps) && hi < G_MAXINT))
        check_refused (elements[e], ps->name, is_float ? hi + fabs (hi) + 1 :
            hi + 1);
      if (is_float) {
        check_refused (elements[e], ps->name, INFINITY);
        check_refused (elements[e], ps->name, -INFINITY);
      }
    }
    g_free (props);
    gst_object_unref (el);
  }
}

GST_END_TEST;

/* NaN passes GObject's range check (every comparison with it is false),
 * so each element must refuse it itself. */
static void
check_nan_refused (const gchar * element, const gchar * name)
{
  check_refused (element, name, NAN);
}

GST_START_TEST (test_nan_convolve)
{
  check_nan_refused ("clfftconvolve", "radius");
}

GST_END_TEST;

GST_START_TEST (test_nan_spectrum)
{
  check_nan_refused ("clfftspectrum", "overlap");
  check_nan_refused ("clfftspectrum", "min-frequency");
}

GST_END_TEST;

/* Enums beyond their values are refused the same way. */
GST_START_TEST (test_enums_out_of_range)
{
  static const gchar *names[][2] = {
    {"clfftconvolve", "kernel-shape"}, {"clfftconvolve", "edge-mode"},
    {"clfftspectrum", "window"}, {"clfftspectrum", "frequency-scale"},
    {"clfftspectrum", "message-format"}
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (names); i++) {
    GstElement *e = gst_element_factory_make (names[i][0], NULL);
    gint before, after;

    g_object_get (e, names[i][1], &before, NULL);
    ASSERT_WARNING (g_object_set (e, names[i][1], 99, NULL));
    g_object_get (e, names[i][1], &after, NULL);
    fail_unless_equals_int (after, before);
    gst_object_unref (e);
  }
}

GST_END_TEST;

/* ---- clfftconvolve video at the limits ----------------------------------- */

static GstBuffer *
grey_frame (const GstVideoInfo * info, guint seed)
{
  GstBuffer *b = gst_buffer_new_allocate (NULL, info->size, NULL);
  GstMapInfo map;
  gsize i;

  gst_buffer_map (b, &map, GST_MAP_WRITE);
  for (i = 0; i < map.size; i++)
    map.data[i] = (guint8) ((i * 131 + seed * 7) % 251);
  gst_buffer_unmap (b, &map);
  GST_BUFFER_PTS (b) = 0;
  return b;
}

static guint8
px (GstBuffer * b, const GstVideoInfo * info, gint x, gint y)
{
  guint8 v;
  gst_buffer_extract (b, y * GST_VIDEO_INFO_PLANE_STRIDE (info, 0) + x, &v, 1);
  return v;
}

/* Runs one GRAY8 frame through a configured element; returns the output
 * or NULL after checking the error message. */
static GstBuffer *
one_frame (GstHarness * h, GstBus * bus, GstBuffer * in, GError ** error)
{
  GstFlowReturn ret = gst_harness_push (h, gst_buffer_ref (in));
  GstMessage *m;

  if (ret == GST_FLOW_OK) {
    fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR) == NULL);
    return gst_harness_pull (h);
  }
  fail_unless_equals_int (ret, GST_FLOW_ERROR);
  m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (m != NULL, "flow error without a message");
  gst_message_parse_error (m, error, NULL);
  GST_INFO ("error: %s", (*error)->message);
  gst_message_unref (m);
  return NULL;
}

static GstHarness *
grey_harness (gint w, gint h, GstVideoInfo * info, GstBus ** bus)
{
  GstHarness *hn = gst_harness_new ("clfftconvolve");

  gst_video_info_set_format (info, GST_VIDEO_FORMAT_GRAY8, w, h);
  gst_harness_set_caps (hn, gst_video_info_to_caps (info),
      gst_video_info_to_caps (info));
  *bus = gst_bus_new ();
  gst_element_set_bus (hn->element, *bus);
  return hn;
}

static void
grey_harness_free (GstHarness * hn, GstBus * bus)
{
  gst_bus_set_flushing (bus, TRUE);
  gst_element_set_bus (hn->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (hn);
}

static void
check_identity (GstBuffer * in, GstBuffer * out, const GstVideoInfo * info,
    const gchar * what)
{
  gint x, y;

  fail_unless (out != NULL, "%s: no output", what);
  for (y = 0; y < GST_VIDEO_INFO_HEIGHT (info); y++)
    for (x = 0; x < GST_VIDEO_INFO_WIDTH (info); x++)
      fail_unless_equals_int (px (out, info, x, y), px (in, info, x, y));
}

/* Radius 0, the smallest positive float (a gaussian that is one tap) and
 * a radius bigger than the frame; custom taps at +-FLT_MAX and
 * unnormalised overflow. */
GST_START_TEST (test_convolve_video_limits)
{
  GstVideoInfo info;
  GstBus *bus;
  GstHarness *hn = grey_harness (19, 7, &info, &bus);
  GstBuffer *in = grey_frame (&info, 1), *out;
  GError *error = NULL;
  GValue arr = G_VALUE_INIT, v = G_VALUE_INIT;
  gint x, y;

  /* radius 0 and 1.4e-45: the frame unchanged */
  g_object_set (hn->element, "radius", 0.0f, NULL);
  out = one_frame (hn, bus, in, &error);
  check_identity (in, out, &info, "radius 0");
  gst_buffer_unref (out);
  g_object_set (hn->element, "radius", FLT_TRUE_MIN, NULL);
  out = one_frame (hn, bus, in, &error);
  check_identity (in, out, &info, "radius FLT_TRUE_MIN");
  gst_buffer_unref (out);

  /* a box far wider than the frame with wrapped edges averages the whole
   * periodic frame: every pixel the same */
  g_object_set (hn->element, "radius", 60.0f, NULL);
  gst_util_set_object_arg (G_OBJECT (hn->element), "edge-mode", "clamp");
  out = one_frame (hn, bus, in, &error);
  fail_unless (out != NULL);
  gst_buffer_unref (out);

  /* two taps of FLT_MAX normalise to 1/2 each: a two-pixel average */
  g_value_init (&arr, GST_TYPE_ARRAY);
  g_value_init (&v, G_TYPE_FLOAT);
  g_value_set_float (&v, FLT_MAX);
  gst_value_array_append_value (&arr, &v);
  gst_value_array_append_value (&arr, &v);
  g_object_set_property (G_OBJECT (hn->element), "kernel", &arr);
  g_object_set (hn->element, "kernel-width", 2, NULL);
  gst_util_set_object_arg (G_OBJECT (hn->element), "edge-mode", "wrap");
  out = one_frame (hn, bus, in, &error);
  fail_unless (out != NULL);
  for (y = 0; y < 7; y++)
    for (x = 0; x < 19; x++) {
      /* taps at dx = -1 and 0: out(x) = (in(x + 1) + in(x)) / 2 */
      gdouble want = (px (in, &info, (x + 1) % 19, y) + px (in, &info, x,
              y)) / 2.0;
      fail_unless (fabs (px (out, &info, x, y) - want) <= 0.5 + 1e-3,
          "(%d,%d): %u, want %g", x, y, px (out, &info, x, y), want);
    }
  gst_buffer_unref (out);

  /* +FLT_MAX and -FLT_MAX sum to zero: not normalisable, an error */
  g_value_set_float (&v, -FLT_MAX);
  gst_value_array_append_value (&arr, &v);
  g_value_set_float (&v, 0.0f);
  gst_value_array_append_value (&arr, &v);
  g_object_set_property (G_OBJECT (hn->element), "kernel", &arr);
  g_value_unset (&arr);
  g_value_init (&arr, GST_TYPE_ARRAY);
  g_value_set_float (&v, FLT_MAX);
  gst_value_array_append_value (&arr, &v);
  g_value_set_float (&v, -FLT_MAX);
  gst_value_array_append_value (&arr, &v);
  g_object_set_property (G_OBJECT (hn->element), "kernel", &arr);
  out = one_frame (hn, bus, in, &error);
  fail_unless (out == NULL);
  fail_unless (g_error_matches (error, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_SETTINGS), "%s", error->message);
  g_clear_error (&error);

  /* unnormalised FLT_MAX taps overflow float: saturated output, no
   * crash, and the element works on afterwards */
  g_object_set (hn->element, "normalize", FALSE, NULL);
  g_value_unset (&arr);
  g_value_init (&arr, GST_TYPE_ARRAY);
  g_value_set_float (&v, FLT_MAX);
  gst_value_array_append_value (&arr, &v);
  g_object_set_property (G_OBJECT (hn->element), "kernel", &arr);
  g_object_set (hn->element, "kernel-width", 0, NULL);
  out = one_frame (hn, bus, in, &error);
  fail_unless (out != NULL);
  gst_buffer_unref (out);

  g_value_unset (&arr);
  g_value_unset (&v);
  gst_buffer_unref (in);
  grey_harness_free (hn, bus);
}

GST_END_TEST;

/* A 65536 x 1 kernel (the kernel-width limit) of one centre tap: the
 * frame is padded to 65610 columns, a four-step FFT (243 x 270), which
 * crashed in fft_local on PoCL before 29c88af; the frame comes back
 * unchanged. */
GST_START_TEST (test_convolve_kernel_width_limit)
{
  GstVideoInfo info;
  GstBus *bus;
  GstHarness *hn = grey_harness (19, 7, &info, &bus);
  GstBuffer *in = grey_frame (&info, 1), *out;
  GError *error = NULL;
  GValue arr = G_VALUE_INIT, v = G_VALUE_INIT;
  gint x;

  g_value_init (&arr, GST_TYPE_ARRAY);
  g_value_init (&v, G_TYPE_FLOAT);
  /* a 65536 x 1 kernel (the kernel-width limit) of one centre tap */
  for (x = 0; x < 65536; x++) {
    g_value_set_float (&v, x == 32768 ? 1.0f : 0.0f);
    gst_value_array_append_value (&arr, &v);
  }
  g_object_set_property (G_OBJECT (hn->element), "kernel", &arr);
  g_object_set (hn->element, "kernel-width", 65536, NULL);
  out = one_frame (hn, bus, in, &error);
  check_identity (in, out, &info, "65536-wide kernel");
  gst_buffer_unref (out);

  g_value_unset (&arr);
  g_value_unset (&v);
  gst_buffer_unref (in);
  grey_harness_free (hn, bus);
}

GST_END_TEST;

/* ---- clfftconvolve audio at the limits ----------------------------------- */

static void
set_ir (GstElement * e, const gdouble * h, guint n)
{
  GValue arr = G_VALUE_INIT, v = G_VALUE_INIT;
  guint i;

  g_value_init (&arr, GST_TYPE_ARRAY);
  g_value_init (&v, G_TYPE_DOUBLE);
  for (i = 0; i < n; i++) {
    g_value_set_double (&v, h[i]);
    gst_value_array_append_value (&arr, &v);
  }
  g_object_set_property (G_OBJECT (e), "impulse-response", &arr);
  g_value_unset (&v);
  g_value_unset (&arr);
}

/* Convolves `frames` samples of a test signal with the response in blocks
 * of `block` and checks against the direct convolution (taps given as
 * sparse (index, value) pairs so that long responses stay cheap). */
static void
convolve_check (guint block, const gdouble * h, guint taps, const gchar * what)
{
  const guint frames = 3000;
  GstHarness *hn = gst_harness_new ("clfftconvolve");
  GstBus *bus = gst_bus_new ();
  gchar *caps = g_strdup ("audio/x-raw,format=" GST_AUDIO_NE (F32)
      ",layout=interleaved,rate=48000,channels=1");
  GArray *out = g_array_new (FALSE, FALSE, sizeof (gfloat));
  GArray *nz = g_array_new (FALSE, FALSE, sizeof (guint));
  gfloat *x = g_new (gfloat, frames);
  GstBuffer *b;
  gdouble num = 0.0, den = 0.0;
  guint i, k;

  for (i = 0; i < frames; i++)
    x[i] = sinf (i * 0.013f) * 0.5f + ((i * 7919) % 97) / 400.0f;
  for (k = 0; k < taps; k++)
    if (h[k] != 0.0)
      g_array_append_val (nz, k);
  gst_element_set_bus (hn->element, bus);
  set_ir (hn->element, h, taps);
  g_object_set (hn->element, "block-size", block, NULL);
  gst_harness_set_caps_str (hn, caps, caps);
  b = gst_buffer_new_memdup (x, frames * sizeof (gfloat));
  GST_BUFFER_PTS (b) = 0;
  fail_unless_equals_int (gst_harness_push (hn, b), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (hn, gst_event_new_eos ()));
  while ((b = gst_harness_try_pull (hn))) {
    GstMapInfo map;
    gst_buffer_map (b, &map, GST_MAP_READ);
    g_array_append_vals (out, map.data, map.size / sizeof (gfloat));
    gst_buffer_unmap (b, &map);
    gst_buffer_unref (b);
  }
  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR) == NULL);
  fail_unless_equals_int (out->len, frames + taps - 1);
  /* the first frames and the last nonzero tap's echo */
  for (i = 0; i < out->len; i++) {
    gdouble ref = 0.0;
    if (i > 4000 && i + 4000 < out->len)
      continue;
    for (k = 0; k < nz->len; k++) {
      guint t = g_array_index (nz, guint, k);
      if (t <= i && i - t < frames)
        ref += h[t] * x[i - t];
    }
    num += (g_array_index (out, gfloat, i) - ref) *
        (g_array_index (out, gfloat, i) - ref);
    den += ref * ref;
  }
  fail_unless (sqrt (num / den) <= MAX_REL_RMS, "%s: relative RMS %g", what,
      sqrt (num / den));
  gst_bus_set_flushing (bus, TRUE);
  gst_element_set_bus (hn->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (hn);
  g_array_free (out, TRUE);
  g_array_free (nz, TRUE);
  g_free (caps);
  g_free (x);
}

/* block-size 1 is refused with an error naming it; 2, 3 (odd) and the
 * 2^20 maximum work; a 2^20-tap response works. Response taps beyond
 * float range are refused like NaN. */
GST_START_TEST (test_convolve_audio_limits)
{
  static const gdouble h3[] = { 0.5, -0.25, 0.125 };
  gdouble *longh = g_new0 (gdouble, 1 << 20);
  GstHarness *hn;
  GstBus *bus;
  GstMessage *m;
  GError *error = NULL;
  GstElement *e;
  gdouble huge[] = { 1.0, G_MAXDOUBLE };
  GValue arr = G_VALUE_INIT;

  convolve_check (2, h3, 3, "block 2");
  convolve_check (3, h3, 3, "block 3");
  convolve_check (1 << 20, h3, 3, "block 2^20");
  longh[0] = 0.5;
  longh[1000] = 0.25;
  longh[(1 << 20) - 1] = -0.5;
  convolve_check (0, longh, 1 << 20, "2^20 taps");
  g_free (longh);

  /* block-size 1: a clean error when the caps arrive */
  hn = gst_harness_new ("clfftconvolve");
  bus = gst_bus_new ();
  gst_element_set_bus (hn->element, bus);
  set_ir (hn->element, h3, 3);
  g_object_set (hn->element, "block-size", 1, NULL);
  gst_harness_set_src_caps_str (hn, "audio/x-raw,format=" GST_AUDIO_NE (F32)
      ",layout=interleaved,rate=48000,channels=1");
  fail_unless_equals_int (gst_harness_push (hn,
          gst_buffer_new_allocate (NULL, 64, NULL)), GST_FLOW_NOT_NEGOTIATED);
  m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (m != NULL);
  gst_message_parse_error (m, &error, NULL);
  fail_unless (strstr (error->message, "block 1") != NULL, "%s",
      error->message);
  g_clear_error (&error);
  gst_message_unref (m);
  gst_bus_set_flushing (bus, TRUE);
  gst_element_set_bus (hn->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (hn);

  /* G_MAXDOUBLE would be infinite on the device */
  e = gst_element_factory_make ("clfftconvolve", NULL);
  set_ir (e, h3, 3);
  g_value_init (&arr, GST_TYPE_ARRAY);
  ASSERT_WARNING (set_ir (e, huge, 2));
  g_object_get_property (G_OBJECT (e), "impulse-response", &arr);
  fail_unless_equals_int (gst_value_array_get_size (&arr), 3);
  g_value_unset (&arr);
  gst_object_unref (e);
}

GST_END_TEST;

/* ---- clfftspectrum at the limits, against spectrum ----------------------- */

static GPtrArray *
spectrum_messages (const gchar * launch, guint rate, const gfloat * x,
    guint frames, guint chunk)
{
  GstHarness *h = gst_harness_new_parse (launch);
  GstBus *bus = gst_bus_new ();
  GPtrArray *res = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_structure_free);
  gchar *caps = g_strdup_printf ("audio/x-raw,format=" GST_AUDIO_NE (F32)
      ",layout=interleaved,rate=%u,channels=1", rate);
  GstMessage *m;
  GstBuffer *b;
  guint pos;

  gst_element_set_bus (h->element, bus);
  gst_harness_set_caps_str (h, caps, caps);
  for (pos = 0; pos < frames; pos += chunk) {
    guint n = MIN (chunk, frames - pos);
    b = gst_buffer_new_memdup (x + pos, n * sizeof (gfloat));
    GST_BUFFER_PTS (b) = gst_util_uint64_scale (pos, GST_SECOND, rate);
    GST_BUFFER_DURATION (b) = gst_util_uint64_scale (n, GST_SECOND, rate);
    if (pos == 0)
      GST_BUFFER_FLAG_SET (b, GST_BUFFER_FLAG_DISCONT);
    fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
    while ((b = gst_harness_try_pull (h)))
      gst_buffer_unref (b);
  }
  while ((m = gst_bus_pop (bus))) {
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR)
      fail ("%s: error", launch);
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ELEMENT)
      g_ptr_array_add (res, gst_structure_copy (gst_message_get_structure (m)));
    gst_message_unref (m);
  }
  gst_bus_set_flushing (bus, TRUE);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  g_free (caps);
  return res;
}

static void
magnitudes (const GstStructure * s, GArray * out)
{
  const GValue *v = gst_structure_get_value (s, "magnitude");
  guint i;

  fail_unless (v != NULL);
  for (i = 0; i < gst_value_list_get_size (v); i++) {
    gdouble d = g_value_get_float (gst_value_list_get_value (v, i));
    g_array_append_val (out, d);
  }
}

static void
compare_with_spectrum (const gchar * props, guint rate, const gfloat * x,
    guint frames, guint chunk, guint expect_messages)
{
  gchar *l1 = g_strdup_printf ("spectrum %s", props);
  gchar *l2 = g_strdup_printf ("clfftspectrum %s", props);
  GPtrArray *ref = spectrum_messages (l1, rate, x, frames, chunk);
  GPtrArray *got = spectrum_messages (l2, rate, x, frames, chunk);
  guint i, k;

  fail_unless_equals_int (ref->len, expect_messages);
  fail_unless_equals_int (got->len, ref->len);
  for (i = 0; i < ref->len; i++) {
    GArray *a = g_array_new (FALSE, FALSE, sizeof (gdouble));
    GArray *b = g_array_new (FALSE, FALSE, sizeof (gdouble));
    guint64 ta, tb;

    gst_structure_get_uint64 (g_ptr_array_index (ref, i), "timestamp", &ta);
    gst_structure_get_uint64 (g_ptr_array_index (got, i), "timestamp", &tb);
    fail_unless_equals_uint64 (tb, ta);
    magnitudes (g_ptr_array_index (ref, i), a);
    magnitudes (g_ptr_array_index (got, i), b);
    fail_unless_equals_int (b->len, a->len);
    for (k = 0; k < a->len; k++)
      fail_unless (fabs (g_array_index (a, gdouble, k) -
              g_array_index (b, gdouble, k)) <= TOL_VS_SPECTRUM_DB,
          "%s: message %u band %u: spectrum %g, clfftspectrum %g", props, i,
          k, g_array_index (a, gdouble, k), g_array_index (b, gdouble, k));
    g_array_free (a, TRUE);
    g_array_free (b, TRUE);
  }
  g_ptr_array_unref (ref);
  g_ptr_array_unref (got);
  g_free (l1);
  g_free (l2);
}

/* bands, threshold and interval at their limits, as spectrum does them. */
GST_START_TEST (test_spectrum_limits)
{
  const guint rate = 8000, frames = 800;
  gfloat *x = g_new (gfloat, frames);
  gchar *props;
  guint i;

  for (i = 0; i < frames; i++)
    x[i] = 0.5f * sinf (i * 0.7f) + 0.25f * sinf (i * 0.11f);

  /* bands=2: a 2-point FFT */
  compare_with_spectrum ("bands=2 interval=10000000", rate, x, frames, 100, 10);
  /* threshold at G_MININT: nothing clamped but silence (-inf) */
  props = g_strdup_printf ("bands=16 threshold=%d interval=10000000", G_MININT);
  compare_with_spectrum (props, rate, x, frames, 100, 10);
  g_free (props);
  /* threshold 0: every level clamped to 0 dB */
  compare_with_spectrum ("bands=16 threshold=0 interval=10000000", rate, x,
      frames, 100, 10);
  /* interval 1 ns: a message for every frame, and one more: spectrum
   * starts with an empty interval when one is shorter than a frame (its
   * frames_todo starts at 0), and the drop-in does the same */
  compare_with_spectrum ("bands=4 interval=1", rate, x, 200, 37, 201);
  /* interval G_MAXUINT64: never a message */
  props = g_strdup_printf ("bands=16 interval=%" G_GUINT64_FORMAT, G_MAXUINT64);
  compare_with_spectrum (props, rate, x, frames, 100, 0);
  g_free (props);
  g_free (x);
}

GST_END_TEST;

/* overlap and min-frequency (log scale) at their limits give finite
 * levels at or above the threshold, and a sane stream works after. */
GST_START_TEST (test_spectrum_own_limits)
{
  static const gchar *lines[] = {
    "clfftspectrum bands=64 overlap=0.9 interval=10000000",
    "clfftspectrum bands=64 frequency-scale=log min-frequency=0.01 "
        "interval=100000000",
    "clfftspectrum bands=64 frequency-scale=log min-frequency=10000000 "
        "interval=10000000",
  };
  const guint rate = 8000, frames = 1600;
  gfloat *x = g_new (gfloat, frames);
  guint i, k, j;

  for (i = 0; i < frames; i++)
    x[i] = 0.5f * sinf (i * 0.7f);
  for (i = 0; i < G_N_ELEMENTS (lines); i++) {
    GPtrArray *msgs = spectrum_messages (lines[i], rate, x, frames, 160);

    fail_unless (msgs->len > 0, "%s: no messages", lines[i]);
    for (k = 0; k < msgs->len; k++) {
      GArray *a = g_array_new (FALSE, FALSE, sizeof (gdouble));
      magnitudes (g_ptr_array_index (msgs, k), a);
      fail_unless_equals_int (a->len, 64);
      for (j = 0; j < a->len; j++)
        fail_unless (isfinite (g_array_index (a, gdouble, j)) &&
            g_array_index (a, gdouble, j) >= -60.0, "%s: band %u: %g",
            lines[i], j, g_array_index (a, gdouble, j));
      g_array_free (a, TRUE);
    }
    g_ptr_array_unref (msgs);
  }

  compare_with_spectrum ("bands=16 interval=10000000", rate, x, 800, 100, 10);
  g_free (x);
}

GST_END_TEST;

/* The largest bands value fails with an error before touching memory
 * (it once allocated ~24 GiB of host memory, which Linux overcommits, and
 * filled 8 GiB of window: the OOM killer ended the process). */
GST_START_TEST (test_spectrum_bands_max)
{
  gfloat x[160] = { 0, };
  GstHarness *hn;
  GstBus *bus;
  GstMessage *m;
  GstBuffer *b;
  gchar *launch;

  launch = g_strdup_printf ("clfftspectrum bands=%u",
      ((guint) G_MAXINT + 2) / 2);
  hn = gst_harness_new_parse (launch);
  bus = gst_bus_new ();
  gst_element_set_bus (hn->element, bus);
  gst_harness_set_caps_str (hn, "audio/x-raw,format=" GST_AUDIO_NE (F32)
      ",layout=interleaved,rate=8000,channels=1",
      "audio/x-raw,format=" GST_AUDIO_NE (F32)
      ",layout=interleaved,rate=8000,channels=1");
  b = gst_buffer_new_memdup (x, sizeof (x));
  /* refused when the caps are applied (not-negotiated) or on the buffer */
  {
    GstFlowReturn ret = gst_harness_push (hn, b);
    fail_unless (ret == GST_FLOW_ERROR || ret == GST_FLOW_NOT_NEGOTIATED,
        "flow %s", gst_flow_get_name (ret));
  }
  m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (m != NULL);
  gst_message_unref (m);
  gst_bus_set_flushing (bus, TRUE);
  gst_element_set_bus (hn->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (hn);
  g_free (launch);

}

GST_END_TEST;

static Suite *
reliability_properties_suite (void)
{
  Suite *s = suite_create ("reliability-properties");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_numeric_ranges);
  tcase_add_test (tc, test_nan_convolve);
  tcase_add_test (tc, test_enums_out_of_range);
  tcase_add_test (tc, test_convolve_video_limits);
  tcase_add_test (tc, test_convolve_kernel_width_limit);
  tcase_add_test (tc, test_convolve_audio_limits);
  tcase_add_test (tc, test_spectrum_limits);
  tcase_add_test (tc, test_spectrum_own_limits);
  tcase_add_test (tc, test_nan_spectrum);
  tcase_add_test (tc, test_spectrum_bands_max);
  return s;
}

GST_CHECK_MAIN (reliability_properties);

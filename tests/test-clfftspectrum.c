/* test-clfftspectrum.c: clfftspectrum's audio mode against GStreamer's spectrum and a double-precision reference. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/audio/audio.h>
#include <math.h>
#include <string.h>

#include "clf.h"
#include "reference.h"

/* Tolerances.
 * Against spectrum (kissfft, float32) the issue asks for 0.1 dB.
 * Against the double reference: a float32 FFT's error is ~1e-6 of the
 * largest bin; a band at -60 dB of a full-scale signal has ~1e-3 of its
 * amplitude, so its power is off by up to ~2e-3 relative, 0.009 dB. The
 * test signals stay below full scale and the threshold at -60 dB, so
 * 0.03 dB leaves a 3x margin. */
#define TOL_VS_SPECTRUM_DB 0.1
#define TOL_VS_REFERENCE_DB 0.03

/* ---- signals and buffers ----------------------------------------------- */

/* Interleaved test signal in [-0.9, 0.9]: per channel two sines of
 * different frequency and some noise, so that many bands are above the
 * threshold and the channels differ. */
static gdouble *
make_signal (guint frames, guint channels, guint rate, guint seed)
{
  gdouble *x = g_new (gdouble, (gsize) frames * channels);
  gfloat *noise = g_new (gfloat, (gsize) frames * channels);
  guint i, c;

  ref_fill_random (noise, (gsize) frames * channels, seed);
  for (c = 0; c < channels; c++) {
    gdouble f1 = 440.0 * (c + 1) * 1.37, f2 = rate * 0.19 / (c + 1);
    for (i = 0; i < frames; i++) {
      gdouble t = (gdouble) i / rate;
      x[(gsize) i * channels + c] = 0.45 * sin (2 * G_PI * f1 * t + c)
          + 0.3 * sin (2 * G_PI * f2 * t) + 0.1 * noise[(gsize) i * channels
          + c];
    }
  }
  g_free (noise);
  return x;
}

static gint64
quantize (gdouble x, gdouble scale, gint64 lo, gint64 hi)
{
  gint64 v = (gint64) llround (x * scale);
  return CLAMP (v, lo, hi);
}

/* The samples in the given format (native endianness); *bpf receives the
 * bytes per frame. */
static guint8 *
to_format (const gdouble * x, guint frames, guint channels,
    GstAudioFormat format, guint * bpf)
{
  gsize n = (gsize) frames * channels, i;
  guint bps = GST_AUDIO_FORMAT_INFO_WIDTH (gst_audio_format_get_info
      (format)) / 8;
  guint8 *out = g_malloc (n * bps);

  for (i = 0; i < n; i++) {
    switch (format) {
      case GST_AUDIO_FORMAT_S16:
        ((gint16 *) out)[i] = quantize (x[i], 32767.0, -32768, 32767);
        break;
      case GST_AUDIO_FORMAT_S24:{
        gint32 v = quantize (x[i], 8388607.0, -8388608, 8388607);
        GST_WRITE_UINT24_LE (out + 3 * i, (guint32) v);
        break;
      }
      case GST_AUDIO_FORMAT_S32:
        ((gint32 *) out)[i] = quantize (x[i], 2147483647.0, G_MININT32,
            G_MAXINT32);
        break;
      case GST_AUDIO_FORMAT_F32:
        ((gfloat *) out)[i] = x[i];
        break;
      case GST_AUDIO_FORMAT_F64:
        ((gdouble *) out)[i] = x[i];
        break;
      default:
        g_assert_not_reached ();
    }
  }
  *bpf = bps * channels;
  return out;
}

static gchar *
audio_caps (GstAudioFormat format, guint rate, guint channels)
{
  return g_strdup_printf ("audio/x-raw, format=%s, rate=%u, channels=%u, "
      "layout=interleaved%s", gst_audio_format_to_string (format), rate,
      channels, channels > 2 ? ", channel-mask=(bitmask)0" : "");
}

/* Where buffers start: pushes `frames` frames in buffers whose sizes cycle
 * through `sizes` (0-terminated), the first DISCONT. */
typedef struct
{
  const guint8 *data;
  guint frames, bpf, rate;
  const guint *sizes;
  guint64 first_frame;          /* timestamp origin, in frames */
  gboolean discont_first;
} Stream;

static GstBuffer *
stream_buffer (const Stream * s, guint start, guint len)
{
  GstBuffer *buf = gst_buffer_new_memdup (s->data + (gsize) start * s->bpf,
      (gsize) len * s->bpf);
  guint64 f = s->first_frame + start;

  GST_BUFFER_PTS (buf) = gst_util_uint64_scale (f, GST_SECOND, s->rate);
  GST_BUFFER_DURATION (buf) = gst_util_uint64_scale (f + len, GST_SECOND,
      s->rate) - GST_BUFFER_PTS (buf);
  GST_BUFFER_OFFSET (buf) = f;
  GST_BUFFER_OFFSET_END (buf) = f + len;
  return buf;
}

static void
drain_output (GstHarness * h)
{
  GstBuffer *b;
  while ((b = gst_harness_try_pull (h)))
    gst_buffer_unref (b);
}

static void
push_stream (GstHarness * h, const Stream * s)
{
  guint pos = 0, k = 0;

  while (pos < s->frames) {
    guint len = MIN (s->sizes[k], s->frames - pos);
    GstBuffer *buf = stream_buffer (s, pos, len);

    if (pos == 0 && s->discont_first)
      GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
    fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
    drain_output (h);
    pos += len;
    k = s->sizes[k + 1] ? k + 1 : 0;
  }
}

/* A harness around one element (spectrum or clfftspectrum, with the
 * launch line's properties) whose messages land on *bus. */
static GstHarness *
harness_new (const gchar * launch, const gchar * caps, GstBus ** bus)
{
  GstHarness *h = gst_harness_new_parse (launch);

  *bus = gst_bus_new ();
  gst_element_set_bus (h->element, *bus);
  gst_harness_set_src_caps_str (h, caps);
  return h;
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

/* The spectrum messages on bus, in order (structures owned by the array);
 * fails on any error message. */
static GPtrArray *
collect_messages (GstBus * bus)
{
  GPtrArray *res = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_structure_free);
  GstMessage *msg;

  while ((msg = gst_bus_pop (bus))) {
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      GError *err;
      gchar *dbg;
      gst_message_parse_error (msg, &err, &dbg);
      fail ("error from %s: %s (%s)", GST_OBJECT_NAME (msg->src),
          err->message, dbg);
    }
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ELEMENT &&
        gst_structure_has_name (gst_message_get_structure (msg), "spectrum"))
      g_ptr_array_add (res,
          gst_structure_copy (gst_message_get_structure (msg)));
    gst_message_unref (msg);
  }
  return res;
}

/* With async-messages the messages may come after their buffers: EOS
 * waits for all of them. Without, they are on the bus already. */
#define ASYNC " async-messages=true"

static void
end_stream (GstHarness * h, const gchar * launch)
{
  if (strstr (launch, ASYNC))
    fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
}

/* Runs one element over a whole stream and returns its messages. */
static GPtrArray *
analyse (const gchar * launch, const gchar * caps, const Stream * s)
{
  GstBus *bus;
  GstHarness *h = harness_new (launch, caps, &bus);
  GPtrArray *msgs;

  push_stream (h, s);
  end_stream (h, launch);
  msgs = collect_messages (bus);
  harness_free (h, bus);
  return msgs;
}

/* ---- comparing messages ------------------------------------------------ */

static void
flatten (const GValue * v, GArray * out)
{
  guint i;

  if (GST_VALUE_HOLDS_LIST (v)) {
    for (i = 0; i < gst_value_list_get_size (v); i++)
      flatten (gst_value_list_get_value (v, i), out);
  } else if (GST_VALUE_HOLDS_ARRAY (v)) {
    for (i = 0; i < gst_value_array_get_size (v); i++)
      flatten (gst_value_array_get_value (v, i), out);
  } else {
    gdouble d;
    fail_unless (G_VALUE_HOLDS_FLOAT (v), "level of type %s",
        G_VALUE_TYPE_NAME (v));
    d = g_value_get_float (v);
    g_array_append_val (out, d);
  }
}

static GArray *
field_values (const GstStructure * s, const gchar * field)
{
  GArray *a = g_array_new (FALSE, FALSE, sizeof (gdouble));
  const GValue *v = gst_structure_get_value (s, field);

  fail_unless (v != NULL, "no field %s in %" GST_PTR_FORMAT, field, s);
  flatten (v, a);
  return a;
}

/* Same types all the way down: containers of the same kind and size. */
static void
check_same_value_shape (const GValue * ref, const GValue * got,
    const gchar * field)
{
  guint i, n;

  fail_unless_equals_string (G_VALUE_TYPE_NAME (got), G_VALUE_TYPE_NAME (ref));
  if (GST_VALUE_HOLDS_LIST (ref)) {
    n = gst_value_list_get_size (ref);
    fail_unless_equals_int (gst_value_list_get_size (got), n);
    for (i = 0; i < n; i++)
      check_same_value_shape (gst_value_list_get_value (ref, i),
          gst_value_list_get_value (got, i), field);
  } else if (GST_VALUE_HOLDS_ARRAY (ref)) {
    n = gst_value_array_get_size (ref);
    fail_unless_equals_int (gst_value_array_get_size (got), n);
    for (i = 0; i < n; i++)
      check_same_value_shape (gst_value_array_get_value (ref, i),
          gst_value_array_get_value (got, i), field);
  }
}

/* Same name, fields in the same order with the same types, same times. */
static void
check_same_structure (const GstStructure * ref, const GstStructure * got)
{
  static const gchar *times[] = { "endtime", "timestamp", "stream-time",
    "running-time", "duration"
  };
  gint i, n = gst_structure_n_fields (ref);

  fail_unless_equals_string (gst_structure_get_name (got),
      gst_structure_get_name (ref));
  fail_unless_equals_int (gst_structure_n_fields (got), n);
  for (i = 0; i < n; i++) {
    const gchar *name = gst_structure_nth_field_name (ref, i);
    fail_unless_equals_string (gst_structure_nth_field_name (got, i), name);
    check_same_value_shape (gst_structure_get_value (ref, name),
        gst_structure_get_value (got, name), name);
  }
  for (i = 0; i < (gint) G_N_ELEMENTS (times); i++) {
    guint64 a, b;
    if (!gst_structure_has_field (ref, times[i]))
      continue;
    fail_unless (gst_structure_get_uint64 (ref, times[i], &a));
    fail_unless (gst_structure_get_uint64 (got, times[i], &b));
    fail_unless_equals_uint64 (b, a);
  }
}

static gdouble
max_field_diff (const GstStructure * ref, const GstStructure * got,
    const gchar * field)
{
  GArray *a = field_values (ref, field), *b = field_values (got, field);
  gdouble worst = 0.0;
  guint i;

  fail_unless_equals_int (b->len, a->len);
  for (i = 0; i < a->len; i++)
    worst = MAX (worst, fabs (g_array_index (a, gdouble, i) -
            g_array_index (b, gdouble, i)));
  g_array_free (a, TRUE);
  g_array_free (b, TRUE);
  return worst;
}

/* Both elements' messages: same count, structure, times; magnitudes
 * within tol dB. Returns the largest difference seen. */
static gdouble
compare_runs (GPtrArray * ref, GPtrArray * got, gdouble tol)
{
  gdouble worst = 0.0;
  guint i;

  fail_unless (ref->len > 0);
  fail_unless_equals_int (got->len, ref->len);
  for (i = 0; i < ref->len; i++) {
    const GstStructure *r = g_ptr_array_index (ref, i);
    const GstStructure *g = g_ptr_array_index (got, i);
    gdouble d;

    check_same_structure (r, g);
    if (gst_structure_has_field (r, "magnitude")) {
      d = max_field_diff (r, g, "magnitude");
      fail_unless (d <= tol, "message %u: magnitude differs by %g dB "
          "(> %g)\nspectrum:      %" GST_PTR_FORMAT "\nclfftspectrum: %"
          GST_PTR_FORMAT, i, d, tol, r, g);
      worst = MAX (worst, d);
    }
  }
  return worst;
}

/* Runs spectrum and clfftspectrum with the same properties over the
 * same stream and compares, clfftspectrum with and without
 * async-messages. */
static gdouble
compare_with_spectrum (const gchar * props, const gchar * caps,
    const Stream * s)
{
  gchar *l1 = g_strdup_printf ("spectrum %s", props);
  gchar *l2 = g_strdup_printf ("clfftspectrum %s", props);
  gchar *l3 = g_strdup_printf ("clfftspectrum %s" ASYNC, props);
  GPtrArray *ref = analyse (l1, caps, s);
  GPtrArray *got = analyse (l2, caps, s);
  GPtrArray *got_async = analyse (l3, caps, s);
  gdouble worst = compare_runs (ref, got, TOL_VS_SPECTRUM_DB);

  worst = MAX (worst, compare_runs (ref, got_async, TOL_VS_SPECTRUM_DB));
  GST_INFO ("%s on %s: %u messages, worst %g dB", props, caps, ref->len, worst);
  g_ptr_array_unref (ref);
  g_ptr_array_unref (got);
  g_ptr_array_unref (got_async);
  g_free (l1);
  g_free (l2);
  g_free (l3);
  return worst;
}

static gfloat
level_at (const GstStructure * s, const gchar * field, guint channel,
    guint band)
{
  const GValue *v = gst_structure_get_value (s, field);

  if (GST_VALUE_HOLDS_ARRAY (v) &&
      GST_VALUE_HOLDS_ARRAY (gst_value_array_get_value (v, 0)))
    v = gst_value_array_get_value (v, channel);
  if (GST_VALUE_HOLDS_LIST (v))
    return g_value_get_float (gst_value_list_get_value (v, band));
  return g_value_get_float (gst_value_array_get_value (v, band));
}

static guint
peak_band (const GstStructure * s, guint channel, guint bands)
{
  guint b, best = 0;

  for (b = 1; b < bands; b++)
    if (level_at (s, "magnitude", channel, b) >
        level_at (s, "magnitude", channel, best))
      best = b;
  return best;
}

/* ---- double-precision reference --------------------------------------- */

static gdouble
ref_window (const gchar * window, guint i, guint n)
{
  gdouble x = 2.0 * M_PI * i / n;

  if (!strcmp (window, "hann"))
    return 0.5 * (1.0 - cos (x));
  if (!strcmp (window, "hamming"))
    return 0.53836 - 0.46164 * cos (x);
  if (!strcmp (window, "blackman"))
    return 0.42 - 0.5 * cos (x) + 0.08 * cos (2 * x);
  if (!strcmp (window, "blackman-harris"))
    return 0.35875 - 0.48829 * cos (x) + 0.14128 * cos (2 * x) -
        0.01168 * cos (3 * x);
  return 1.0;
}

/* Power of band b from the power spectrum p[0..nfft/2]: linear = bin b;
 * log = the documented rule (bands from fmin to Nyquist at a constant
 * ratio, each the overlap-weighted power of the bins it covers, divided
 * by the smaller of band and bin width). */
static gdouble
ref_band_power (const gdouble * p, guint nfft, guint b, guint bands,
    gboolean log_scale, gdouble fmin, guint rate)
{
  gdouble df, ratio, fc, lo, hi, norm, sum = 0.0;
  gint k;

  if (!log_scale)
    return p[b];

  df = (gdouble) rate / nfft;
  ratio = pow (rate / 2.0 / fmin, 1.0 / (bands - 1));
  fc = fmin * pow (ratio, b);
  lo = fc / sqrt (ratio);
  hi = fc * sqrt (ratio);
  norm = MIN (df, hi - lo);
  for (k = 0; k <= (gint) nfft / 2; k++) {
    gdouble ov = MIN (hi, (k + 0.5) * df) - MAX (lo, (k - 0.5) * df);
    if (ov > 0)
      sum += p[k] * ov / norm;
  }
  return sum;
}

/* Levels of each message when every interval is exactly `interval`
 * frames, a multiple of hop: FFT windows end every hop frames from the
 * start (silence before it), each message averages the clamped dB levels
 * of the FFTs ending in its interval. x: the analysed (mono) signal. */
static gdouble *
ref_levels (const gdouble * x, guint frames, guint nfft, guint hop,
    guint interval, const gchar * window, guint bands, gboolean log_scale,
    gdouble fmin, guint rate, gint threshold, guint * n_msgs)
{
  guint nmsg = frames / interval, m, i, b;
  gdouble *out = g_new0 (gdouble, (gsize) nmsg * bands);
  gdouble *in = g_new (gdouble, 2 * nfft), *spec = g_new (gdouble, 2 * nfft);
  gdouble *p = g_new (gdouble, nfft / 2 + 1);

  for (m = 0; m < nmsg; m++) {
    guint end, count = 0;
    for (end = m * interval + hop; end <= (m + 1) * interval; end += hop) {
      for (i = 0; i < nfft; i++) {
        gint64 t = (gint64) end - nfft + i;
        in[2 * i] = (t >= 0 ? x[t] : 0.0) * ref_window (window, i, nfft);
        in[2 * i + 1] = 0.0;
      }
      ref_fft (in, spec, nfft, 1, -1);
      for (i = 0; i <= nfft / 2; i++)
        p[i] = spec[2 * i] * spec[2 * i] + spec[2 * i + 1] * spec[2 * i + 1];
      for (b = 0; b < bands; b++) {
        gdouble db = 10.0 * log10 (ref_band_power (p, nfft, b, bands,
                log_scale, fmin, rate) / ((gdouble) nfft * nfft));
        out[(gsize) m * bands + b] += MAX (db, (gdouble) threshold);
      }
      count++;
    }
    for (b = 0; b < bands; b++)
      out[(gsize) m * bands + b] /= count;
  }
  g_free (in);
  g_free (spec);
  g_free (p);
  *n_msgs = nmsg;
  return out;
}

/* The samples as the element reads them, mixed to mono: integers divided
 * by the format's largest value, channels averaged. */
static gdouble *
mono_as_read (const guint8 * data, guint frames, guint channels,
    GstAudioFormat format)
{
  gdouble *x = g_new0 (gdouble, frames);
  guint i, c;

  for (i = 0; i < frames; i++) {
    for (c = 0; c < channels; c++) {
      gsize k = (gsize) i * channels + c;
      gdouble v;
      switch (format) {
        case GST_AUDIO_FORMAT_S16:
          v = ((const gint16 *) data)[k] / 32767.0;
          break;
        case GST_AUDIO_FORMAT_S24:{
          gint32 s = GST_READ_UINT24_LE (data + 3 * k);
          if (s & 0x800000)
            s |= 0xff000000;
          v = s / 8388607.0;
          break;
        }
        case GST_AUDIO_FORMAT_S32:
          v = ((const gint32 *) data)[k] / 2147483647.0;
          break;
        case GST_AUDIO_FORMAT_F32:
          v = ((const gfloat *) data)[k];
          break;
        default:
          v = ((const gdouble *) data)[k];
          break;
      }
      x[i] += v / channels;
    }
  }
  return x;
}

/* Compares an element run with ref_levels (one channel). */
static void
compare_with_reference (GPtrArray * got, const gdouble * ref, guint nmsg,
    guint bands, guint interval, guint rate)
{
  guint m, b;
  gdouble worst = 0.0;

  fail_unless_equals_int (got->len, nmsg);
  for (m = 0; m < nmsg; m++) {
    const GstStructure *s = g_ptr_array_index (got, m);
    guint64 ts;

    fail_unless (gst_structure_get_uint64 (s, "timestamp", &ts));
    fail_unless_equals_uint64 (ts, gst_util_uint64_scale ((guint64) m *
            interval, GST_SECOND, rate));
    for (b = 0; b < bands; b++) {
      gdouble d = fabs (level_at (s, "magnitude", 0, b) -
          ref[(gsize) m * bands + b]);
      fail_unless (d <= TOL_VS_REFERENCE_DB, "message %u band %u: %g dB, "
          "reference %g dB", m, b, level_at (s, "magnitude", 0, b),
          ref[(gsize) m * bands + b]);
      worst = MAX (worst, d);
    }
  }
  GST_INFO ("%u messages x %u bands, worst %g dB from the reference", nmsg,
      bands, worst);
}

/* ---- tests ------------------------------------------------------------- */

GST_START_TEST (test_properties_match_spectrum)
{
  static const gchar *names[] = { "post-messages", "message-magnitude",
    "message-phase", "interval", "bands", "threshold", "multi-channel"
  };
  GstElement *ref = gst_element_factory_make ("spectrum", NULL);
  GstElement *got = gst_element_factory_make ("clfftspectrum", NULL);
  guint i;

  fail_unless (ref != NULL && got != NULL);
  for (i = 0; i < G_N_ELEMENTS (names); i++) {
    GParamSpec *a = g_object_class_find_property (G_OBJECT_GET_CLASS (ref),
        names[i]);
    GParamSpec *b = g_object_class_find_property (G_OBJECT_GET_CLASS (got),
        names[i]);
    const GValue *da, *db;

    fail_unless (a && b, "property %s", names[i]);
    fail_unless_equals_string (G_PARAM_SPEC_TYPE_NAME (b),
        G_PARAM_SPEC_TYPE_NAME (a));
    fail_unless_equals_int (b->flags & G_PARAM_READWRITE,
        a->flags & G_PARAM_READWRITE);
    da = g_param_spec_get_default_value (a);
    db = g_param_spec_get_default_value (b);
    fail_unless (gst_value_compare (da, db) == GST_VALUE_EQUAL,
        "default of %s", names[i]);
    if (G_IS_PARAM_SPEC_UINT (a)) {
      fail_unless_equals_uint64 (G_PARAM_SPEC_UINT (b)->minimum,
          G_PARAM_SPEC_UINT (a)->minimum);
      fail_unless_equals_uint64 (G_PARAM_SPEC_UINT (b)->maximum,
          G_PARAM_SPEC_UINT (a)->maximum);
    } else if (G_IS_PARAM_SPEC_INT (a)) {
      fail_unless_equals_int64 (G_PARAM_SPEC_INT (b)->minimum,
          G_PARAM_SPEC_INT (a)->minimum);
      fail_unless_equals_int64 (G_PARAM_SPEC_INT (b)->maximum,
          G_PARAM_SPEC_INT (a)->maximum);
    } else if (G_IS_PARAM_SPEC_UINT64 (a)) {
      fail_unless_equals_uint64 (G_PARAM_SPEC_UINT64 (b)->minimum,
          G_PARAM_SPEC_UINT64 (a)->minimum);
      fail_unless_equals_uint64 (G_PARAM_SPEC_UINT64 (b)->maximum,
          G_PARAM_SPEC_UINT64 (a)->maximum);
    }
  }

  /* the extra properties reject values outside their ranges */
  {
    GParamSpec *p = g_object_class_find_property (G_OBJECT_GET_CLASS (got),
        "overlap");
    GValue v = G_VALUE_INIT;

    fail_unless (p != NULL);
    g_value_init (&v, G_TYPE_DOUBLE);
    g_value_set_double (&v, 0.95);
    fail_unless (g_param_value_validate (p, &v));
    g_value_set_double (&v, 0.5);
    fail_if (g_param_value_validate (p, &v));
    g_value_unset (&v);
    fail_unless (g_object_class_find_property (G_OBJECT_GET_CLASS (got),
            "window"));
    fail_unless (g_object_class_find_property (G_OBJECT_GET_CLASS (got),
            "frequency-scale"));
    fail_unless (g_object_class_find_property (G_OBJECT_GET_CLASS (got),
            "min-frequency"));
    fail_unless (g_object_class_find_property (G_OBJECT_GET_CLASS (got),
            "message-format"));
    fail_unless (g_object_class_find_property (G_OBJECT_GET_CLASS (got),
            "device"));
  }

  /* same caps */
  {
    GstPadTemplate *ta =
        gst_element_class_get_pad_template (GST_ELEMENT_GET_CLASS (ref),
        "sink");
    GstPadTemplate *tb =
        gst_element_class_get_pad_template (GST_ELEMENT_GET_CLASS (got),
        "sink");
    GstCaps *ca = gst_pad_template_get_caps (ta);
    GstCaps *cb = gst_pad_template_get_caps (tb);
    GstCaps *audio = gst_caps_from_string ("audio/x-raw");
    GstCaps *cb_audio = gst_caps_intersect (cb, audio);

    fail_unless (gst_caps_is_equal (ca, cb_audio), "%" GST_PTR_FORMAT
        " vs %" GST_PTR_FORMAT, ca, cb_audio);
    gst_caps_unref (ca);
    gst_caps_unref (cb);
    gst_caps_unref (audio);
    gst_caps_unref (cb_audio);
  }

  gst_object_unref (ref);
  gst_object_unref (got);
}

GST_END_TEST;

/* Message structure and values as spectrum's: mono and stereo, mixed and
 * multi-channel, with and without phase. Intervals do not line up with
 * the buffers. */
GST_START_TEST (test_messages_like_spectrum)
{
  static const guint sizes[] = { 1000, 333, 4096, 77, 0 };
  const guint rate = 44100, frames = rate / 2;
  static const gchar *props[] = {
    "",
    "bands=64 interval=20000000 message-phase=true",
    "bands=100 interval=30000000 multi-channel=true",
    "bands=33 interval=15000000 multi-channel=true message-phase=true "
        "message-magnitude=false",
    "bands=128 threshold=-80 interval=50000000",
  };
  guint channels, i;

  for (channels = 1; channels <= 2; channels++) {
    gdouble *x = make_signal (frames, channels, rate, 1);
    guint bpf;
    guint8 *data = to_format (x, frames, channels, GST_AUDIO_FORMAT_S16,
        &bpf);
    gchar *caps = audio_caps (GST_AUDIO_FORMAT_S16, rate, channels);
    Stream s = { data, frames, bpf, rate, sizes, 0, TRUE };

    for (i = 0; i < G_N_ELEMENTS (props); i++)
      compare_with_spectrum (props[i], caps, &s);
    g_free (caps);
    g_free (data);
    g_free (x);
  }
}

GST_END_TEST;

/* Phase: with one FFT per interval both elements average nothing, so the
 * phases of strong bands must match (modulo 2 pi). */
GST_START_TEST (test_phase_like_spectrum)
{
  static const guint sizes[] = { 700, 0 };
  const guint rate = 32000, frames = 8 * 254;
  gdouble *x = make_signal (frames, 1, rate, 2);
  guint bpf, m, b, checked = 0;
  guint8 *data = to_format (x, frames, 1, GST_AUDIO_FORMAT_F32, &bpf);
  gchar *caps = audio_caps (GST_AUDIO_FORMAT_F32, rate, 1);
  Stream s = { data, frames, bpf, rate, sizes, 0, TRUE };
  /* 254 frames = one FFT of bands=128 per interval */
  const gchar *props = "bands=128 interval=7937500 message-phase=true";
  gchar *l1 = g_strdup_printf ("spectrum %s", props);
  gchar *l2 = g_strdup_printf ("clfftspectrum %s", props);
  GPtrArray *ref = analyse (l1, caps, &s), *got = analyse (l2, caps, &s);

  compare_runs (ref, got, TOL_VS_SPECTRUM_DB);
  for (m = 0; m < ref->len; m++) {
    const GstStructure *r = g_ptr_array_index (ref, m);
    const GstStructure *g = g_ptr_array_index (got, m);
    for (b = 0; b < 128; b++) {
      gdouble d;
      /* phase is only meaningful (float-stable) for strong bins */
      if (level_at (r, "magnitude", 0, b) < -40)
        continue;
      d = fabs (remainder (level_at (r, "phase", 0, b) -
              level_at (g, "phase", 0, b), 2 * M_PI));
      fail_unless (d < 1e-2, "message %u band %u phase differs by %g", m, b, d);
      checked++;
    }
  }
  fail_unless (checked > 20);
  g_ptr_array_unref (ref);
  g_ptr_array_unref (got);
  g_free (l1);
  g_free (l2);
  g_free (caps);
  g_free (data);
  g_free (x);
}

GST_END_TEST;

/* Every sample format against spectrum, mixed and per channel. spectrum's
 * mixing S24 reader is broken (it sums across frames), so S24 mixed is
 * checked against the double reference instead. */
GST_START_TEST (test_formats)
{
  static const GstAudioFormat formats[] = { GST_AUDIO_FORMAT_S16,
    GST_AUDIO_FORMAT_S24, GST_AUDIO_FORMAT_S32, GST_AUDIO_FORMAT_F32,
    GST_AUDIO_FORMAT_F64
  };
  static const guint sizes[] = { 512, 1500, 0 };
  const guint rate = 32000, channels = 2, frames = 6 * 1016;
  gdouble *x = make_signal (frames, channels, rate, 3);
  guint f;

  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    guint bpf;
    guint8 *data = to_format (x, frames, channels, formats[f], &bpf);
    gchar *caps = audio_caps (formats[f], rate, channels);
    Stream s = { data, frames, bpf, rate, sizes, 0, TRUE };

    compare_with_spectrum ("multi-channel=true interval=31750000", caps, &s);
    if (formats[f] != GST_AUDIO_FORMAT_S24) {
      compare_with_spectrum ("interval=31750000", caps, &s);
    } else {
      gdouble *mono = mono_as_read (data, frames, channels, formats[f]);
      guint nmsg;
      /* 1016 frames = 4 FFTs of 254 per interval at 32 kHz */
      gdouble *ref = ref_levels (mono, frames, 254, 254, 1016, "hamming",
          128, FALSE, 0, rate, -60, &nmsg);
      GPtrArray *got = analyse ("clfftspectrum interval=31750000", caps, &s);

      compare_with_reference (got, ref, nmsg, 128, 1016, rate);
      g_ptr_array_unref (got);
      g_free (ref);
      g_free (mono);
    }
    g_free (caps);
    g_free (data);
  }
  g_free (x);
}

GST_END_TEST;

/* Intervals that are not whole frames (the rounding error adds a frame
 * now and then), shorter than the FFT (one FFT of the last nfft frames),
 * and buffers smaller than the FFT. */
GST_START_TEST (test_intervals_across_buffers)
{
  static const guint small[] = { 100, 37, 250, 0 };
  static const guint big[] = { 4410, 0 };
  const guint rate = 44100, frames = rate;
  gdouble *x = make_signal (frames, 1, rate, 4);
  guint bpf;
  guint8 *data = to_format (x, frames, 1, GST_AUDIO_FORMAT_F32, &bpf);
  gchar *caps = audio_caps (GST_AUDIO_FORMAT_F32, rate, 1);
  Stream s = { data, frames, bpf, rate, small, 0, TRUE };

  compare_with_spectrum ("bands=64 interval=33333333", caps, &s);
  compare_with_spectrum ("bands=1024 interval=10000000", caps, &s);
  compare_with_spectrum ("bands=16 interval=1000000", caps, &s);
  s.sizes = big;
  compare_with_spectrum ("bands=200 interval=21000000", caps, &s);
  /* timestamps that do not start at zero */
  s.first_frame = 12345;
  compare_with_spectrum ("bands=128 interval=12345678", caps, &s);

  g_free (caps);
  g_free (data);
  g_free (x);
}

GST_END_TEST;

/* A sine on bin 40 of 510: peak in band 40 at the Hamming window's
 * coherent gain, 20 log10 (A * 0.53836 / 2) dB. */
GST_START_TEST (test_sine_peak)
{
  static const guint sizes[] = { 960, 0 };
  const guint rate = 48000, bands = 256, nfft = 510, frames = 4 * 4800;
  const gdouble amp = 0.5, freq = 40.0 * rate / nfft;
  gdouble *x = g_new (gdouble, frames);
  gdouble expect = 20.0 * log10 (amp * 0.53836 / 2.0);
  guint bpf, i;
  guint8 *data;
  gchar *caps = audio_caps (GST_AUDIO_FORMAT_F32, rate, 1);
  Stream s = { NULL, frames, 0, rate, sizes, 0, TRUE };
  GPtrArray *got;

  for (i = 0; i < frames; i++)
    x[i] = amp * sin (2 * M_PI * freq * i / rate);
  data = to_format (x, frames, 1, GST_AUDIO_FORMAT_F32, &bpf);
  s.data = data;
  s.bpf = bpf;
  got = analyse ("clfftspectrum bands=256", caps, &s);
  fail_unless_equals_int (got->len, 4);
  for (i = 0; i < got->len; i++) {
    const GstStructure *m = g_ptr_array_index (got, i);
    fail_unless_equals_int (peak_band (m, 0, bands), 40);
    fail_unless (fabs (level_at (m, "magnitude", 0, 40) - expect) < 0.01,
        "peak %g dB, expected %g", level_at (m, "magnitude", 0, 40), expect);
  }
  g_ptr_array_unref (got);
  g_free (caps);
  g_free (data);
  g_free (x);
}

GST_END_TEST;

/* Three channels with sines on different bins: each channel peaks in its
 * own band; mixed, the average shows all three 20 log10 (3) dB lower. */
GST_START_TEST (test_multichannel)
{
  static const guint sizes[] = { 1024, 0 };
  static const guint bins[] = { 10, 37, 90 };
  const guint rate = 32000, channels = 3, nfft = 254, frames = 4 * 1016;
  const gdouble amp = 0.6;
  gdouble *x = g_new (gdouble, (gsize) frames * channels);
  guint bpf, i, c;
  guint8 *data;
  gchar *caps = audio_caps (GST_AUDIO_FORMAT_S32, rate, channels);
  Stream s = { NULL, frames, 0, rate, sizes, 0, TRUE };
  GPtrArray *got;
  gdouble full = 20.0 * log10 (amp * 0.53836 / 2.0);

  for (i = 0; i < frames; i++)
    for (c = 0; c < channels; c++)
      x[i * channels + c] = amp * sin (2 * M_PI * bins[c] * i / nfft);
  data = to_format (x, frames, channels, GST_AUDIO_FORMAT_S32, &bpf);
  s.data = data;
  s.bpf = bpf;

  got = analyse ("clfftspectrum multi-channel=true interval=31750000", caps,
      &s);
  fail_unless_equals_int (got->len, 4);
  for (i = 0; i < got->len; i++) {
    const GstStructure *m = g_ptr_array_index (got, i);
    fail_unless_equals_int (gst_value_array_get_size (gst_structure_get_value
            (m, "magnitude")), channels);
    for (c = 0; c < channels; c++) {
      fail_unless_equals_int (peak_band (m, c, 128), bins[c]);
      fail_unless (fabs (level_at (m, "magnitude", c, bins[c]) - full) < 0.01);
    }
  }
  g_ptr_array_unref (got);

  got = analyse ("clfftspectrum interval=31750000", caps, &s);
  fail_unless_equals_int (got->len, 4);
  for (i = 0; i < got->len; i++) {
    const GstStructure *m = g_ptr_array_index (got, i);
    for (c = 0; c < channels; c++)
      fail_unless (fabs (level_at (m, "magnitude", 0, bins[c]) -
              (full - 20.0 * log10 (3.0))) < 0.01);
  }
  g_ptr_array_unref (got);

  compare_with_spectrum ("multi-channel=true interval=31750000", caps, &s);
  g_free (caps);
  g_free (data);
  g_free (x);
}

GST_END_TEST;

/* Extra properties against the double reference: windows, overlap, log
 * frequency scale; and array messages carry the same values as lists. */
GST_START_TEST (test_window_overlap_log)
{
  static const guint sizes[] = { 800, 3000, 0 };
  static const gchar *windows[] = { "hann", "hamming", "blackman",
    "blackman-harris", "rectangular"
  };
  const guint rate = 32000, frames = 4 * 4096;
  gdouble *x = make_signal (frames, 1, rate, 5);
  guint bpf, w, nmsg;
  guint8 *data = to_format (x, frames, 1, GST_AUDIO_FORMAT_F64, &bpf);
  gchar *caps = audio_caps (GST_AUDIO_FORMAT_F64, rate, 1);
  Stream s = { data, frames, bpf, rate, sizes, 0, TRUE };
  gdouble *ref;
  GPtrArray *got, *got2;
  guint i;

  for (w = 0; w < G_N_ELEMENTS (windows); w++) {
    /* overlap 0.5 of 254: an FFT every 127 frames, 8 per interval */
    gchar *launch = g_strdup_printf ("clfftspectrum window=%s overlap=0.5 "
        "interval=31750000", windows[w]);
    ref = ref_levels (x, frames, 254, 127, 1016, windows[w], 128, FALSE, 0,
        rate, -60, &nmsg);
    got = analyse (launch, caps, &s);
    compare_with_reference (got, ref, nmsg, 128, 1016, rate);
    g_ptr_array_unref (got);
    g_free (ref);
    g_free (launch);
  }

  /* log scale: 32 bands from 100 Hz; 4 periods of 100 Hz at 32 kHz need
   * 1280 points: a 2048-point FFT, 2 per 4096-frame interval */
  ref = ref_levels (x, frames, 2048, 2048, 4096, "hamming", 32, TRUE, 100.0,
      rate, -60, &nmsg);
  got = analyse ("clfftspectrum frequency-scale=log bands=32 "
      "min-frequency=100 interval=128000000", caps, &s);
  compare_with_reference (got, ref, nmsg, 32, 4096, rate);
  g_free (ref);

  got2 = analyse ("clfftspectrum frequency-scale=log bands=32 "
      "min-frequency=100 interval=128000000 message-format=array", caps, &s);
  fail_unless_equals_int (got2->len, got->len);
  for (i = 0; i < got->len; i++) {
    const GstStructure *a = g_ptr_array_index (got, i);
    const GstStructure *b = g_ptr_array_index (got2, i);
    fail_unless (GST_VALUE_HOLDS_LIST (gst_structure_get_value (a,
                "magnitude")));
    fail_unless (GST_VALUE_HOLDS_ARRAY (gst_structure_get_value (b,
                "magnitude")));
    fail_unless_equals_float (max_field_diff (a, b, "magnitude"), 0.0);
  }
  g_ptr_array_unref (got);
  g_ptr_array_unref (got2);

  g_free (caps);
  g_free (data);
  g_free (x);
}

GST_END_TEST;

/* A sine on the centre of log band 31 (about 1 kHz) peaks in that band,
 * at the level a linear band would show within the Hamming window's
 * scalloping and noise bandwidth (the band sums its bins' power). */
GST_START_TEST (test_log_scale_sine)
{
  static const guint sizes[] = { 4800, 0 };
  const guint rate = 48000, frames = rate / 2, bands = 64;
  const gdouble fmin = 50.0;
  gdouble *x = g_new (gdouble, frames);
  gdouble ratio = pow (rate / 2.0 / fmin, 1.0 / (bands - 1));
  const guint expect = 31;
  gdouble freq = fmin * pow (ratio, expect);
  /* sum of the Hamming window's squared spectrum over all bins relative
   * to its peak: its noise bandwidth, 1.3628 bins for 0.53836/0.46164 */
  gdouble enbw = (0.53836 * 0.53836 + 0.5 * 0.46164 * 0.46164) /
      (0.53836 * 0.53836);
  gdouble level = 20.0 * log10 (0.5 * 0.53836 / 2.0) + 10.0 * log10 (enbw);
  guint bpf, i;
  guint8 *data;
  gchar *caps = audio_caps (GST_AUDIO_FORMAT_F32, rate, 1);
  Stream s = { NULL, frames, 0, rate, sizes, 0, TRUE };
  GPtrArray *got;

  for (i = 0; i < frames; i++)
    x[i] = 0.5 * sin (2 * M_PI * freq * i / rate);
  data = to_format (x, frames, 1, GST_AUDIO_FORMAT_F32, &bpf);
  s.data = data;
  s.bpf = bpf;
  got = analyse ("clfftspectrum frequency-scale=log bands=64 "
      "min-frequency=50 interval=100000000", caps, &s);
  fail_unless (got->len >= 4);
  for (i = 1; i < got->len; i++) {
    const GstStructure *m = g_ptr_array_index (got, i);
    fail_unless_equals_int (peak_band (m, 0, bands), expect);
    /* the band is ~8 bins wide: it holds all but the far side lobes */
    fail_unless (fabs (level_at (m, "magnitude", 0, expect) - level) < 0.05,
        "%g dB, expected %g dB", level_at (m, "magnitude", 0, expect), level);
  }
  g_ptr_array_unref (got);
  g_free (caps);
  g_free (data);
  g_free (x);
}

GST_END_TEST;

/* DISCONT at an interval boundary: as spectrum. In the middle of an
 * interval: the interval restarts there, so what follows equals a fresh
 * element fed from that buffer on (spectrum would keep the earlier FFTs'
 * levels in its sums). */
GST_START_TEST (test_discont)
{
  static const guint sizes[] = { 1016, 0 };
  static const guint odd[] = { 500, 0 };
  const guint rate = 32000, frames = 8 * 1016;
  gdouble *x = make_signal (frames, 1, rate, 6);
  guint bpf, i;
  guint8 *data = to_format (x, frames, 1, GST_AUDIO_FORMAT_S16, &bpf);
  gchar *caps = audio_caps (GST_AUDIO_FORMAT_S16, rate, 1);
  const gchar *props = "interval=31750000";
  GPtrArray *ref, *got, *tail;
  GstBus *bus;
  GstHarness *h;
  Stream first = { data, 3 * 1016, bpf, rate, sizes, 0, TRUE };
  Stream second = { data + 3 * 1016 * bpf, 5 * 1016, bpf, rate, sizes,
    3 * 1016, TRUE
  };

  /* at a boundary, both elements */
  {
    gchar *l1 = g_strdup_printf ("spectrum %s", props);
    gchar *l2 = g_strdup_printf ("clfftspectrum %s", props);
    GPtrArray *runs[2];
    for (i = 0; i < 2; i++) {
      h = harness_new (i ? l2 : l1, caps, &bus);
      push_stream (h, &first);
      push_stream (h, &second);
      runs[i] = collect_messages (bus);
      harness_free (h, bus);
    }
    fail_unless_equals_int (runs[0]->len, 8);
    compare_runs (runs[0], runs[1], TOL_VS_SPECTRUM_DB);
    g_ptr_array_unref (runs[0]);
    g_ptr_array_unref (runs[1]);
    g_free (l1);
    g_free (l2);
  }

  /* mid-interval: 1500 frames, then DISCONT; with async-messages the
   * restart reaches the levels through the chunks' order */
  first.frames = 1500;
  first.sizes = odd;
  second.data = data + 1500 * bpf;
  second.frames = frames - 1500;
  second.first_frame = 1500;
  tail = analyse ("clfftspectrum interval=31750000", caps, &second);
  for (i = 0; i < 2; i++) {
    const gchar *launch = i ? "clfftspectrum interval=31750000" ASYNC :
        "clfftspectrum interval=31750000";
    guint j;

    h = harness_new (launch, caps, &bus);
    push_stream (h, &first);
    push_stream (h, &second);
    end_stream (h, launch);
    got = collect_messages (bus);
    harness_free (h, bus);

    /* one message from before the discontinuity, then the tail's */
    fail_unless_equals_int (got->len, 1 + tail->len);
    ref = g_ptr_array_new ();
    for (j = 1; j < got->len; j++)
      g_ptr_array_add (ref, g_ptr_array_index (got, j));
    compare_runs (tail, ref, 1e-3);
    g_ptr_array_unref (ref);
    g_ptr_array_unref (got);
  }
  g_ptr_array_unref (tail);
  g_free (caps);
  g_free (data);
  g_free (x);
}

GST_END_TEST;

/* bands=8192: the FFT length 16382 = 2 * 8191 has a large prime factor;
 * spectrum gets slow, clfftspectrum must stay faster than real time and
 * agree with it. */
GST_START_TEST (test_large_prime_bands)
{
  static const guint sizes[] = { 4410, 0 };
  const guint rate = 44100;
  guint frames = 3 * 16382, bpf;
  gdouble *x = make_signal (10 * rate, 1, rate, 7);
  guint8 *data = to_format (x, 10 * rate, 1, GST_AUDIO_FORMAT_F32, &bpf);
  gchar *caps = audio_caps (GST_AUDIO_FORMAT_F32, rate, 1);
  Stream s = { data, frames, bpf, rate, sizes, 0, TRUE };
  GPtrArray *got;
  gint64 t0, t1;
  gdouble secs;

  /* against spectrum on 3 FFTs (one per 0.4 s interval) */
  compare_with_spectrum ("bands=8192 interval=400000000", caps, &s);

  /* 10 s of audio, after the plans exist: one message per interval. The
   * time is printed for the log; speed is judged by tests/bench, not here. */
  s.frames = 10 * rate;
  t0 = g_get_monotonic_time ();
  got = analyse ("clfftspectrum bands=8192 interval=100000000", caps, &s);
  t1 = g_get_monotonic_time ();
  secs = (t1 - t0) / 1e6;
  GST_INFO ("bands=8192: 10 s of audio in %.3f s (%.1fx real time)", secs,
      10.0 / secs);
  g_print ("bands=8192: 10 s of 44.1 kHz audio analysed in %.3f s "
      "(%.1fx real time)\n", secs, 10.0 / secs);
  fail_unless_equals_int (got->len, 100);
  g_ptr_array_unref (got);
  g_free (caps);
  g_free (data);
  g_free (x);
}

GST_END_TEST;

/* Caps and property changes mid-stream re-plan: after each change the
 * messages are those of a fresh element on the new stream. */
GST_START_TEST (test_caps_and_property_changes)
{
  static const guint sizes[] = { 1016, 0 };
  const guint frames = 4 * 1016;
  gdouble *x = make_signal (frames, 2, 32000, 8);
  guint bpf1, bpf2;
  guint8 *d1 = to_format (x, frames, 2, GST_AUDIO_FORMAT_S16, &bpf1);
  guint8 *d2 = to_format (x, frames, 1, GST_AUDIO_FORMAT_F32, &bpf2);
  gchar *c1 = audio_caps (GST_AUDIO_FORMAT_S16, 32000, 2);
  gchar *c2 = audio_caps (GST_AUDIO_FORMAT_F32, 16000, 1);
  Stream s1 = { d1, frames, bpf1, 32000, sizes, 0, TRUE };
  Stream s2 = { d2, frames, bpf2, 16000, sizes, 0, TRUE };
  GPtrArray *fresh1, *fresh2, *fresh3, *got;
  GstElement *el;
  GstBus *bus;
  GstHarness *h;

  fresh1 = analyse ("clfftspectrum interval=31750000", c1, &s1);
  fresh2 = analyse ("clfftspectrum bands=64 interval=63500000", c2, &s2);
  fresh3 = analyse ("clfftspectrum multi-channel=true interval=31750000", c1,
      &s1);

  h = harness_new ("clfftspectrum interval=31750000", c1, &bus);
  el = gst_harness_find_element (h, "clfftspectrum");
  push_stream (h, &s1);
  got = collect_messages (bus);
  compare_runs (fresh1, got, 1e-3);
  g_ptr_array_unref (got);

  /* new caps, then new properties */
  gst_harness_set_src_caps_str (h, c2);
  g_object_set (el, "bands", 64, "interval", (guint64) 63500000, NULL);
  push_stream (h, &s2);
  got = collect_messages (bus);
  compare_runs (fresh2, got, 1e-3);
  g_ptr_array_unref (got);

  /* properties first, then the old caps back */
  g_object_set (el, "bands", 128, "interval", (guint64) 31750000, NULL);
  gst_harness_set_src_caps_str (h, c1);
  push_stream (h, &s1);
  got = collect_messages (bus);
  compare_runs (fresh1, got, 1e-3);
  g_ptr_array_unref (got);

  /* multi-channel switched on between streams */
  g_object_set (el, "multi-channel", TRUE, NULL);
  push_stream (h, &s1);
  got = collect_messages (bus);
  compare_runs (fresh3, got, 1e-3);
  g_ptr_array_unref (got);

  gst_object_unref (el);
  harness_free (h, bus);
  g_ptr_array_unref (fresh1);
  g_ptr_array_unref (fresh2);
  g_ptr_array_unref (fresh3);
  g_free (c1);
  g_free (c2);
  g_free (d1);
  g_free (d2);
  g_free (x);
}

GST_END_TEST;

/* Flushing drops the interval in progress; state changes down to NULL
 * and back start afresh. */
/* Pushes s, stops the element and compares its messages with want.
 * Stopping waits for async-messages' messages too (EOS would stay on the
 * harness's pad across the state changes). */
static void
push_and_stop (GstHarness * h, const Stream * s, GstBus * bus, GPtrArray * want)
{
  GPtrArray *got;

  push_stream (h, s);
  fail_unless_equals_int (gst_element_set_state (h->element,
          GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
  got = collect_messages (bus);
  compare_runs (want, got, 1e-3);
  g_ptr_array_unref (got);
}

GST_START_TEST (test_flush_and_state_changes)
{
  static const guint sizes[] = { 1016, 0 };
  const guint rate = 32000, frames = 4 * 1016;
  gdouble *x = make_signal (frames, 1, rate, 9);
  guint bpf, i;
  guint8 *data = to_format (x, frames, 1, GST_AUDIO_FORMAT_F32, &bpf);
  gchar *caps = audio_caps (GST_AUDIO_FORMAT_F32, rate, 1);
  Stream half = { data, 500, bpf, rate, sizes, 0, TRUE };
  Stream s = { data, frames, bpf, rate, sizes, 0, FALSE };
  GPtrArray *fresh = analyse ("clfftspectrum interval=31750000", caps, &s);
  GstBus *bus;
  GstHarness *h;
  GstSegment seg;
  guint mode;

  for (mode = 0; mode < 2; mode++) {
    const gchar *launch = mode ? "clfftspectrum interval=31750000" ASYNC :
        "clfftspectrum interval=31750000";

    h = harness_new (launch, caps, &bus);
    push_stream (h, &half);
    fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
    fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
    gst_segment_init (&seg, GST_FORMAT_TIME);
    fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
    /* no DISCONT flag: the flush alone must restart the interval (the
     * messages of the half stream before it: none, or the same) */
    push_and_stop (h, &s, bus, fresh);

    for (i = 0; i < 3; i++) {
      gst_harness_play (h);
      gst_harness_set_src_caps_str (h, caps);
      gst_segment_init (&seg, GST_FORMAT_TIME);
      gst_harness_push_event (h, gst_event_new_segment (&seg));
      push_and_stop (h, &s, bus, fresh);
    }
    harness_free (h, bus);
  }
  g_ptr_array_unref (fresh);
  g_free (caps);
  g_free (data);
  g_free (x);
}

GST_END_TEST;

/* post-messages=false posts nothing; an element works in a real pipeline
 * with audiotestsrc. */
static void
run_pipeline (const gchar * props)
{
  gchar *launch = g_strdup_printf ("audiotestsrc num-buffers=20 freq=3000 "
      "samplesperbuffer=1024 ! audio/x-raw,rate=48000,format=S16LE ! "
      "clfftspectrum bands=48 interval=50000000 %s ! fakesink", props);
  GstElement *p = gst_parse_launch (launch, NULL);
  GstBus *bus = gst_element_get_bus (p);
  GstMessage *msg;
  guint count = 0;
  gboolean eos = FALSE;

  fail_unless_equals_int (gst_element_set_state (p, GST_STATE_PLAYING),
      GST_STATE_CHANGE_ASYNC);
  while (!eos && (msg = gst_bus_timed_pop (bus, 30 * GST_SECOND))) {
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR)
      fail ("pipeline error");
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS)
      eos = TRUE;
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ELEMENT) {
      const GstStructure *s = gst_message_get_structure (msg);
      if (gst_structure_has_name (s, "spectrum")) {
        /* 3000 Hz on bins of 48000 / 94 Hz: band 5.875 -> 6 */
        fail_unless_equals_int (peak_band (s, 0, 48), 6);
        count++;
      }
    }
    gst_message_unref (msg);
  }
  fail_unless (eos);
  /* 20 x 1024 frames at 48 kHz = 426 ms: 8 whole intervals of 50 ms,
   * all before EOS */
  fail_unless_equals_int (count, 8);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (p);
  g_free (launch);
}

GST_START_TEST (test_pipeline)
{
  run_pipeline ("");
  run_pipeline (ASYNC);
}

GST_END_TEST;

/* No device: the state change fails with an error naming the cause. Out of
 * device memory at negotiation: an error, not a crash, and the element
 * works again after new caps. */
GST_START_TEST (test_errors)
{
  GstElement *p = gst_parse_launch ("audiotestsrc num-buffers=1 ! "
      "clfftspectrum device=no-such-opencl-device-xyz ! fakesink", NULL);
  GstBus *bus = gst_element_get_bus (p);
  GstMessage *msg;
  GError *err = NULL;
  static const guint sizes[] = { 1016, 0 };
  gdouble *x = make_signal (2032, 1, 32000, 10);
  guint bpf;
  guint8 *data = to_format (x, 2032, 1, GST_AUDIO_FORMAT_F32, &bpf);
  gchar *caps = audio_caps (GST_AUDIO_FORMAT_F32, 32000, 1);
  Stream s = { data, 2032, bpf, 32000, sizes, 0, TRUE };
  GstHarness *h;
  GPtrArray *got;

  fail_unless_equals_int (gst_element_set_state (p, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (err->domain == GST_RESOURCE_ERROR);
  fail_unless (strstr (err->message, "OpenCL") != NULL);
  g_error_free (err);
  gst_message_unref (msg);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (p);

  h = gst_harness_new_parse ("clfftspectrum interval=31750000");
  bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  clf_debug_fail_alloc_after (0);
  /* a sticky event counts as pushed once stored: check the bus instead */
  {
    GstCaps *c = gst_caps_from_string (caps);
    gst_harness_push_event (h, gst_event_new_caps (c));
    gst_caps_unref (c);
  }
  clf_debug_fail_alloc_after (-1);
  {
    GstSegment seg;
    gst_segment_init (&seg, GST_FORMAT_TIME);
    gst_harness_push_event (h, gst_event_new_segment (&seg));
  }
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no error for a failed allocation");
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (g_error_matches (err, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_NO_SPACE_LEFT), "%s", err->message);
  g_error_free (err);
  gst_message_unref (msg);

  /* the pad re-sends the caps it could not deliver with the next buffer:
   * negotiation succeeds now and the analysis runs */
  push_stream (h, &s);
  got = collect_messages (bus);
  fail_unless_equals_int (got->len, 2);
  g_ptr_array_unref (got);
  harness_free (h, bus);
  g_free (caps);
  g_free (data);
  g_free (x);
}

GST_END_TEST;

static Suite *
clfftspectrum_suite (void)
{
  Suite *s = suite_create ("clfftspectrum");
  TCase *tc = tcase_create ("audio");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_properties_match_spectrum);
  tcase_add_test (tc, test_messages_like_spectrum);
  tcase_add_test (tc, test_phase_like_spectrum);
  tcase_add_test (tc, test_formats);
  tcase_add_test (tc, test_intervals_across_buffers);
  tcase_add_test (tc, test_sine_peak);
  tcase_add_test (tc, test_multichannel);
  tcase_add_test (tc, test_window_overlap_log);
  tcase_add_test (tc, test_log_scale_sine);
  tcase_add_test (tc, test_discont);
  tcase_add_test (tc, test_large_prime_bands);
  tcase_add_test (tc, test_caps_and_property_changes);
  tcase_add_test (tc, test_flush_and_state_changes);
  tcase_add_test (tc, test_pipeline);
  tcase_add_test (tc, test_errors);
  return s;
}

GST_CHECK_MAIN (clfftspectrum);

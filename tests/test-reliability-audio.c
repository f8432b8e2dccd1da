/* test-reliability-audio.c: clfftconvolve and clfftspectrum on unusual audio: 1..64 channels, 1 Hz..384 kHz, caps changes, odd buffers, seeks and empty streams. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/audio/audio.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

/* clfftconvolve against a direct double-precision convolution: float32
 * FFTs of 2*block points add ~1e-7 * log2(2*block) relative error per
 * transform, and the partition sum adds ~1e-7 per partition; 1e-5
 * relative RMS leaves a margin of 5-10 over that for the sizes here. */
#define MAX_REL_RMS 1e-5
/* clfftspectrum against GStreamer's spectrum (kissfft, float32), as the
 * drop-in test asks. */
#define TOL_VS_SPECTRUM_DB 0.1

/* ---- signals ------------------------------------------------------------ */

static guint32
xorshift (guint32 * s)
{
  *s ^= *s << 13;
  *s ^= *s >> 17;
  *s ^= *s << 5;
  return *s;
}

/* frames x channels samples in [-0.9, 0.9]: a sine per channel at a
 * different frequency plus noise, so channels differ. */
static gdouble *
make_signal (guint frames, guint channels, guint seed)
{
  gdouble *x = g_new (gdouble, (gsize) frames * channels);
  guint32 s = seed * 2654435761u + 1;
  gsize i;

  for (i = 0; i < (gsize) frames * channels; i++) {
    guint c = i % channels;
    gdouble n = (xorshift (&s) / 4294967296.0) * 2.0 - 1.0;
    x[i] = 0.6 * sin (0.05 * (c + 1) * (i / channels) + c) + 0.3 * n;
  }
  return x;
}

/* A response of n taps, decaying, alternating in sign. */
static gdouble *
make_ir (guint n, guint seed)
{
  gdouble *h = g_new (gdouble, n);
  guint32 s = seed + 7;
  guint i;

  for (i = 0; i < n; i++)
    h[i] = exp (-3.0 * i / n) * ((xorshift (&s) / 4294967296.0) - 0.5);
  h[0] = 0.8;
  return h;
}

/* y = x * h per channel (h with 1 or `channels` channels), full length
 * frames + taps - 1. */
static gdouble *
direct_convolution (const gdouble * x, guint frames, guint channels,
    const gdouble * h, guint taps, guint h_channels)
{
  guint n = frames + taps - 1, i, k, c;
  gdouble *y = g_new0 (gdouble, (gsize) n * channels);

  for (i = 0; i < n; i++)
    for (c = 0; c < channels; c++) {
      gdouble acc = 0.0;
      for (k = 0; k < taps && k <= i; k++)
        if (i - k < frames)
          acc += h[(gsize) k * h_channels + (h_channels > 1 ? c : 0)] *
              x[(gsize) (i - k) * channels + c];
      y[(gsize) i * channels + c] = acc;
    }
  return y;
}

static gdouble
rel_rms (const gdouble * got, const gdouble * ref, gsize n)
{
  gdouble num = 0.0, den = 0.0;
  gsize i;

  for (i = 0; i < n; i++) {
    num += (got[i] - ref[i]) * (got[i] - ref[i]);
    den += ref[i] * ref[i];
  }
  return den > 0.0 ? sqrt (num / den) : sqrt (num);
}

static gchar *
f32_caps (guint rate, guint channels)
{
  return g_strdup_printf ("audio/x-raw,format=" GST_AUDIO_NE (F32)
      ",layout=interleaved,rate=%u,channels=%u%s", rate, channels,
      channels > 2 ? ",channel-mask=(bitmask)0" : "");
}

/* ---- buffers ------------------------------------------------------------ */

typedef enum
{
  BUF_PLAIN = 0,
  BUF_DISCONT = 1 << 0,
  BUF_GAP = 1 << 1,             /* flagged GAP, samples zero */
  BUF_NO_TS = 1 << 2,           /* no PTS, no duration, no offsets */
  BUF_EXTRA_BYTES = 1 << 3      /* 3 bytes more than whole frames */
} BufFlags;

/* Frames [first, first + n) of x (F32, channels) as a buffer timestamped
 * from frame 0 at t = 0 unless told otherwise. */
static GstBuffer *
make_buffer (const gdouble * x, guint channels, guint rate, guint64 first,
    guint n, BufFlags flags)
{
  gsize bytes = (gsize) n * channels * sizeof (gfloat);
  GstBuffer *buf = gst_buffer_new_allocate (NULL, bytes +
      (flags & BUF_EXTRA_BYTES ? 3 : 0), NULL);
  GstMapInfo map;
  gsize i;

  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  if (map.size > 0)             /* an empty buffer maps to NULL */
    memset (map.data, 0, map.size);
  if (!(flags & BUF_GAP))
    for (i = 0; i < (gsize) n * channels; i++)
      ((gfloat *) map.data)[i] = x[first * channels + i];
  gst_buffer_unmap (buf, &map);
  if (!(flags & BUF_NO_TS)) {
    GST_BUFFER_PTS (buf) = gst_util_uint64_scale (first, GST_SECOND, rate);
    GST_BUFFER_DURATION (buf) = gst_util_uint64_scale (first + n,
        GST_SECOND, rate) - GST_BUFFER_PTS (buf);
    GST_BUFFER_OFFSET (buf) = first;
    GST_BUFFER_OFFSET_END (buf) = first + n;
  }
  if (flags & BUF_DISCONT)
    GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
  if (flags & BUF_GAP)
    GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_GAP);
  return buf;
}

/* Output of a harness, as doubles, with the timestamps seen. */
typedef struct
{
  GArray *samples;
  GArray *pts;                  /* GstClockTime of each buffer */
  GArray *frames;               /* guint frames of each buffer */
} Output;

static void
output_init (Output * o)
{
  o->samples = g_array_new (FALSE, FALSE, sizeof (gdouble));
  o->pts = g_array_new (FALSE, FALSE, sizeof (GstClockTime));
  o->frames = g_array_new (FALSE, FALSE, sizeof (guint));
}

static void
output_clear (Output * o)
{
  g_array_free (o->samples, TRUE);
  g_array_free (o->pts, TRUE);
  g_array_free (o->frames, TRUE);
}

static void
pull_f32 (GstHarness * h, Output * o, guint channels)
{
  GstBuffer *b;

  while ((b = gst_harness_try_pull (h))) {
    GstMapInfo map;
    guint n, i;

    gst_buffer_map (b, &map, GST_MAP_READ);
    fail_unless (map.size % (channels * sizeof (gfloat)) == 0,
        "output of %" G_GSIZE_FORMAT " bytes for %u channels", map.size,
        channels);
    n = map.size / (channels * sizeof (gfloat));
    for (i = 0; i < n * channels; i++) {
      gdouble v = ((const gfloat *) map.data)[i];
      g_array_append_val (o->samples, v);
    }
    g_array_append_val (o->pts, GST_BUFFER_PTS (b));
    g_array_append_val (o->frames, n);
    gst_buffer_unmap (b, &map);
    gst_buffer_unref (b);
  }
}

/* ---- clfftconvolve ------------------------------------------------------- */

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

static GstHarness *
convolve_harness (guint rate, guint channels, const gdouble * h, guint taps,
    guint block)
{
  GstHarness *hn = gst_harness_new ("clfftconvolve");
  gchar *caps = f32_caps (rate, channels);

  set_ir (hn->element, h, taps);
  g_object_set (hn->element, "block-size", block, NULL);
  gst_harness_set_caps_str (hn, caps, caps);
  g_free (caps);
  return hn;
}

/* Pushes frames of x in buffers of the given sizes (cycled), all with
 * flags, then EOS; returns the output. */
static void
convolve_run (GstHarness * h, const gdouble * x, guint frames, guint channels,
    guint rate, const guint * sizes, guint n_sizes, BufFlags flags, Output * o)
{
  guint64 pos = 0;
  guint k = 0;

  while (pos < frames) {
    guint n = MIN (sizes[k % n_sizes], frames - pos);
    fail_unless_equals_int (gst_harness_push (h, make_buffer (x, channels,
                rate, pos, n, flags | (pos == 0 ? BUF_DISCONT : 0))),
        GST_FLOW_OK);
    pull_f32 (h, o, channels);
    pos += n;
    k++;
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  pull_f32 (h, o, channels);
}

static void
check_convolution (const Output * o, const gdouble * x, guint frames,
    guint channels, const gdouble * h, guint taps, guint h_channels,
    const gchar * what)
{
  gdouble *ref = direct_convolution (x, frames, channels, h, taps,
      h_channels);
  gsize n = (gsize) (frames + taps - 1) * channels;
  gdouble err;

  fail_unless_equals_int (o->samples->len, n);
  err = rel_rms ((const gdouble *) o->samples->data, ref, n);
  fail_unless (err <= MAX_REL_RMS, "%s: relative RMS error %g", what, err);
  GST_INFO ("%s: relative RMS error %.3g", what, err);
  g_free (ref);
}

/* Output timestamps follow the sample count from the first input's. */
static void
check_timestamps (const Output * o, guint rate, const gchar * what)
{
  guint64 pos = 0;
  guint i;

  for (i = 0; i < o->pts->len; i++) {
    fail_unless_equals_uint64 (g_array_index (o->pts, GstClockTime, i),
        gst_util_uint64_scale_int (pos, GST_SECOND, rate));
    pos += g_array_index (o->frames, guint, i);
  }
  fail_unless (o->pts->len > 0, "%s: no output", what);
}

/* 1 to 64 channels, one response for all. */
GST_START_TEST (test_convolve_channels)
{
  static const guint channel_counts[] = { 1, 2, 3, 5, 8, 63, 64 };
  static const guint sizes[] = { 300, 17, 1000 };
  gdouble *h = make_ir (150, 1);
  guint i;

  for (i = 0; i < G_N_ELEMENTS (channel_counts); i++) {
    guint ch = channel_counts[i], frames = 1500;
    gdouble *x = make_signal (frames, ch, ch);
    GstHarness *hn = convolve_harness (48000, ch, h, 150, 64);
    gchar *what = g_strdup_printf ("%u channels", ch);
    Output o;

    output_init (&o);
    convolve_run (hn, x, frames, ch, 48000, sizes, 3, BUF_PLAIN, &o);
    check_convolution (&o, x, frames, ch, h, 150, 1, what);
    check_timestamps (&o, 48000, what);
    output_clear (&o);
    gst_harness_teardown (hn);
    g_free (what);
    g_free (x);
  }
  g_free (h);
}

GST_END_TEST;

/* Writes a float32 WAV of frames x channels samples. */
static void
write_f32_wav (const gchar * path, const gdouble * s, guint frames,
    guint channels, guint rate)
{
  GString *w = g_string_new ("RIFF");
  guint32 data_bytes = frames * channels * 4, v32;
  guint16 v16;
  gsize i;

#define PUT32(v) (v32 = GUINT32_TO_LE (v), g_string_append_len (w, (gchar *) &v32, 4))
#define PUT16(v) (v16 = GUINT16_TO_LE (v), g_string_append_len (w, (gchar *) &v16, 2))
  PUT32 (36 + data_bytes);
  g_string_append (w, "WAVEfmt ");
  PUT32 (16);
  PUT16 (3);                    /* IEEE float */
  PUT16 (channels);
  PUT32 (rate);
  PUT32 (rate * channels * 4);
  PUT16 (channels * 4);
  PUT16 (32);
  g_string_append (w, "data");
  PUT32 (data_bytes);
  for (i = 0; i < (gsize) frames * channels; i++) {
    gfloat f = s[i];
    guint32 u;
    memcpy (&u, &f, 4);
    PUT32 (u);
  }
#undef PUT32
#undef PUT16
  fail_unless (g_file_set_contents (path, w->str, w->len, NULL));
  g_string_free (w, TRUE);
}

/* 64 channels, each with its own response from a 64-channel WAV. */
GST_START_TEST (test_convolve_64_channel_responses)
{
  const guint ch = 64, taps = 40, frames = 700;
  gdouble *h = g_new (gdouble, taps * ch);
  gdouble *x = make_signal (frames, ch, 3);
  gchar *path = g_build_filename (g_get_tmp_dir (), "clfft-rel-ir64.wav",
      NULL);
  gchar *caps = f32_caps (48000, ch);
  static const guint sizes[] = { 129 };
  GstHarness *hn = gst_harness_new ("clfftconvolve");
  Output o;
  guint i;

  for (i = 0; i < taps * ch; i++)
    h[i] = ((i % ch) + 1) * 0.01 * cos (i * 0.37);
  write_f32_wav (path, h, taps, ch, 48000);
  g_object_set (hn->element, "ir-location", path, "block-size", 32, NULL);
  gst_harness_set_caps_str (hn, caps, caps);
  output_init (&o);
  convolve_run (hn, x, frames, ch, 48000, sizes, 1, BUF_PLAIN, &o);
  check_convolution (&o, x, frames, ch, h, taps, ch, "64 channel responses");
  output_clear (&o);
  gst_harness_teardown (hn);
  g_unlink (path);
  g_free (path);
  g_free (caps);
  g_free (x);
  g_free (h);
}

GST_END_TEST;

/* From 1 Hz to 384 kHz: the same samples, timestamps and latency follow
 * the rate (at 1 Hz a 64-frame block is 64 s of latency). */
GST_START_TEST (test_convolve_rates)
{
  static const guint rates[] = { 1, 2, 7, 8000, 44100, 384000 };
  static const guint sizes[] = { 1, 50, 333 };
  gdouble *h = make_ir (90, 2);
  gdouble *x = make_signal (1200, 2, 5);
  guint i;

  for (i = 0; i < G_N_ELEMENTS (rates); i++) {
    GstHarness *hn = convolve_harness (rates[i], 2, h, 90, 64);
    gchar *what = g_strdup_printf ("%u Hz", rates[i]);
    Output o;

    output_init (&o);
    convolve_run (hn, x, 1200, 2, rates[i], sizes, 3, BUF_PLAIN, &o);
    check_convolution (&o, x, 1200, 2, h, 90, 1, what);
    check_timestamps (&o, rates[i], what);
    fail_unless_equals_uint64 (gst_harness_query_latency (hn),
        gst_util_uint64_scale_int_round (64, GST_SECOND, rates[i]));
    output_clear (&o);
    gst_harness_teardown (hn);
    g_free (what);
  }
  g_free (x);
  g_free (h);
}

GST_END_TEST;

/* Odd buffers: every buffer one sample; empty buffers between; buffers
 * without timestamps; GAP buffers (zeros, convolved as silence). The
 * result is the convolution of the concatenated samples each time. */
GST_START_TEST (test_convolve_odd_buffers)
{
  const guint frames = 700, ch = 2, taps = 70;
  gdouble *h = make_ir (taps, 3);
  gdouble *x = make_signal (frames, ch, 9);
  static const guint one[] = { 1 };
  static const guint mixed[] = { 100, 3, 64, 1, 250 };
  GstHarness *hn;
  Output o;
  guint64 pos;

  /* one sample per buffer */
  hn = convolve_harness (16000, ch, h, taps, 32);
  output_init (&o);
  convolve_run (hn, x, frames, ch, 16000, one, 1, BUF_PLAIN, &o);
  check_convolution (&o, x, frames, ch, h, taps, 1, "one-sample buffers");
  check_timestamps (&o, 16000, "one-sample buffers");
  output_clear (&o);
  gst_harness_teardown (hn);

  /* no timestamps at all: same samples, output without timestamps */
  hn = convolve_harness (16000, ch, h, taps, 32);
  output_init (&o);
  convolve_run (hn, x, frames, ch, 16000, mixed, 5, BUF_NO_TS, &o);
  check_convolution (&o, x, frames, ch, h, taps, 1, "no timestamps");
  for (guint i = 0; i < o.pts->len; i++)
    fail_if (GST_CLOCK_TIME_IS_VALID (g_array_index (o.pts, GstClockTime,
                i)), "output buffer %u has a timestamp", i);
  output_clear (&o);
  gst_harness_teardown (hn);

  /* empty buffers (with and without timestamps) between real ones */
  hn = convolve_harness (16000, ch, h, taps, 32);
  output_init (&o);
  for (pos = 0; pos < frames; pos += 100) {
    fail_unless_equals_int (gst_harness_push (hn, make_buffer (x, ch, 16000,
                pos, 0, pos ? BUF_PLAIN : BUF_DISCONT)), GST_FLOW_OK);
    fail_unless_equals_int (gst_harness_push (hn, make_buffer (x, ch, 16000,
                pos, 100, BUF_PLAIN)), GST_FLOW_OK);
    fail_unless_equals_int (gst_harness_push (hn, make_buffer (x, ch, 16000,
                pos + 100, 0, BUF_NO_TS)), GST_FLOW_OK);
    pull_f32 (hn, &o, ch);
  }
  fail_unless (gst_harness_push_event (hn, gst_event_new_eos ()));
  pull_f32 (hn, &o, ch);
  check_convolution (&o, x, frames, ch, h, taps, 1, "empty buffers");
  check_timestamps (&o, 16000, "empty buffers");
  output_clear (&o);
  gst_harness_teardown (hn);

  /* GAP buffers in the middle carry silence: the reference sees zeros */
  {
    gdouble *xg = g_memdup2 (x, sizeof (gdouble) * frames * ch);
    hn = convolve_harness (16000, ch, h, taps, 32);
    output_init (&o);
    for (pos = 0; pos < frames; pos += 100) {
      BufFlags f = (pos / 100) % 3 == 1 ? BUF_GAP : BUF_PLAIN;
      if (f & BUF_GAP)
        memset (xg + pos * ch, 0, sizeof (gdouble) * 100 * ch);
      fail_unless_equals_int (gst_harness_push (hn, make_buffer (x, ch,
                  16000, pos, 100, f | (pos ? 0 : BUF_DISCONT))), GST_FLOW_OK);
      pull_f32 (hn, &o, ch);
    }
    fail_unless (gst_harness_push_event (hn, gst_event_new_eos ()));
    pull_f32 (hn, &o, ch);
    check_convolution (&o, xg, frames, ch, h, taps, 1, "GAP buffers");
    check_timestamps (&o, 16000, "GAP buffers");
    output_clear (&o);
    gst_harness_teardown (hn);
    g_free (xg);
  }

  g_free (x);
  g_free (h);
}

GST_END_TEST;

/* A buffer that ends in a partial frame: the whole frames are convolved
 * and the partial one is dropped (its bytes are not a sample). */
GST_START_TEST (test_convolve_partial_frame)
{
  const guint frames = 400, ch = 2, taps = 30;
  gdouble *h = make_ir (taps, 4);
  gdouble *x = make_signal (frames, ch, 11);
  static const guint sizes[] = { 77 };
  GstHarness *hn = convolve_harness (8000, ch, h, taps, 16);
  Output o;

  output_init (&o);
  convolve_run (hn, x, frames, ch, 8000, sizes, 1, BUF_EXTRA_BYTES, &o);
  check_convolution (&o, x, frames, ch, h, taps, 1, "partial frames");
  check_timestamps (&o, 8000, "partial frames");
  output_clear (&o);
  gst_harness_teardown (hn);
  g_free (x);
  g_free (h);
}

GST_END_TEST;

/* Renegotiation mid-stream: rate, channel count and then format change;
 * each run's tail comes out in its own format before the next, and each
 * run is convolved from silence. */
GST_START_TEST (test_convolve_renegotiation)
{
  const guint taps = 50;
  gdouble *h = make_ir (taps, 5);
  static const guint rates[] = { 48000, 44100, 44100 };
  static const guint chans[] = { 2, 2, 5 };
  static const guint sizes[] = { 128, 7 };
  GstHarness *hn = gst_harness_new ("clfftconvolve");
  guint r;

  set_ir (hn->element, h, taps);
  g_object_set (hn->element, "block-size", 32, NULL);
  for (r = 0; r < 3; r++) {
    guint frames = 300 + 100 * r, ch = chans[r];
    gdouble *x = make_signal (frames, ch, 20 + r);
    gchar *caps = f32_caps (rates[r], ch);
    gchar *what = g_strdup_printf ("run %u (%u Hz, %u channels)", r,
        rates[r], ch);
    guint64 pos = 0;
    guint k = 0;
    Output o;

    gst_harness_set_caps_str (hn, caps, caps);
    /* what the previous caps still held came out at the caps change */
    output_init (&o);
    pull_f32 (hn, &o, ch);
    fail_unless_equals_int (o.samples->len, 0);
    while (pos < frames) {
      guint n = MIN (sizes[k++ % 2], frames - pos);
      fail_unless_equals_int (gst_harness_push (hn, make_buffer (x, ch,
                  rates[r], pos, n, pos ? 0 : BUF_DISCONT)), GST_FLOW_OK);
      pull_f32 (hn, &o, ch);
      pos += n;
    }
    if (r == 2)
      fail_unless (gst_harness_push_event (hn, gst_event_new_eos ()));
    else {
      /* the next caps make this run ring out: pull it once they are set */
      gchar *next = f32_caps (rates[r + 1], chans[r + 1]);
      gst_harness_set_caps_str (hn, next, next);
      g_free (next);
    }
    pull_f32 (hn, &o, ch);
    check_convolution (&o, x, frames, ch, h, taps, 1, what);
    output_clear (&o);
    g_free (what);
    g_free (caps);
    g_free (x);
  }
  gst_harness_teardown (hn);
  g_free (h);
}

GST_END_TEST;

/* ---- a real pipeline with a flushing seek --------------------------------- */

/* filesrc ! wavparse ! clfftconvolve ! appsink: after a flushing seek to
 * frame S the output is the convolution of x[S..] alone, from S's
 * timestamp. */
GST_START_TEST (test_convolve_flush_seek)
{
  const guint rate = 8000, frames = 8000, taps = 40, seek_frame = 4000;
  gdouble *h = make_ir (taps, 6);
  gdouble *x = make_signal (frames, 1, 12);
  gchar *path = g_build_filename (g_get_tmp_dir (), "clfft-rel-seek.wav",
      NULL);
  gchar *desc;
  GstElement *pipe, *conv, *sink;
  GstMessage *msg;
  Output o;
  gdouble *ref;
  guint i, got = 0;

  write_f32_wav (path, x, frames, 1, rate);
  desc = g_strdup_printf ("filesrc location=%s ! wavparse ! clfftconvolve "
      "name=c block-size=64 ! appsink name=s sync=false", path);
  pipe = gst_parse_launch (desc, NULL);
  fail_unless (pipe != NULL);
  conv = gst_bin_get_by_name (GST_BIN (pipe), "c");
  sink = gst_bin_get_by_name (GST_BIN (pipe), "s");
  set_ir (conv, h, taps);
  g_object_set (sink, "max-buffers", 1, NULL);

  fail_unless (gst_element_set_state (pipe, GST_STATE_PAUSED) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless (gst_element_get_state (pipe, NULL, NULL, GST_CLOCK_TIME_NONE)
      == GST_STATE_CHANGE_SUCCESS);
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  /* some output first, so the seek lands mid-stream */
  for (i = 0; i < 3; i++) {
    GstSample *s = NULL;
    g_signal_emit_by_name (sink, "pull-sample", &s);
    fail_unless (s != NULL);
    gst_sample_unref (s);
  }
  fail_unless (gst_element_seek_simple (pipe, GST_FORMAT_TIME,
          GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE,
          gst_util_uint64_scale (seek_frame, GST_SECOND, rate)));
  output_init (&o);
  ref = direct_convolution (x + seek_frame, frames - seek_frame, 1, h, taps, 1);
  for (;;) {
    GstSample *s = NULL;
    GstBuffer *b;
    GstMapInfo map;

    g_signal_emit_by_name (sink, "pull-sample", &s);
    if (!s)
      break;
    b = gst_sample_get_buffer (s);
    /* buffers from before the seek may still be on their way */
    if (GST_BUFFER_PTS (b) < gst_util_uint64_scale (seek_frame, GST_SECOND,
            rate)) {
      fail_unless (got == 0, "old output after the seek's output");
      gst_sample_unref (s);
      continue;
    }
    if (got == 0)
      fail_unless_equals_uint64 (GST_BUFFER_PTS (b),
          gst_util_uint64_scale (seek_frame, GST_SECOND, rate));
    gst_buffer_map (b, &map, GST_MAP_READ);
    for (i = 0; i < map.size / sizeof (gfloat); i++) {
      gdouble v = ((const gfloat *) map.data)[i];
      g_array_append_val (o.samples, v);
    }
    got += map.size / sizeof (gfloat);
    gst_buffer_unmap (b, &map);
    gst_sample_unref (s);
  }
  msg = gst_bus_pop_filtered (GST_ELEMENT_BUS (pipe), GST_MESSAGE_ERROR);
  fail_unless (msg == NULL, "error in the pipeline");
  fail_unless_equals_int (o.samples->len, frames - seek_frame + taps - 1);
  fail_unless (rel_rms ((const gdouble *) o.samples->data, ref,
          o.samples->len) <= MAX_REL_RMS);

  gst_element_set_state (pipe, GST_STATE_NULL);
  output_clear (&o);
  g_free (ref);
  gst_object_unref (conv);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  g_unlink (path);
  g_free (path);
  g_free (desc);
  g_free (x);
  g_free (h);
}

GST_END_TEST;

/* ---- streams without data ------------------------------------------------- */

/* Runs a launch line to its end; returns TRUE on EOS, FALSE with *error
 * set on an error message. */
static gboolean
run_to_end (const gchar * launch, GError ** error)
{
  GstElement *pipe = gst_parse_launch (launch, NULL);
  GstMessage *msg;
  gboolean eos;

  fail_unless (pipe != NULL, "%s", launch);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipe), 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "%s: no EOS or error within 60 s", launch);
  eos = GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS;
  if (!eos && error)
    gst_message_parse_error (msg, error, NULL);
  gst_message_unref (msg);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
  return eos;
}

/* EOS before any data, with and without caps, for both elements and both
 * media: EOS passes, nothing else comes out, no error. */
GST_START_TEST (test_eos_without_data)
{
  static const gchar *lines[] = {
    "audiotestsrc num-buffers=0 ! clfftconvolve impulse-response=\"<0.5>\" "
        "! fakesink",
    "audiotestsrc num-buffers=0 ! clfftspectrum ! fakesink",
    "videotestsrc num-buffers=0 ! clfftconvolve ! fakesink",
    "videotestsrc num-buffers=0 ! clfftspectrum ! fakesink",
    "audiotestsrc num-buffers=0 ! clfftspectrum ! clfftconvolve "
        "impulse-response=\"<1.0, 0.5>\" ! fakesink",
  };
  static const gchar *elements[] = { "clfftconvolve", "clfftspectrum" };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (lines); i++)
    fail_unless (run_to_end (lines[i], NULL), "%s", lines[i]);

  /* caps and a segment, then EOS, through a harness */
  for (i = 0; i < G_N_ELEMENTS (elements); i++) {
    GstHarness *h = gst_harness_new (elements[i]);
    gchar *caps = f32_caps (44100, 2);
    GstEvent *ev;

    if (i == 0)
      gst_util_set_object_arg (G_OBJECT (h->element), "impulse-response",
          "<0.25, 0.5>");
    gst_harness_set_caps_str (h, caps, caps);
    fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
    fail_unless (gst_harness_try_pull (h) == NULL);
    /* the EOS came through, after the sticky events */
    while ((ev = gst_harness_try_pull_event (h))) {
      gboolean is_eos = GST_EVENT_TYPE (ev) == GST_EVENT_EOS;
      gst_event_unref (ev);
      if (is_eos)
        break;
    }
    fail_unless (ev != NULL, "%s: no EOS downstream", elements[i]);
    g_free (caps);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* ---- clfftspectrum against spectrum --------------------------------------- */

/* The spectrum messages an element posts for a sequence of buffers. */
static GPtrArray *
spectrum_messages (const gchar * element, const gchar * props,
    const gchar * caps, GstBuffer ** bufs, guint n_bufs)
{
  gchar *launch = g_strdup_printf ("%s %s", element, props);
  GstHarness *h = gst_harness_new_parse (launch);
  GstBus *bus = gst_bus_new ();
  GPtrArray *res = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_structure_free);
  GstMessage *msg;
  GstBuffer *b;
  guint i;

  gst_element_set_bus (h->element, bus);
  gst_harness_set_caps_str (h, caps, caps);
  for (i = 0; i < n_bufs; i++) {
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (bufs[i])),
        GST_FLOW_OK);
    while ((b = gst_harness_try_pull (h)))
      gst_buffer_unref (b);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  while ((msg = gst_bus_pop (bus))) {
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      GError *err;
      gst_message_parse_error (msg, &err, NULL);
      fail ("%s: %s", element, err->message);
    }
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ELEMENT &&
        gst_structure_has_name (gst_message_get_structure (msg), "spectrum"))
      g_ptr_array_add (res,
          gst_structure_copy (gst_message_get_structure (msg)));
    gst_message_unref (msg);
  }
  gst_bus_set_flushing (bus, TRUE);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  g_free (launch);
  return res;
}

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
    gdouble d = g_value_get_float (v);
    g_array_append_val (out, d);
  }
}

/* Same number of messages, same times, magnitudes within tolerance. */
static void
compare_messages (GPtrArray * ref, GPtrArray * got, const gchar * what)
{
  static const gchar *times[] = { "endtime", "timestamp", "stream-time",
    "running-time", "duration"
  };
  guint i, t, k;
  gdouble worst = 0.0;

  fail_unless (ref->len > 0, "%s: spectrum posted nothing", what);
  fail_unless_equals_int (got->len, ref->len);
  for (i = 0; i < ref->len; i++) {
    const GstStructure *r = g_ptr_array_index (ref, i);
    const GstStructure *g = g_ptr_array_index (got, i);
    GArray *a = g_array_new (FALSE, FALSE, sizeof (gdouble));
    GArray *b = g_array_new (FALSE, FALSE, sizeof (gdouble));

    for (t = 0; t < G_N_ELEMENTS (times); t++) {
      guint64 x, y;
      fail_unless (gst_structure_get_uint64 (r, times[t], &x));
      fail_unless (gst_structure_get_uint64 (g, times[t], &y));
      fail_unless_equals_uint64 (y, x);
    }
    flatten (gst_structure_get_value (r, "magnitude"), a);
    flatten (gst_structure_get_value (g, "magnitude"), b);
    fail_unless_equals_int (b->len, a->len);
    for (k = 0; k < a->len; k++) {
      gdouble d = fabs (g_array_index (a, gdouble, k) -
          g_array_index (b, gdouble, k));
      fail_unless (d <= TOL_VS_SPECTRUM_DB, "%s: message %u value %u: "
          "spectrum %g dB, clfftspectrum %g dB", what, i, k,
          g_array_index (a, gdouble, k), g_array_index (b, gdouble, k));
      worst = MAX (worst, d);
    }
    g_array_free (a, TRUE);
    g_array_free (b, TRUE);
  }
  GST_INFO ("%s: %u messages, worst %g dB", what, ref->len, worst);
}

static void
compare_with_spectrum (const gchar * props, const gchar * caps,
    GstBuffer ** bufs, guint n_bufs, const gchar * what)
{
  GPtrArray *ref = spectrum_messages ("spectrum", props, caps, bufs, n_bufs);
  GPtrArray *got = spectrum_messages ("clfftspectrum", props, caps, bufs,
      n_bufs);
  /* the messages posted from the element's thread: the same, before EOS */
  gchar *async_props = g_strdup_printf ("%s async-messages=true", props);
  GPtrArray *got_async = spectrum_messages ("clfftspectrum", async_props,
      caps, bufs, n_bufs);

  compare_messages (ref, got, what);
  compare_messages (ref, got_async, what);
  g_ptr_array_unref (ref);
  g_ptr_array_unref (got);
  g_ptr_array_unref (got_async);
  g_free (async_props);
}

static GstBuffer **
split_signal (const gdouble * x, guint frames, guint channels, guint rate,
    const guint * sizes, guint n_sizes, BufFlags flags, guint * n_bufs)
{
  GPtrArray *a = g_ptr_array_new ();
  guint64 pos = 0;
  guint k = 0;

  while (pos < frames) {
    guint n = MIN (sizes[k % n_sizes], frames - pos);
    g_ptr_array_add (a, make_buffer (x, channels, rate, pos, n, flags |
            (pos == 0 ? BUF_DISCONT : 0)));
    pos += n;
    k++;
  }
  *n_bufs = a->len;
  return (GstBuffer **) g_ptr_array_free (a, FALSE);
}

static void
free_buffers (GstBuffer ** bufs, guint n)
{
  guint i;
  for (i = 0; i < n; i++)
    gst_clear_buffer (&bufs[i]);
  g_free (bufs);
}

/* 1..64 channels, averaged and per channel. */
GST_START_TEST (test_spectrum_channels)
{
  static const guint channel_counts[] = { 1, 2, 3, 8, 64 };
  static const guint sizes[] = { 441, 100, 1000 };
  guint i, n;

  for (i = 0; i < G_N_ELEMENTS (channel_counts); i++) {
    guint ch = channel_counts[i];
    gdouble *x = make_signal (4410, ch, 30 + ch);
    gchar *caps = f32_caps (44100, ch);
    GstBuffer **bufs = split_signal (x, 4410, ch, 44100, sizes, 3, 0, &n);
    gchar *what = g_strdup_printf ("%u channels", ch);

    compare_with_spectrum ("bands=32 interval=20000000", caps, bufs, n, what);
    compare_with_spectrum ("bands=32 interval=20000000 multi-channel=true",
        caps, bufs, n, what);
    free_buffers (bufs, n);
    g_free (what);
    g_free (caps);
    g_free (x);
  }
}

GST_END_TEST;

/* 1 Hz to 384 kHz: at 1 Hz every interval is shorter than a frame. */
GST_START_TEST (test_spectrum_rates)
{
  static const guint rates[] = { 1, 3, 100, 8000, 96000, 384000 };
  static const guint sizes[] = { 500, 33 };
  guint i, n;

  for (i = 0; i < G_N_ELEMENTS (rates); i++) {
    guint frames = rates[i] < 100 ? 40 : MIN (rates[i] / 2, 20000);
    gdouble *x = make_signal (frames, 1, 40 + i);
    gchar *caps = f32_caps (rates[i], 1);
    GstBuffer **bufs = split_signal (x, frames, 1, rates[i], sizes, 2, 0, &n);
    gchar *what = g_strdup_printf ("%u Hz", rates[i]);

    compare_with_spectrum ("bands=16 interval=50000000", caps, bufs, n, what);
    free_buffers (bufs, n);
    g_free (what);
    g_free (caps);
    g_free (x);
  }
}

GST_END_TEST;

/* Empty buffers, one-sample buffers, GAP buffers and buffers without
 * timestamps, each against spectrum on the same buffers. */
GST_START_TEST (test_spectrum_odd_buffers)
{
  const guint rate = 16000, frames = 3200;
  gdouble *x = make_signal (frames, 2, 50);
  gchar *caps = f32_caps (rate, 2);
  static const guint one[] = { 1 };
  static const guint mixed[] = { 160, 0, 37, 1, 0, 400 };
  static const guint even[] = { 160 };
  GstBuffer **bufs;
  guint n, i;

  bufs = split_signal (x, 1600, 2, rate, one, 1, 0, &n);
  compare_with_spectrum ("bands=16 interval=10000000", caps, bufs, n,
      "one-sample buffers");
  free_buffers (bufs, n);

  /* zero-sized entries in the size list make empty buffers */
  {
    GPtrArray *a = g_ptr_array_new ();
    guint64 pos = 0;
    guint k = 0;
    while (pos < frames) {
      guint len = MIN (mixed[k % 6], frames - pos);
      g_ptr_array_add (a, make_buffer (x, 2, rate, pos, len,
              pos == 0 && len ? BUF_DISCONT : 0));
      pos += len;
      k++;
    }
    n = a->len;
    bufs = (GstBuffer **) g_ptr_array_free (a, FALSE);
    compare_with_spectrum ("bands=16 interval=10000000", caps, bufs, n,
        "empty buffers");
    free_buffers (bufs, n);
  }

  bufs = split_signal (x, frames, 2, rate, even, 1, 0, &n);
  for (i = 3; i < n; i += 4)
    GST_BUFFER_FLAG_SET (bufs[i], GST_BUFFER_FLAG_GAP);
  compare_with_spectrum ("bands=16 interval=10000000", caps, bufs, n,
      "GAP buffers");
  free_buffers (bufs, n);

  bufs = split_signal (x, frames, 2, rate, mixed, 1, BUF_NO_TS, &n);
  compare_with_spectrum ("bands=16 interval=10000000", caps, bufs, n,
      "buffers without timestamps");
  free_buffers (bufs, n);

  /* buffers ending in a partial frame (spectrum itself asserts on
   * them): the whole frames are analysed, as without the extra bytes */
  {
    GstBuffer **plain = split_signal (x, frames, 2, rate, even, 1, 0, &n);
    GstBuffer **extra = split_signal (x, frames, 2, rate, even, 1,
        BUF_EXTRA_BYTES, &n);
    GPtrArray *a = spectrum_messages ("clfftspectrum",
        "bands=16 interval=10000000", caps, plain, n);
    GPtrArray *b = spectrum_messages ("clfftspectrum",
        "bands=16 interval=10000000", caps, extra, n);

    compare_messages (a, b, "partial frames");
    g_ptr_array_unref (a);
    g_ptr_array_unref (b);
    free_buffers (plain, n);
    free_buffers (extra, n);
  }

  g_free (caps);
  g_free (x);
}

GST_END_TEST;

/* Caps changes mid-stream (rate, channels, format) against spectrum over
 * the same sequence. */
GST_START_TEST (test_spectrum_renegotiation)
{
  static const guint rates[] = { 48000, 22050, 22050 };
  static const guint chans[] = { 1, 1, 6 };
  static const guint sizes[] = { 480 };
  GPtrArray *runs[2];
  guint e, r, i, n;

  for (e = 0; e < 2; e++) {
    GstHarness *h = gst_harness_new_parse (e ? "clfftspectrum bands=20 "
        "interval=10000000" : "spectrum bands=20 interval=10000000");
    GstBus *bus = gst_bus_new ();
    GstMessage *msg;
    GstBuffer *b;

    runs[e] = g_ptr_array_new_with_free_func ((GDestroyNotify)
        gst_structure_free);
    gst_element_set_bus (h->element, bus);
    for (r = 0; r < 3; r++) {
      gdouble *x = make_signal (2400, chans[r], 60 + r);
      gchar *caps = f32_caps (rates[r], chans[r]);
      GstBuffer **bufs;

      gst_harness_set_caps_str (h, caps, caps);
      bufs = split_signal (x, 2400, chans[r], rates[r], sizes, 1, 0, &n);
      for (i = 0; i < n; i++) {
        fail_unless_equals_int (gst_harness_push (h, bufs[i]), GST_FLOW_OK);
        bufs[i] = NULL;
        while ((b = gst_harness_try_pull (h)))
          gst_buffer_unref (b);
      }
      free_buffers (bufs, n);
      g_free (caps);
      g_free (x);
    }
    while ((msg = gst_bus_pop (bus))) {
      fail_if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR);
      if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ELEMENT)
        g_ptr_array_add (runs[e],
            gst_structure_copy (gst_message_get_structure (msg)));
      gst_message_unref (msg);
    }
    gst_bus_set_flushing (bus, TRUE);
    gst_element_set_bus (h->element, NULL);
    gst_object_unref (bus);
    gst_harness_teardown (h);
  }
  compare_messages (runs[0], runs[1], "caps changes");
  g_ptr_array_unref (runs[0]);
  g_ptr_array_unref (runs[1]);
}

GST_END_TEST;

/* A flushing seek in a real pipeline: the messages after the seek are
 * those of spectrum after the same seek. */
GST_START_TEST (test_spectrum_flush_seek)
{
  const guint rate = 8000, frames = 16000;
  gdouble *x = make_signal (frames, 1, 70);
  gchar *path = g_build_filename (g_get_tmp_dir (), "clfft-rel-sseek.wav",
      NULL);
  GPtrArray *runs[2];
  guint e;

  write_f32_wav (path, x, frames, 1, rate);
  for (e = 0; e < 2; e++) {
    gchar *desc = g_strdup_printf ("filesrc location=%s ! wavparse ! %s "
        "bands=20 interval=50000000 ! fakesink sync=false", path,
        e ? "clfftspectrum" : "spectrum");
    GstElement *pipe = gst_parse_launch (desc, NULL);
    GstBus *bus = gst_element_get_bus (pipe);
    GstMessage *msg;
    gboolean seeked = FALSE;

    runs[e] = g_ptr_array_new_with_free_func ((GDestroyNotify)
        gst_structure_free);
    fail_unless (gst_element_set_state (pipe, GST_STATE_PAUSED) !=
        GST_STATE_CHANGE_FAILURE);
    fail_unless (gst_element_get_state (pipe, NULL, NULL,
            GST_CLOCK_TIME_NONE) == GST_STATE_CHANGE_SUCCESS);
    /* in PAUSED nothing flows past preroll: seek to 1.25 s, then play */
    fail_unless (gst_element_seek_simple (pipe, GST_FORMAT_TIME,
            GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE, 1250 * GST_MSECOND));
    gst_element_set_state (pipe, GST_STATE_PLAYING);
    while ((msg = gst_bus_timed_pop (bus, 30 * GST_SECOND))) {
      GstMessageType t = GST_MESSAGE_TYPE (msg);
      if (t == GST_MESSAGE_ERROR)
        fail ("error in %s", desc);
      if (t == GST_MESSAGE_ELEMENT && gst_structure_has_name
          (gst_message_get_structure (msg), "spectrum")) {
        guint64 ts;
        gst_structure_get_uint64 (gst_message_get_structure (msg),
            "timestamp", &ts);
        /* only messages after the seek count, and not the first: the
         * preroll buffer left a partial interval, whose summed levels
         * spectrum carries over a discontinuity while clfftspectrum
         * starts the interval clean (its documented difference) */
        if (ts > 1250 * GST_MSECOND) {
          seeked = TRUE;
          g_ptr_array_add (runs[e],
              gst_structure_copy (gst_message_get_structure (msg)));
        }
      }
      gst_message_unref (msg);
      if (t == GST_MESSAGE_EOS)
        break;
    }
    fail_unless (seeked);
    gst_element_set_state (pipe, GST_STATE_NULL);
    gst_object_unref (bus);
    gst_object_unref (pipe);
    g_free (desc);
  }
  compare_messages (runs[0], runs[1], "after a flushing seek");
  g_ptr_array_unref (runs[0]);
  g_ptr_array_unref (runs[1]);
  g_unlink (path);
  g_free (path);
  g_free (x);
}

GST_END_TEST;

static Suite *
reliability_audio_suite (void)
{
  Suite *s = suite_create ("reliability-audio");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_convolve_channels);
  tcase_add_test (tc, test_convolve_64_channel_responses);
  tcase_add_test (tc, test_convolve_rates);
  tcase_add_test (tc, test_convolve_odd_buffers);
  tcase_add_test (tc, test_convolve_partial_frame);
  tcase_add_test (tc, test_convolve_renegotiation);
  tcase_add_test (tc, test_convolve_flush_seek);
  tcase_add_test (tc, test_eos_without_data);
  tcase_add_test (tc, test_spectrum_channels);
  tcase_add_test (tc, test_spectrum_rates);
  tcase_add_test (tc, test_spectrum_odd_buffers);
  tcase_add_test (tc, test_spectrum_renegotiation);
  tcase_add_test (tc, test_spectrum_flush_seek);
  return s;
}

GST_CHECK_MAIN (reliability_audio);

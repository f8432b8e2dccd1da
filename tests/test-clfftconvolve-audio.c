/* test-clfftconvolve-audio.c: clfftconvolve on audio against a double-precision direct convolution, through the real element. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/audio/audio.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "reference.h"

/* The accuracy bound for float formats: float32 rounding through
 * the FFT pair and the partition sum stays near 2e-7 (see
 * test-convolve1d-core), a misplaced block or partition gives errors of
 * order 1. */
#define MAX_REL_RMS 1e-5

/* ---- reference and data ------------------------------------------------ */

/* y = x * h in double, every output frame including the tail:
 * frames + ir_frames - 1 frames of channels interleaved samples. */
static gdouble *
direct_convolution (const gdouble * x, guint frames, guint channels,
    const gdouble * ir, guint ir_frames, guint ir_channels)
{
  guint out_frames = frames + ir_frames - 1;
  gdouble *y = g_new0 (gdouble, (gsize) out_frames * channels);

  for (guint i = 0; i < frames; i++)
    for (guint k = 0; k < ir_frames; k++)
      for (guint c = 0; c < channels; c++)
        y[(gsize) (i + k) * channels + c] += x[(gsize) i * channels + c] *
            ir[(gsize) k * ir_channels + (ir_channels == 1 ? 0 : c)];
  return y;
}

static gdouble
rel_rms (const gdouble * got, const gdouble * ref, gsize n)
{
  gdouble num = 0.0, den = 0.0;

  for (gsize i = 0; i < n; i++) {
    num += (got[i] - ref[i]) * (got[i] - ref[i]);
    den += ref[i] * ref[i];
  }
  return den > 0.0 ? sqrt (num / den) : sqrt (num);
}

/* Reverb-like: decaying noise, scaled to sum |h| = 0.9 per channel so that
 * |x| <= 1 can never clip in integer formats. */
static gdouble *
make_ir (guint frames, guint channels, guint seed)
{
  gfloat *noise = g_new (gfloat, (gsize) frames * channels);
  gdouble *ir = g_new (gdouble, (gsize) frames * channels);

  ref_fill_random (noise, (gsize) frames * channels, seed);
  for (guint c = 0; c < channels; c++) {
    gdouble sum = 0.0;
    for (guint k = 0; k < frames; k++) {
      gdouble v = noise[(gsize) k * channels + c] *
          exp (-4.0 * k / (gdouble) frames);
      ir[(gsize) k * channels + c] = v;
      sum += fabs (v);
    }
    for (guint k = 0; k < frames; k++)
      ir[(gsize) k * channels + c] *= 0.9 / sum;
  }
  g_free (noise);
  return ir;
}

/* Input exactly representable in the format, so the reference sees the
 * same samples as the element. */
static gdouble *
make_input (guint frames, guint channels, GstAudioFormat format, guint seed)
{
  gsize n = (gsize) frames * channels;
  gfloat *noise = g_new (gfloat, n);
  gdouble *x = g_new (gdouble, n);

  ref_fill_random (noise, n, seed);
  for (gsize i = 0; i < n; i++) {
    gdouble v = 0.8 * noise[i];
    if (format == GST_AUDIO_FORMAT_S16)
      v = rint (v * 32768.0) / 32768.0;
    else if (format == GST_AUDIO_FORMAT_S32)
      v = rint (v * 2147483648.0) / 2147483648.0;
    x[i] = v;
  }
  g_free (noise);
  return x;
}

static void
set_impulse_response (GstElement * element, const gdouble * ir, guint frames)
{
  GValue array = G_VALUE_INIT, v = G_VALUE_INIT;

  g_value_init (&array, GST_TYPE_ARRAY);
  g_value_init (&v, G_TYPE_DOUBLE);
  for (guint i = 0; i < frames; i++) {
    g_value_set_double (&v, ir[i]);
    gst_value_array_append_value (&array, &v);
  }
  g_object_set_property (G_OBJECT (element), "impulse-response", &array);
  g_value_unset (&v);
  g_value_unset (&array);
}

/* ---- harness plumbing -------------------------------------------------- */

typedef struct
{
  GstAudioInfo info;
  GstClockTime pts0;            /* of the run's first frame */
  guint64 off0;
  guint64 frames;               /* pulled so far */
  GArray *samples;              /* gdouble */
  guint buffers;
} Collected;

static GstHarness *
new_harness (GstAudioFormat format, gint rate, guint channels, guint block,
    const gdouble * ir, guint ir_frames, GstAudioInfo * info)
{
  GstHarness *h = gst_harness_new ("clfftconvolve");
  GstCaps *caps;

  g_object_set (h->element, "block-size", block, NULL);
  if (ir)
    set_impulse_response (h->element, ir, ir_frames);
  gst_audio_info_set_format (info, format, rate, channels, NULL);
  caps = gst_audio_info_to_caps (info);
  gst_harness_set_src_caps (h, caps);
  return h;
}

static void
collected_init (Collected * c, const GstAudioInfo * info, GstClockTime pts0,
    guint64 off0)
{
  c->info = *info;
  c->pts0 = pts0;
  c->off0 = off0;
  c->frames = 0;
  c->buffers = 0;
  c->samples = g_array_new (FALSE, FALSE, sizeof (gdouble));
}

static void
collected_clear (Collected * c)
{
  g_array_unref (c->samples);
}

/* Pushes frames [first, first + n) of x as one buffer of the run that
 * starts at pts0/off0. */
static GstFlowReturn
push_frames (GstHarness * h, const GstAudioInfo * info, const gdouble * x,
    guint64 first, guint n, GstClockTime pts0, guint64 off0, gboolean discont)
{
  gint rate = GST_AUDIO_INFO_RATE (info);
  guint channels = GST_AUDIO_INFO_CHANNELS (info);
  GstBuffer *buf = gst_buffer_new_allocate (NULL,
      (gsize) n * GST_AUDIO_INFO_BPF (info), NULL);
  GstMapInfo map;
  gsize count = (gsize) n * channels;
  const gdouble *src = x + first * channels;

  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  switch (GST_AUDIO_INFO_FORMAT (info)) {
    case GST_AUDIO_FORMAT_F32:
      for (gsize i = 0; i < count; i++)
        ((gfloat *) map.data)[i] = (gfloat) src[i];
      break;
    case GST_AUDIO_FORMAT_F64:
      memcpy (map.data, src, count * sizeof (gdouble));
      break;
    case GST_AUDIO_FORMAT_S16:
      for (gsize i = 0; i < count; i++)
        ((gint16 *) map.data)[i] = (gint16) rint (src[i] * 32768.0);
      break;
    case GST_AUDIO_FORMAT_S32:
      for (gsize i = 0; i < count; i++)
        ((gint32 *) map.data)[i] = (gint32) rint (src[i] * 2147483648.0);
      break;
    default:
      g_assert_not_reached ();
  }
  gst_buffer_unmap (buf, &map);

  GST_BUFFER_PTS (buf) = pts0 + gst_util_uint64_scale_int (first, GST_SECOND,
      rate);
  GST_BUFFER_DURATION (buf) = pts0 + gst_util_uint64_scale_int (first + n,
      GST_SECOND, rate) - GST_BUFFER_PTS (buf);
  GST_BUFFER_OFFSET (buf) = off0 + first;
  GST_BUFFER_OFFSET_END (buf) = off0 + first + n;
  if (discont)
    GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
  return gst_harness_push (h, buf);
}

/* Appends an output buffer (taken) to its run, checking it continues the
 * run exactly: timestamps and offsets computed from the run's first
 * frame, never accumulated. */
static void
collect (Collected * c, GstBuffer * buf)
{
  gint rate = GST_AUDIO_INFO_RATE (&c->info);
  guint channels = GST_AUDIO_INFO_CHANNELS (&c->info);
  GstMapInfo map;
  gsize frames = gst_buffer_get_size (buf) / GST_AUDIO_INFO_BPF (&c->info);
  gsize count = frames * channels;
  GstClockTime pts = c->pts0 + gst_util_uint64_scale_int (c->frames,
      GST_SECOND, rate);
  GstClockTime end = c->pts0 + gst_util_uint64_scale_int (c->frames +
      frames, GST_SECOND, rate);

  fail_unless (frames > 0, "empty output buffer");
  fail_unless_equals_uint64 (GST_BUFFER_PTS (buf), pts);
  fail_unless_equals_uint64 (GST_BUFFER_DURATION (buf), end - pts);
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET (buf), c->off0 + c->frames);
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET_END (buf),
      c->off0 + c->frames + frames);

  gst_buffer_map (buf, &map, GST_MAP_READ);
  for (gsize i = 0; i < count; i++) {
    gdouble v;
    switch (GST_AUDIO_INFO_FORMAT (&c->info)) {
      case GST_AUDIO_FORMAT_F32:
        v = ((const gfloat *) map.data)[i];
        break;
      case GST_AUDIO_FORMAT_F64:
        v = ((const gdouble *) map.data)[i];
        break;
      case GST_AUDIO_FORMAT_S16:
        v = ((const gint16 *) map.data)[i] / 32768.0;
        break;
      case GST_AUDIO_FORMAT_S32:
        v = ((const gint32 *) map.data)[i] / 2147483648.0;
        break;
      default:
        g_assert_not_reached ();
    }
    g_array_append_val (c->samples, v);
  }
  gst_buffer_unmap (buf, &map);
  c->frames += frames;
  c->buffers++;
  gst_buffer_unref (buf);
}

static void
pull_all (GstHarness * h, Collected * c)
{
  GstBuffer *buf;

  while ((buf = gst_harness_try_pull (h)))
    collect (c, buf);
}

/* Irregular buffer sizes: some smaller than a block, some several. */
static guint
chunk_frames (guint i)
{
  static const guint sizes[] = { 100, 1000, 37, 512, 2000, 1, 333 };
  return sizes[i % G_N_ELEMENTS (sizes)];
}

/* Pushes all of x in irregular buffers, collecting output as it comes. */
static void
push_run (GstHarness * h, const GstAudioInfo * info, const gdouble * x,
    guint frames, Collected * c, gboolean first_discont)
{
  guint64 pos = 0;

  for (guint i = 0; pos < frames; i++) {
    guint n = MIN (chunk_frames (i), frames - pos);
    fail_unless_equals_int (push_frames (h, info, x, pos, n, c->pts0,
            c->off0, first_discont && pos == 0), GST_FLOW_OK);
    pos += n;
    pull_all (h, c);
  }
}

/* The whole convolution of one run of frames against the reference, with
 * its EOS tail; returns the relative RMS error and the max abs error. */
static gdouble
check_stream (GstAudioFormat format, gint rate, guint channels, guint block,
    guint ir_frames, guint frames, gdouble * max_abs)
{
  GstAudioInfo info;
  gdouble *ir = make_ir (ir_frames, 1, 5 + ir_frames);
  gdouble *x = make_input (frames, channels, format, 9 + frames);
  gdouble *ref = direct_convolution (x, frames, channels, ir, ir_frames, 1);
  GstHarness *h = new_harness (format, rate, channels, block, ir, ir_frames,
      &info);
  /* a start that is not a multiple of anything in particular */
  guint64 off0 = (guint64) rate * 3 + 17;
  Collected c;
  gdouble err;
  gsize n = (gsize) (frames + ir_frames - 1) * channels;

  collected_init (&c, &info, gst_util_uint64_scale_int (off0, GST_SECOND,
          rate), off0);
  push_run (h, &info, x, frames, &c, TRUE);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  pull_all (h, &c);

  fail_unless_equals_uint64 (c.frames, frames + ir_frames - 1);
  err = rel_rms ((const gdouble *) c.samples->data, ref, n);
  *max_abs = 0.0;
  for (gsize i = 0; i < n; i++)
    *max_abs = MAX (*max_abs,
        fabs (g_array_index (c.samples, gdouble, i) - ref[i]));
  GST_INFO ("%s %d Hz x%u, block %u, IR %u, %u frames: %u buffers, rel RMS "
      "%.3g, max abs %.3g", gst_audio_format_to_string (format), rate,
      channels, block, ir_frames, frames, c.buffers, err, *max_abs);

  collected_clear (&c);
  gst_harness_teardown (h);
  g_free (ir);
  g_free (x);
  g_free (ref);
  return err;
}

/* ---- tests ------------------------------------------------------------- */

GST_START_TEST (test_f32_against_direct)
{
  gdouble max_abs, err;

  /* IR shorter than a block, about one block, and many blocks */
  err = check_stream (GST_AUDIO_FORMAT_F32, 48000, 2, 256, 100, 7000, &max_abs);
  fail_unless (err <= MAX_REL_RMS, "rel RMS %g", err);
  err = check_stream (GST_AUDIO_FORMAT_F32, 48000, 2, 256, 257, 7000, &max_abs);
  fail_unless (err <= MAX_REL_RMS, "rel RMS %g", err);
  err = check_stream (GST_AUDIO_FORMAT_F32, 44100, 1, 512, 6000, 9000,
      &max_abs);
  fail_unless (err <= MAX_REL_RMS, "rel RMS %g", err);
  /* a single tap, 6 channels, the default block */
  err = check_stream (GST_AUDIO_FORMAT_F32, 48000, 6, 0, 1, 3000, &max_abs);
  fail_unless (err <= MAX_REL_RMS, "rel RMS %g", err);
}

GST_END_TEST;

GST_START_TEST (test_other_formats)
{
  gdouble max_abs, err;

  err = check_stream (GST_AUDIO_FORMAT_F64, 32000, 3, 128, 900, 4000, &max_abs);
  fail_unless (err <= MAX_REL_RMS, "F64 rel RMS %g", err);
  err = check_stream (GST_AUDIO_FORMAT_S32, 48000, 2, 256, 700, 4000, &max_abs);
  fail_unless (err <= MAX_REL_RMS, "S32 rel RMS %g", err);
  /* S16 output is rounded to 1/32768: the bound is that rounding plus
   * float error, at most one code value */
  err = check_stream (GST_AUDIO_FORMAT_S16, 22050, 2, 256, 700, 4000, &max_abs);
  fail_unless (max_abs <= 1.0 / 32768.0, "S16 max error %g (rel RMS %g)",
      max_abs * 32768.0, err);
}

GST_END_TEST;

/* Two runs of input through one response, and their references. */
typedef struct
{
  guint channels, ir_frames, frames[2];
  gdouble *ir, *x[2], *ref[2];
} TwoRuns;

static void
two_runs_init (TwoRuns * t, guint channels, guint ir_frames, guint frames_a,
    guint frames_b, guint seed)
{
  t->channels = channels;
  t->ir_frames = ir_frames;
  t->frames[0] = frames_a;
  t->frames[1] = frames_b;
  t->ir = make_ir (ir_frames, 1, seed);
  for (guint r = 0; r < 2; r++) {
    t->x[r] = make_input (t->frames[r], channels, GST_AUDIO_FORMAT_F32,
        seed + 1 + r);
    t->ref[r] = direct_convolution (t->x[r], t->frames[r], channels, t->ir,
        ir_frames, 1);
  }
}

/* Run r came out whole: every frame and its tail, within the bound. */
static void
two_runs_check (const TwoRuns * t, guint r, const Collected * c)
{
  gsize frames = t->frames[r] + t->ir_frames - 1;
  gdouble err;

  fail_unless_equals_uint64 (c->frames, frames);
  err = rel_rms ((const gdouble *) c->samples->data, t->ref[r],
      frames * t->channels);
  fail_unless (err <= MAX_REL_RMS, "run %u: rel RMS %g", r, err);
}

static void
two_runs_clear (TwoRuns * t)
{
  g_free (t->ir);
  for (guint r = 0; r < 2; r++) {
    g_free (t->x[r]);
    g_free (t->ref[r]);
  }
}

GST_START_TEST (test_flush_in_the_middle)
{
  GstAudioInfo info;
  TwoRuns t;
  GstHarness *h;
  GstSegment segment;
  Collected a, b;
  gdouble err;

  two_runs_init (&t, 2, 800, 3000, 2500, 21);
  h = new_harness (GST_AUDIO_FORMAT_F32, 48000, 2, 256, t.ir, t.ir_frames,
      &info);
  collected_init (&a, &info, 0, 0);
  push_run (h, &info, t.x[0], t.frames[0], &a, TRUE);
  /* what came out before the flush is the start of x0 * h */
  fail_unless (a.frames > 0 && a.frames <= t.frames[0]);
  err = rel_rms ((const gdouble *) a.samples->data, t.ref[0],
      a.frames * t.channels);
  fail_unless (err <= MAX_REL_RMS, "before flush: rel RMS %g", err);

  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gst_segment_init (&segment, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)));
  fail_if (gst_harness_try_pull (h) != NULL, "output caused by the flush");

  /* after the flush only x1 is heard: no history, no pending input of x0 */
  collected_init (&b, &info, 10 * GST_SECOND, 480000);
  push_run (h, &info, t.x[1], t.frames[1], &b, TRUE);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  pull_all (h, &b);
  two_runs_check (&t, 1, &b);

  collected_clear (&a);
  collected_clear (&b);
  gst_harness_teardown (h);
  two_runs_clear (&t);
}

GST_END_TEST;

/* A discontinuity ends a run like EOS (its tail comes out at its own
 * timestamps) and the next run starts from silence. */
GST_START_TEST (test_discont_restarts)
{
  GstAudioInfo info;
  TwoRuns t;
  GstHarness *h;
  GstClockTime pts_b = 7 * GST_SECOND;
  GstBuffer *buf;
  Collected a, b;
  guint64 pos = 0;

  two_runs_init (&t, 1, 700, 2000, 1500, 31);
  h = new_harness (GST_AUDIO_FORMAT_F32, 48000, 1, 128, t.ir, t.ir_frames,
      &info);
  collected_init (&a, &info, 0, 0);
  collected_init (&b, &info, pts_b, 7 * 48000);
  push_run (h, &info, t.x[0], t.frames[0], &a, TRUE);
  for (guint i = 0; pos < t.frames[1]; i++) {
    guint n = MIN (chunk_frames (i), t.frames[1] - pos);
    fail_unless_equals_int (push_frames (h, &info, t.x[1], pos, n, b.pts0,
            b.off0, pos == 0), GST_FLOW_OK);
    pos += n;
    /* sort the output by run: the first run's tail, then the second */
    while ((buf = gst_harness_try_pull (h)))
      collect (GST_BUFFER_PTS (buf) < pts_b ? &a : &b, buf);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  pull_all (h, &b);
  two_runs_check (&t, 0, &a);
  two_runs_check (&t, 1, &b);

  collected_clear (&a);
  collected_clear (&b);
  gst_harness_teardown (h);
  two_runs_clear (&t);
}

GST_END_TEST;

GST_START_TEST (test_latency_is_one_block)
{
  GstAudioInfo info;
  /* a 1 s response: audiofirfilter would report ~3 s */
  gdouble *ir = make_ir (48000, 1, 41);
  GstHarness *h = new_harness (GST_AUDIO_FORMAT_F32, 48000, 2, 1024, ir,
      48000, &info);
  gdouble *x = make_input (1024, 2, GST_AUDIO_FORMAT_F32, 42);

  /* configured once the first buffer has gone through */
  fail_unless_equals_int (push_frames (h, &info, x, 0, 1024, 0, 0, TRUE),
      GST_FLOW_OK);
  fail_unless_equals_uint64 (gst_harness_query_latency (h),
      gst_util_uint64_scale_int_round (1024, GST_SECOND, 48000));

  gst_harness_teardown (h);
  g_free (ir);
  g_free (x);
}

GST_END_TEST;

/* The property as gst-launch-1.0 sets it. */
GST_START_TEST (test_launch_syntax)
{
  GstHarness *h = gst_harness_new_parse ("clfftconvolve block-size=64 "
      "impulse-response=\"<0.5, 0.25>\"");
  GstAudioInfo info;
  gdouble x[300] = { 0 };
  Collected c;

  gst_audio_info_set_format (&info, GST_AUDIO_FORMAT_F32, 8000, 1, NULL);
  gst_harness_set_src_caps (h, gst_audio_info_to_caps (&info));
  x[0] = 1.0;
  x[100] = -1.0;
  collected_init (&c, &info, 0, 0);
  fail_unless_equals_int (push_frames (h, &info, x, 0, 300, 0, 0, TRUE),
      GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  pull_all (h, &c);
  fail_unless_equals_uint64 (c.frames, 301);
  for (guint i = 0; i < 301; i++) {
    gdouble want = (i == 0) ? 0.5 : (i == 1) ? 0.25 : (i == 100) ? -0.5 :
        (i == 101) ? -0.25 : 0.0;
    fail_unless (fabs (g_array_index (c.samples, gdouble, i) - want) < 1e-6,
        "sample %u: %g, want %g", i, g_array_index (c.samples, gdouble, i),
        want);
  }
  collected_clear (&c);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* ---- impulse response files -------------------------------------------- */

static void
put_le16 (GString * s, guint16 v)
{
  g_string_append_c (s, v & 0xff);
  g_string_append_c (s, v >> 8);
}

static void
put_le32 (GString * s, guint32 v)
{
  put_le16 (s, v & 0xffff);
  put_le16 (s, v >> 16);
}

/* A 32-bit float WAV (format 3) of frames x channels, written by hand so
 * the test does not reuse the code under test. */
static gchar *
write_float_wav (const gdouble * data, guint frames, guint channels, gint rate)
{
  GString *s = g_string_new (NULL);
  guint32 bytes = frames * channels * 4;
  gchar *path;
  gint fd;

  g_string_append (s, "RIFF");
  put_le32 (s, 4 + 26 + 8 + bytes);
  g_string_append (s, "WAVEfmt ");
  put_le32 (s, 18);
  put_le16 (s, 3);
  put_le16 (s, channels);
  put_le32 (s, rate);
  put_le32 (s, rate * channels * 4);
  put_le16 (s, channels * 4);
  put_le16 (s, 32);
  put_le16 (s, 0);
  g_string_append (s, "data");
  put_le32 (s, bytes);
  for (guint i = 0; i < frames * channels; i++) {
    union
    {
      gfloat f;
      guint32 u;
    } v;
    v.f = (gfloat) data[i];
    put_le32 (s, v.u);
  }
  fd = g_file_open_tmp ("clfft-ir-XXXXXX.wav", &path, NULL);
  fail_unless (fd >= 0);
  fail_unless (write (fd, s->str, s->len) == (gssize) s->len);
  close (fd);
  g_string_free (s, TRUE);
  return path;
}

GST_START_TEST (test_ir_file_per_channel)
{
  const guint C = 2, L = 1500, M = 4000;
  GstAudioInfo info;
  gdouble *ir = make_ir (L, C, 51);
  gdouble *ir_f = g_new (gdouble, L * C);
  gdouble *x = make_input (M, C, GST_AUDIO_FORMAT_F32, 52);
  gdouble *ref;
  gchar *path;
  GstHarness *h;
  Collected c;
  gdouble err;

  /* the reference uses the response as the file stores it (float) */
  for (guint i = 0; i < L * C; i++)
    ir_f[i] = (gfloat) ir[i];
  ref = direct_convolution (x, M, C, ir_f, L, C);
  path = write_float_wav (ir, L, C, 48000);

  h = gst_harness_new ("clfftconvolve");
  g_object_set (h->element, "ir-location", path, "block-size", 512, NULL);
  gst_audio_info_set_format (&info, GST_AUDIO_FORMAT_F32, 48000, C, NULL);
  gst_harness_set_src_caps (h, gst_audio_info_to_caps (&info));
  collected_init (&c, &info, 0, 0);
  push_run (h, &info, x, M, &c, TRUE);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  pull_all (h, &c);

  fail_unless_equals_uint64 (c.frames, M + L - 1);
  err = rel_rms ((const gdouble *) c.samples->data, ref, (M + L - 1) * C);
  fail_unless (err <= MAX_REL_RMS, "per-channel file IR: rel RMS %g", err);

  collected_clear (&c);
  gst_harness_teardown (h);
  g_unlink (path);
  g_free (path);
  g_free (ir);
  g_free (ir_f);
  g_free (x);
  g_free (ref);
}

GST_END_TEST;

/* ---- errors, through a real pipeline and its bus ----------------------- */

/* Runs a short stream through clfftconvolve name=conv configured by
 * `props`; returns the error it posted (NULL if it reached EOS). */
static GError *
run_pipeline_for_error (const gchar * props, gchar ** debug)
{
  gchar *desc = g_strdup_printf ("audiotestsrc num-buffers=4 ! "
      "audio/x-raw,format=F32LE,channels=2,rate=48000 ! "
      "clfftconvolve name=conv %s ! fakesink", props);
  GstElement *pipeline = gst_parse_launch (desc, NULL);
  GstBus *bus;
  GstMessage *msg;
  GError *error = NULL;

  fail_unless (pipeline != NULL, "cannot build %s", desc);
  bus = gst_element_get_bus (pipeline);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  /* generous: a cold kernel build shares the CPU with other tests */
  msg = gst_bus_timed_pop_filtered (bus, 300 * GST_SECOND,
      GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  fail_unless (msg != NULL, "no EOS or error from %s", desc);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    gst_message_parse_error (msg, &error, debug);
    fail_unless_equals_string (GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)), "conv");
    GST_INFO ("%s: %s (%s)", props, error->message, debug ? *debug : "");
  }
  gst_message_unref (msg);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  g_free (desc);
  return error;
}

GST_START_TEST (test_empty_ir_rejected)
{
  GError *error;

  /* no response at all, and an explicitly empty one */
  error = run_pipeline_for_error ("", NULL);
  fail_unless (error != NULL, "ran without an impulse response");
  g_clear_error (&error);
  error = run_pipeline_for_error ("impulse-response=\"<>\"", NULL);
  fail_unless (error != NULL, "ran with an empty impulse response");
  g_clear_error (&error);
}

GST_END_TEST;

GST_START_TEST (test_missing_ir_file)
{
  const gchar *path = "/nonexistent/clfft-test/ir.wav";
  gchar *props = g_strdup_printf ("ir-location=%s", path);
  gchar *debug = NULL;
  GError *error = run_pipeline_for_error (props, &debug);

  fail_unless (error != NULL, "ran with a missing impulse response file");
  fail_unless (error->domain == GST_RESOURCE_ERROR, "domain %s",
      g_quark_to_string (error->domain));
  /* the user must be told which file */
  fail_unless (strstr (error->message, path) || (debug
          && strstr (debug, path)), "path not in \"%s\" / \"%s\"",
      error->message, debug);
  g_clear_error (&error);
  g_free (debug);
  g_free (props);
}

GST_END_TEST;

static Suite *
clfftconvolve_audio_suite (void)
{
  Suite *s = suite_create ("clfftconvolve-audio");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_f32_against_direct);
  tcase_add_test (tc, test_other_formats);
  tcase_add_test (tc, test_flush_in_the_middle);
  tcase_add_test (tc, test_discont_restarts);
  tcase_add_test (tc, test_latency_is_one_block);
  tcase_add_test (tc, test_launch_syntax);
  tcase_add_test (tc, test_ir_file_per_channel);
  tcase_add_test (tc, test_empty_ir_rejected);
  tcase_add_test (tc, test_missing_ir_file);
  return s;
}

GST_CHECK_MAIN (clfftconvolve_audio);

/* gstclfftconvolveaudio.c: audio half of clfftconvolve: blocks, timestamps and draining around the partitioned device convolution. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclfftconvolveaudio.h"
#include "clf-convolve1d.h"

#include <math.h>
#include <string.h>

#ifdef HAVE_SNDFILE
#include <sndfile.h>
#endif

GST_DEBUG_CATEGORY_STATIC (clfft_convolve_audio_debug);
#define GST_CAT_DEFAULT clfft_convolve_audio_debug

/* A timestamp further than this from where the sample count says the
 * stream should be is a discontinuity (audiofirfilter uses the same). */
#define DISCONT_TOLERANCE (5 * GST_MSECOND)

struct _GstClfftConvolveAudio
{
  ClfContext *ctx;
  ClfConvolve1d *core;
  GstAudioInfo info;
  guint channels;
  guint block;
  guint ir_frames;

  /* input frames waiting for a whole block, as floats, interleaved */
  gfloat *pending;
  guint pending_frames;

  /* staging for whole blocks of one call */
  gfloat *in_f, *out_f;
  gsize staging_frames;

  /* the current run of contiguous input: first timestamp/offset and how
   * much went in and came out since */
  GstClockTime start_ts;
  guint64 start_off;
  guint64 frames_in;
  guint64 frames_out;

  /* output of a new run held back while the previous run's tail is the
   * buffer returned (one output buffer per call) */
  GstBuffer *held;
};

static void
init_debug (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done)) {
    GST_DEBUG_CATEGORY_INIT (clfft_convolve_audio_debug, "clfftconvolveaudio",
        0, "clfftconvolve partitioned audio convolution");
    g_once_init_leave (&done, 1);
  }
}

static void
set_core_error (GError ** error, ClfContext * ctx, const ClfError * err,
    const gchar * what)
{
  if (err->code == CLF_ERROR_OUT_OF_MEMORY)
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NO_SPACE_LEFT,
        "Out of memory %s on %s: %s", what, clf_context_describe (ctx),
        err->message);
  else
    g_set_error (error, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_FAILED,
        "OpenCL error (%s) %s on %s: %s", clf_status_name (err->code), what,
        clf_context_describe (ctx), err->message);
}

static void
run_start (GstClfftConvolveAudio * conv)
{
  conv->start_ts = GST_CLOCK_TIME_NONE;
  conv->start_off = GST_BUFFER_OFFSET_NONE;
  conv->frames_in = 0;
  conv->frames_out = 0;
  conv->pending_frames = 0;
}

GstClfftConvolveAudio *
gst_clfft_convolve_audio_new (ClfContext * ctx, const GstAudioInfo * info,
    const gdouble * ir, guint ir_frames, guint ir_channels, guint block_size,
    GError ** error)
{
  GstClfftConvolveAudio *conv;
  ClfError err = { CLF_OK, "" };
  guint channels;

  init_debug ();
  g_return_val_if_fail (ctx != NULL && info != NULL, NULL);

  channels = GST_AUDIO_INFO_CHANNELS (info);
  if (ir == NULL || ir_frames == 0) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "The impulse response is empty: set impulse-response or ir-location");
    return NULL;
  }
  if (ir_channels != 1 && ir_channels != channels) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "The impulse response has %u channels but the stream has %u: it "
        "needs 1 (applied to every channel) or %u", ir_channels, channels,
        channels);
    return NULL;
  }
  if (channels == 0 || GST_AUDIO_INFO_RATE (info) <= 0
      || GST_AUDIO_INFO_LAYOUT (info) != GST_AUDIO_LAYOUT_INTERLEAVED) {
    g_set_error (error, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS,
        "Unsupported audio layout for convolution (needs interleaved "
        "samples, a rate and channels)");
    return NULL;
  }
  switch (GST_AUDIO_INFO_FORMAT (info)) {
    case GST_AUDIO_FORMAT_F32:
    case GST_AUDIO_FORMAT_F64:
    case GST_AUDIO_FORMAT_S16:
    case GST_AUDIO_FORMAT_S32:
      break;
    default:
      g_set_error (error, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS,
          "Unsupported audio format %s for convolution (needs native-endian "
          "F32, F64, S16 or S32)", GST_AUDIO_INFO_NAME (info));
      return NULL;
  }
  if (block_size == 0)
    block_size = clf_convolve1d_default_block (ir_frames);

  conv = g_new0 (GstClfftConvolveAudio, 1);
  conv->info = *info;
  conv->channels = channels;
  conv->block = block_size;
  conv->ir_frames = ir_frames;
  conv->ctx = clf_context_ref (ctx);
  conv->core = clf_convolve1d_new (ctx, channels, block_size, ir, ir_frames,
      ir_channels, &err);
  if (!conv->core) {
    gchar *what = g_strdup_printf ("preparing the convolution with a "
        "%u-frame impulse response in blocks of %u samples", ir_frames,
        block_size);
    set_core_error (error, ctx, &err, what);
    g_free (what);
    gst_clfft_convolve_audio_free (conv);
    return NULL;
  }
  conv->pending = g_new0 (gfloat, (gsize) block_size * channels);
  run_start (conv);

  GST_INFO ("%u channels at %d Hz, %u-frame response x %u, %" G_GSIZE_FORMAT
      " partitions of %u samples, %" G_GSIZE_FORMAT " bytes on %s", channels,
      GST_AUDIO_INFO_RATE (info), ir_frames, ir_channels,
      clf_convolve1d_get_partitions (conv->core), block_size,
      clf_convolve1d_get_device_bytes (conv->core), clf_context_describe (ctx));
  return conv;
}

void
gst_clfft_convolve_audio_free (GstClfftConvolveAudio * conv)
{
  if (!conv)
    return;
  if (conv->core)
    clf_convolve1d_free (conv->core);
  clf_context_unref (conv->ctx);
  gst_clear_buffer (&conv->held);
  g_free (conv->pending);
  g_free (conv->in_f);
  g_free (conv->out_f);
  g_free (conv);
}

GstClockTime
gst_clfft_convolve_audio_get_latency (GstClfftConvolveAudio * conv)
{
  g_return_val_if_fail (conv != NULL, GST_CLOCK_TIME_NONE);

  return gst_util_uint64_scale_int_round (conv->block, GST_SECOND,
      GST_AUDIO_INFO_RATE (&conv->info));
}

void
gst_clfft_convolve_audio_reset (GstClfftConvolveAudio * conv)
{
  ClfError err = { CLF_OK, "" };

  g_return_if_fail (conv != NULL);

  gst_clear_buffer (&conv->held);
  run_start (conv);
  /* a failed fill surfaces again at the next process call, which reports
   * it; nothing useful to do with it here */
  if (clf_convolve1d_reset (conv->core, &err) != CLF_OK)
    GST_WARNING ("resetting the delay line failed: %s", err.message);
}

/* ---- sample conversion ------------------------------------------------ */

static void
to_float (GstClfftConvolveAudio * conv, const guint8 * src, gfloat * dst,
    gsize samples)
{
  /* an empty buffer maps to NULL, which memcpy must not see */
  if (samples == 0)
    return;
  switch (GST_AUDIO_INFO_FORMAT (&conv->info)) {
    case GST_AUDIO_FORMAT_F32:
      memcpy (dst, src, samples * sizeof (gfloat));
      break;
    case GST_AUDIO_FORMAT_F64:{
      const gdouble *s = (const gdouble *) src;
      for (gsize i = 0; i < samples; i++)
        dst[i] = (gfloat) s[i];
      break;
    }
    case GST_AUDIO_FORMAT_S16:{
      const gint16 *s = (const gint16 *) src;
      for (gsize i = 0; i < samples; i++)
        dst[i] = s[i] * (1.0f / 32768.0f);
      break;
    }
    case GST_AUDIO_FORMAT_S32:{
      const gint32 *s = (const gint32 *) src;
      for (gsize i = 0; i < samples; i++)
        dst[i] = (gfloat) (s[i] * (1.0 / 2147483648.0));
      break;
    }
    default:
      g_assert_not_reached ();
  }
}

static void
from_float (GstClfftConvolveAudio * conv, const gfloat * src, guint8 * dst,
    gsize samples)
{
  switch (GST_AUDIO_INFO_FORMAT (&conv->info)) {
    case GST_AUDIO_FORMAT_F32:
      memcpy (dst, src, samples * sizeof (gfloat));
      break;
    case GST_AUDIO_FORMAT_F64:{
      gdouble *d = (gdouble *) dst;
      for (gsize i = 0; i < samples; i++)
        d[i] = src[i];
      break;
    }
    case GST_AUDIO_FORMAT_S16:{
      gint16 *d = (gint16 *) dst;
      for (gsize i = 0; i < samples; i++)
        d[i] = (gint16) CLAMP (lrintf (src[i] * 32768.0f), G_MININT16,
            G_MAXINT16);
      break;
    }
    case GST_AUDIO_FORMAT_S32:{
      gint32 *d = (gint32 *) dst;
      for (gsize i = 0; i < samples; i++) {
        /* clamp in double: float cannot hold G_MAXINT32 exactly */
        gdouble v = rint ((gdouble) src[i] * 2147483648.0);
        d[i] = (gint32) CLAMP (v, (gdouble) G_MININT32, (gdouble) G_MAXINT32);
      }
      break;
    }
    default:
      g_assert_not_reached ();
  }
}

/* ---- blocks and output buffers ----------------------------------------- */

static void
ensure_staging (GstClfftConvolveAudio * conv, gsize frames)
{
  if (frames <= conv->staging_frames)
    return;
  g_free (conv->in_f);
  g_free (conv->out_f);
  conv->in_f = g_new (gfloat, frames * conv->channels);
  conv->out_f = g_new (gfloat, frames * conv->channels);
  conv->staging_frames = frames;
}

/* An output buffer for frames [first, first + frames) of the current run,
 * timestamped from the run's start so that rounding never accumulates. */
static GstBuffer *
make_output (GstClfftConvolveAudio * conv, const gfloat * samples,
    guint64 first, gsize frames)
{
  gint rate = GST_AUDIO_INFO_RATE (&conv->info);
  gsize bpf = GST_AUDIO_INFO_BPF (&conv->info);
  GstBuffer *buf;
  GstMapInfo map;

  buf = gst_buffer_new_allocate (NULL, frames * bpf, NULL);
  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  from_float (conv, samples, map.data, frames * conv->channels);
  gst_buffer_unmap (buf, &map);

  if (GST_CLOCK_TIME_IS_VALID (conv->start_ts)) {
    GstClockTime t0 = conv->start_ts +
        gst_util_uint64_scale_int (first, GST_SECOND, rate);
    GstClockTime t1 = conv->start_ts +
        gst_util_uint64_scale_int (first + frames, GST_SECOND, rate);
    GST_BUFFER_PTS (buf) = t0;
    GST_BUFFER_DURATION (buf) = t1 - t0;
  } else {
    GST_BUFFER_DURATION (buf) =
        gst_util_uint64_scale_int (frames, GST_SECOND, rate);
  }
  if (conv->start_off != GST_BUFFER_OFFSET_NONE) {
    GST_BUFFER_OFFSET (buf) = conv->start_off + first;
    GST_BUFFER_OFFSET_END (buf) = conv->start_off + first + frames;
  } else {
    GST_BUFFER_OFFSET (buf) = GST_BUFFER_OFFSET_NONE;
    GST_BUFFER_OFFSET_END (buf) = GST_BUFFER_OFFSET_NONE;
  }
  return buf;
}

/* Runs whole blocks of in_f through the device into out_f. */
static gboolean
run_blocks (GstClfftConvolveAudio * conv, gsize n_blocks, GError ** error)
{
  ClfError err = { CLF_OK, "" };

  if (clf_convolve1d_process (conv->core, conv->in_f, conv->out_f, n_blocks,
          &err) != CLF_OK) {
    set_core_error (error, conv->ctx, &err, "convolving audio");
    return FALSE;
  }
  return TRUE;
}

/* The rest of the current run: pending input, then zeros until the last
 * input sample has rung out through the whole response. */
static GstBuffer *
drain_run (GstClfftConvolveAudio * conv, GError ** error)
{
  guint64 total_out, remaining;
  gsize n_blocks, C = conv->channels;
  GstBuffer *buf;

  if (conv->frames_in == 0)
    return NULL;
  total_out = conv->frames_in + conv->ir_frames - 1;
  remaining = total_out - conv->frames_out;
  if (remaining == 0)
    return NULL;

  /* remaining = pending_frames + ir_frames - 1: the pending frames plus
   * zeros fill whole blocks, and every output block but the last is
   * entirely wanted */
  n_blocks = (remaining + conv->block - 1) / conv->block;
  ensure_staging (conv, n_blocks * conv->block);
  memcpy (conv->in_f, conv->pending,
      (gsize) conv->pending_frames * C * sizeof (gfloat));
  memset (conv->in_f + (gsize) conv->pending_frames * C, 0,
      (n_blocks * conv->block - conv->pending_frames) * C * sizeof (gfloat));
  if (!run_blocks (conv, n_blocks, error))
    return NULL;

  buf = make_output (conv, conv->out_f, conv->frames_out, remaining);
  conv->frames_out += remaining;
  conv->pending_frames = 0;
  GST_DEBUG ("drained %" G_GUINT64_FORMAT " frames (%" G_GSIZE_FORMAT
      " blocks) at %" GST_TIME_FORMAT, remaining, n_blocks,
      GST_TIME_ARGS (GST_BUFFER_PTS (buf)));
  return buf;
}

/* Prepends held output of the current run, which is contiguous with buf. */
static GstBuffer *
with_held (GstClfftConvolveAudio * conv, GstBuffer * buf)
{
  GstBuffer *held = conv->held;
  GstClockTime pts, end = GST_CLOCK_TIME_NONE;
  guint64 off_end;

  if (!held)
    return buf;
  conv->held = NULL;
  if (!buf)
    return held;
  pts = GST_BUFFER_PTS (held);
  if (GST_CLOCK_TIME_IS_VALID (pts))
    end = GST_BUFFER_PTS (buf) + GST_BUFFER_DURATION (buf);
  off_end = GST_BUFFER_OFFSET_END (buf);
  held = gst_buffer_append (held, buf);
  if (GST_CLOCK_TIME_IS_VALID (pts))
    GST_BUFFER_DURATION (held) = end - pts;
  else
    GST_BUFFER_DURATION (held) =
        gst_util_uint64_scale_int (gst_buffer_get_size (held) /
        GST_AUDIO_INFO_BPF (&conv->info), GST_SECOND,
        GST_AUDIO_INFO_RATE (&conv->info));
  GST_BUFFER_OFFSET_END (held) = off_end;
  return held;
}

GstFlowReturn
gst_clfft_convolve_audio_process (GstClfftConvolveAudio * conv,
    GstBuffer * inbuf, GstBuffer ** outbuf, GError ** error)
{
  gint rate = GST_AUDIO_INFO_RATE (&conv->info);
  gsize bpf = GST_AUDIO_INFO_BPF (&conv->info), C = conv->channels;
  GstClockTime ts = GST_BUFFER_PTS (inbuf), expected = GST_CLOCK_TIME_NONE;
  GstBuffer *residue = NULL, *out = NULL;
  GstMapInfo map;
  gsize frames, total, n_blocks, rest;

  g_return_val_if_fail (conv != NULL && outbuf != NULL, GST_FLOW_ERROR);
  *outbuf = NULL;

  if (GST_CLOCK_TIME_IS_VALID (conv->start_ts))
    expected = conv->start_ts +
        gst_util_uint64_scale_int (conv->frames_in, GST_SECOND, rate);

  /* A new run: the previous one rings out first, as at EOS, then the
   * history is forgotten so the new audio does not convolve with it. */
  if (conv->frames_in > 0 && (GST_BUFFER_IS_DISCONT (inbuf)
          || (GST_CLOCK_TIME_IS_VALID (ts) && GST_CLOCK_TIME_IS_VALID (expected)
              && ABS (GST_CLOCK_DIFF (ts, expected)) > DISCONT_TOLERANCE))) {
    GError *local = NULL;

    GST_DEBUG ("discontinuity at %" GST_TIME_FORMAT " (expected %"
        GST_TIME_FORMAT "): draining and restarting", GST_TIME_ARGS (ts),
        GST_TIME_ARGS (expected));
    residue = gst_clfft_convolve_audio_drain (conv, &local);
    if (local) {
      g_propagate_error (error, local);
      return GST_FLOW_ERROR;
    }
  }
  if (conv->frames_in == 0) {
    conv->start_ts = ts;
    conv->start_off = GST_BUFFER_OFFSET (inbuf);
  }

  if (!gst_buffer_map (inbuf, &map, GST_MAP_READ)) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
        "Cannot map the input buffer");
    gst_clear_buffer (&residue);
    return GST_FLOW_ERROR;
  }
  frames = map.size / bpf;
  total = conv->pending_frames + frames;
  n_blocks = total / conv->block;
  rest = total - n_blocks * conv->block;

  if (n_blocks == 0) {
    to_float (conv, map.data, conv->pending + (gsize) conv->pending_frames * C,
        frames * C);
  } else {
    gsize head = n_blocks * conv->block - conv->pending_frames;

    ensure_staging (conv, n_blocks * conv->block);
    memcpy (conv->in_f, conv->pending,
        (gsize) conv->pending_frames * C * sizeof (gfloat));
    to_float (conv, map.data, conv->in_f + (gsize) conv->pending_frames * C,
        head * C);
    to_float (conv, map.data + head * bpf, conv->pending, rest * C);
  }
  gst_buffer_unmap (inbuf, &map);
  conv->pending_frames = rest;
  conv->frames_in += frames;

  if (n_blocks > 0) {
    gsize out_frames = n_blocks * conv->block;

    if (!run_blocks (conv, n_blocks, error)) {
      gst_clear_buffer (&residue);
      return GST_FLOW_ERROR;
    }
    out = make_output (conv, conv->out_f, conv->frames_out, out_frames);
    conv->frames_out += out_frames;
  }

  if (residue) {
    /* one buffer per call: this run's first output waits for the next */
    conv->held = out;
    *outbuf = residue;
  } else {
    *outbuf = with_held (conv, out);
  }
  return GST_FLOW_OK;
}

GstBuffer *
gst_clfft_convolve_audio_drain (GstClfftConvolveAudio * conv, GError ** error)
{
  ClfError err = { CLF_OK, "" };
  GError *local = NULL;
  GstBuffer *buf;

  g_return_val_if_fail (conv != NULL, NULL);

  buf = drain_run (conv, &local);
  if (local) {
    g_propagate_error (error, local);
    gst_clear_buffer (&conv->held);
  } else {
    buf = with_held (conv, buf);
  }
  run_start (conv);
  /* the next run must not hear this one */
  if (clf_convolve1d_reset (conv->core, &err) != CLF_OK && !local) {
    gst_clear_buffer (&buf);
    set_core_error (error, conv->ctx, &err, "resetting the convolution");
  }
  return buf;
}

/* ---- impulse response files ------------------------------------------- */

gdouble *
gst_clfft_load_impulse_response (const gchar * path, guint * frames,
    guint * channels, GError ** error)
{
#ifdef HAVE_SNDFILE
  SF_INFO sfinfo;
  SNDFILE *sf;
  gdouble *data = NULL;
  gsize capacity = 0, have = 0, i;

  init_debug ();
  g_return_val_if_fail (frames != NULL && channels != NULL, NULL);

  if (path == NULL || *path == '\0') {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND,
        "No impulse response file given");
    return NULL;
  }
  if (!g_file_test (path, G_FILE_TEST_EXISTS)) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND,
        "Impulse response file \"%s\" does not exist", path);
    return NULL;
  }
  memset (&sfinfo, 0, sizeof (sfinfo));
  sf = sf_open (path, SFM_READ, &sfinfo);
  if (!sf) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_READ,
        "Cannot read impulse response file \"%s\": %s", path,
        sf_strerror (NULL));
    return NULL;
  }
  if (sfinfo.frames <= 0 || sfinfo.channels <= 0) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "Impulse response file \"%s\" holds no samples", path);
    sf_close (sf);
    return NULL;
  }
  if (sfinfo.frames > G_MAXINT / sfinfo.channels) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "Impulse response file \"%s\" is too long (%" G_GINT64_FORMAT
        " frames x %d channels)", path, (gint64) sfinfo.frames,
        sfinfo.channels);
    sf_close (sf);
    return NULL;
  }

  /* The frame count comes from the header, which a truncated or hostile
   * file may inflate to gigabytes: the buffer grows with what is really
   * read instead. Integer files come back scaled to [-1, 1), as the
   * stream's floats. */
  for (;;) {
    sf_count_t got;

    if (have == capacity) {
      gsize grow = MIN (MAX ((gsize) 4096, capacity),
          (gsize) sfinfo.frames - have);
      gdouble *bigger;

      if (grow == 0)
        break;
      bigger = g_try_renew (gdouble, data, (capacity + grow) * sfinfo.channels);
      if (!bigger) {
        g_set_error (error, GST_RESOURCE_ERROR,
            GST_RESOURCE_ERROR_NO_SPACE_LEFT,
            "Out of memory reading impulse response file \"%s\"", path);
        goto fail;
      }
      data = bigger;
      capacity += grow;
    }
    got = sf_readf_double (sf, data + have * sfinfo.channels, capacity - have);
    if (got <= 0)
      break;
    have += got;
  }
  if (have == 0) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
        "Cannot read samples from impulse response file \"%s\": %s", path,
        sf_error (sf) ? sf_strerror (sf) : "no sample data");
    goto fail;
  }
  /* The device computes in float: a NaN, an infinity or a value beyond
   * float range would turn the whole output into NaN, as a NaN tap of the
   * impulse-response property would (which is refused too). */
  for (i = 0; i < have * sfinfo.channels; i++) {
    if (!isfinite (data[i]) || fabs (data[i]) > G_MAXFLOAT) {
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
          "Impulse response file \"%s\" holds a sample that is not a "
          "finite single-precision number (%g at frame %" G_GSIZE_FORMAT
          ", channel %" G_GSIZE_FORMAT ")", path, data[i],
          i / sfinfo.channels, i % sfinfo.channels);
      goto fail;
    }
  }
  sf_close (sf);
  *frames = (guint) have;
  *channels = (guint) sfinfo.channels;
  GST_INFO ("loaded %u frames x %u channels at %d Hz from %s", *frames,
      *channels, sfinfo.samplerate, path);
  return data;

fail:
  g_free (data);
  sf_close (sf);
  return NULL;
#else
  g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_READ,
      "Cannot read impulse response file \"%s\": gst-clfft was built "
      "without libsndfile", path ? path : "");
  return NULL;
#endif
}

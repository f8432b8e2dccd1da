/* gstclfftspectrum.c: clfftspectrum, a drop-in OpenCL `spectrum` for audio that also shows 2D spectra of video. */
/**
 * SECTION:element-clfftspectrum
 * @title: clfftspectrum
 *
 * For audio, clfftspectrum is a drop-in replacement for the `spectrum`
 * element of gst-plugins-good: the same caps, properties and `spectrum`
 * element messages (`endtime`, `timestamp`, `stream-time`, `running-time`,
 * `duration`, `magnitude`, `phase`), the same FFT length (2 * bands - 2),
 * Hamming window, dB levels clamped to #GstClfftSpectrum:threshold and
 * averaged over each #GstClfftSpectrum:interval. The FFTs run on an OpenCL
 * device, all FFTs of a buffer in one batch, so any number of bands is
 * fast (2 * bands - 2 may have large prime factors). Extra properties choose
 * the window, an overlap between FFTs, a logarithmic frequency scale,
 * GstValueArray message fields and messages posted from a thread of the
 * element's own (#GstClfftSpectrum:async-messages), which lets the next
 * buffers' work overlap the device's.
 *
 * For video, each frame is replaced by the log-magnitude of its 2D FFT
 * (GRAY8, or GRAY16_LE when downstream asks), DC at the centre, black at
 * threshold dB and white at the frame's peak; with post-messages a
 * `spectrum` message per frame carries the radially averaged power. Frames
 * from or to another clfft element stay on the device
 * (video/x-raw(memory:CLFFTBuffer)); other peers get system memory.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 -m audiotestsrc wave=ticks ! audioconvert ! clfftspectrum bands=64 ! fakesink
 * gst-launch-1.0 videotestsrc pattern=zone-plate kx2=20 ky2=20 kt=1 ! clfftspectrum ! videoconvert ! autovideosink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <math.h>
#include <unistd.h>

#include "gstclfftelements.h"
#include "gstclfftspectrum.h"
#include "gstclfftmemory.h"
#include "gstclfftpinned.h"
#include "gstclfftdevice.h"
#include "gstclfftcompletion.h"

GST_DEBUG_CATEGORY (gst_clfft_spectrum_debug);
#define GST_CAT_DEFAULT gst_clfft_spectrum_debug

#if G_BYTE_ORDER == G_LITTLE_ENDIAN
#define AUDIO_FORMATS "{ S16LE, S24LE, S32LE, F32LE, F64LE }"
#else
#define AUDIO_FORMATS "{ S16BE, S24BE, S32BE, F32BE, F64BE }"
#endif

#define AUDIO_CAPS \
  GST_AUDIO_CAPS_MAKE (AUDIO_FORMATS) ", layout = (string) interleaved"

#define VIDEO_FIELDS(formats) \
  "format = (string) " formats ", " \
  "width = (int) [ 2, 32768 ], height = (int) [ 2, 32768 ], " \
  "framerate = (fraction) [ 0/1, MAX ]"
/* frames on the device first, so two clfft elements in a row keep them
 * there; system memory otherwise */
#define VIDEO_CAPS(formats) \
  "video/x-raw(" GST_CAPS_FEATURE_MEMORY_CLFFT_BUFFER "), " \
  VIDEO_FIELDS (formats) "; video/x-raw, " VIDEO_FIELDS (formats)

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (AUDIO_CAPS "; "
        VIDEO_CAPS (GST_CLFFT_SPECTRUM_VIDEO_IN_FORMATS)));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (AUDIO_CAPS "; "
        VIDEO_CAPS (GST_CLFFT_SPECTRUM_VIDEO_OUT_FORMATS)));

#define DEFAULT_POST_MESSAGES TRUE
#define DEFAULT_MESSAGE_MAGNITUDE TRUE
#define DEFAULT_MESSAGE_PHASE FALSE
#define DEFAULT_INTERVAL (GST_SECOND / 10)
#define DEFAULT_BANDS 128
#define DEFAULT_THRESHOLD -60
#define DEFAULT_MULTI_CHANNEL FALSE
#define DEFAULT_WINDOW GST_CLFFT_SPECTRUM_WINDOW_HAMMING
#define DEFAULT_OVERLAP 0.0
#define DEFAULT_FREQUENCY_SCALE GST_CLFFT_SPECTRUM_SCALE_LINEAR
#define DEFAULT_MIN_FREQUENCY 20.0
#define DEFAULT_MESSAGE_FORMAT GST_CLFFT_SPECTRUM_FORMAT_LIST
#define DEFAULT_DEVICE NULL
#define DEFAULT_ASYNC_MESSAGES FALSE

/* One batched transform holds at most this many input floats; larger
 * buffers are analysed in several chunks. */
#define MAX_BATCH_FLOATS (1u << 22)
/* The log scale's FFT spans at least this many periods of min-frequency. */
#define LOG_MIN_PERIODS 4
#define LOG_MAX_NFFT (1u << 20)
/* guints of the events and segments of a chunk of at most ev events */
#define INDEX_SIZE(ev) (2 * (ev) + 3)
/* With async-messages: chunks queued on the device but not finished
 * before the streaming thread waits, and finished chunks kept for reuse */
#define MAX_PENDING_CHUNKS 8
#define MAX_SPARE_CHUNKS 4

enum
{
  PROP_0,
  PROP_POST_MESSAGES,
  PROP_MESSAGE_MAGNITUDE,
  PROP_MESSAGE_PHASE,
  PROP_INTERVAL,
  PROP_BANDS,
  PROP_THRESHOLD,
  PROP_MULTI_CHANNEL,
  PROP_WINDOW,
  PROP_OVERLAP,
  PROP_FREQUENCY_SCALE,
  PROP_MIN_FREQUENCY,
  PROP_MESSAGE_FORMAT,
  PROP_DEVICE,
  PROP_DEVICE_NAME,
  PROP_ASYNC_MESSAGES
};

#define GST_TYPE_CLFFT_SPECTRUM_WINDOW (gst_clfft_spectrum_window_get_type ())
static GType
gst_clfft_spectrum_window_get_type (void)
{
  static gsize type = 0;
  static const GEnumValue values[] = {
    {GST_CLFFT_SPECTRUM_WINDOW_HANN, "Hann", "hann"},
    {GST_CLFFT_SPECTRUM_WINDOW_HAMMING, "Hamming (as spectrum)", "hamming"},
    {GST_CLFFT_SPECTRUM_WINDOW_BLACKMAN, "Blackman", "blackman"},
    {GST_CLFFT_SPECTRUM_WINDOW_BLACKMAN_HARRIS,
        "4-term Blackman-Harris (-92 dB side lobes)", "blackman-harris"},
    {GST_CLFFT_SPECTRUM_WINDOW_RECTANGULAR, "Rectangular (no window)",
        "rectangular"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstClfftSpectrumWindow", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

#define GST_TYPE_CLFFT_SPECTRUM_FREQUENCY_SCALE \
  (gst_clfft_spectrum_frequency_scale_get_type ())
static GType
gst_clfft_spectrum_frequency_scale_get_type (void)
{
  static gsize type = 0;
  static const GEnumValue values[] = {
    {GST_CLFFT_SPECTRUM_SCALE_LINEAR,
          "Linear: band k at k * rate / (2 * bands - 2) Hz (as spectrum)",
        "linear"},
    {GST_CLFFT_SPECTRUM_SCALE_LOG,
        "Logarithmic: bands geometrically spaced from min-frequency to "
          "Nyquist", "log"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstClfftSpectrumFrequencyScale",
        values);
    g_once_init_leave (&type, t);
  }
  return type;
}

#define GST_TYPE_CLFFT_SPECTRUM_MESSAGE_FORMAT \
  (gst_clfft_spectrum_message_format_get_type ())
static GType
gst_clfft_spectrum_message_format_get_type (void)
{
  static gsize type = 0;
  static const GEnumValue values[] = {
    {GST_CLFFT_SPECTRUM_FORMAT_LIST, "GstValueList fields (as spectrum)",
        "list"},
    {GST_CLFFT_SPECTRUM_FORMAT_ARRAY,
        "GstValueArray fields (readable from Python)", "array"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstClfftSpectrumMessageFormat",
        values);
    g_once_init_leave (&type, t);
  }
  return type;
}

#define gst_clfft_spectrum_parent_class parent_class
G_DEFINE_TYPE (GstClfftSpectrum, gst_clfft_spectrum, GST_TYPE_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE (clfftspectrum, "clfftspectrum", GST_RANK_NONE,
    GST_TYPE_CLFFT_SPECTRUM);

/* ------------------------------------------------------------------------
 * Audio analysis state
 * ---------------------------------------------------------------------- */

/* A message whose interval completed inside the current chunk: its levels
 * are the host accumulators plus the sums of the segments up to its own. */
typedef struct
{
  GstClockTime ts;
  guint num_fft;
} PendingMessage;

/* A chunk from its launch on: the host memory its upload reads (kept
 * until the device has read it), the per-segment sums it reads back and
 * the messages they complete. Finished by the streaming thread, or with
 * async-messages in order on the completion's thread; either way only
 * chunk_finish touches the interval's levels. */
typedef struct
{
  ClfContext *ctx;
  cl_event done;                /* the sums' read, until waited for */
  gboolean has_sums;            /* FFTs ran: the sums add to the levels */
  gboolean restart;             /* the levels start again from zero */
  guint nch, bands, flags, nseg;
  gboolean post, multi, as_list;
  GArray *pending;              /* PendingMessage of the closed segments */
  GList *drafts;                /* a message per pending one, when post */
  gfloat *stream;               /* the upload's host side */
  gsize stream_floats;
  guint *index;                 /* events, segment starts and their end */
  gsize index_len;
  gfloat *sums;                 /* per segment, read back: the nseg
                                 * segments' magnitudes, then phases */
  gsize sums_floats;
} SpectrumChunk;

#define N_PLANS 32

struct _GstClfftSpectrumAudio
{
  ClfContext *ctx;
  GstAudioFormat format;
  guint rate, channels, bpf;
  guint nch;                    /* analysed channels: channels, or 1 mixed */
  guint nfft, nbins, bands, hop;
  gfloat max_value;
  gboolean linear;              /* band b is bin b */
  guint band_run;               /* bands summed per work item */

  /* interleaved stream of nch channels: nfft frames of history, then the
   * chunk's m frames */
  gfloat *stream;
  guint stream_cap;             /* chunk frames the stream may hold */
  guint stream_alloc;           /* chunk frames allocated so far */
  guint m;

  /* FFT events (first frame of each window) and the segments of events
   * between messages: audio_run_chunk copies both, and seg_first's end,
   * into the chunk's index and uploads them at once (on PoCL each command
   * costs about as much as a small kernel). */
  guint *offsets;
  guint nev, ev_cap;
  GArray *seg_first;            /* guint: 0, end of each closed segment */
  GArray *pending;              /* PendingMessage, one per closed segment */

  /* zeros, [nch][bands]: the levels of drafted messages until filled */
  gfloat *draft_levels;
  guint sum_segs;               /* segments the device sums hold */

  cl_mem d_stream, d_index, d_window, d_in, d_spec;
  cl_mem d_mag, d_phase, d_band_first, d_band_bin, d_band_weight, d_phase_bin;
  gsize d_stream_size, d_in_size, d_spec_size;
  cl_kernel k_window, k_accum;
  ClfPlan *plans[N_PLANS];      /* plans[k]: batch MIN (2^k, fft_cap) */
  guint fft_cap;                /* FFTs in the largest batch */
};

static void
audio_free (GstClfftSpectrumAudio * a)
{
  guint i;
  cl_mem mems[] = { a->d_stream, a->d_index, a->d_window, a->d_in,
    a->d_spec, a->d_mag, a->d_phase, a->d_band_first, a->d_band_bin,
    a->d_band_weight, a->d_phase_bin
  };

  if (!a)
    return;

  clFinish (clf_context_get_queue (a->ctx));
  for (i = 0; i < G_N_ELEMENTS (mems); i++)
    if (mems[i])
      clReleaseMemObject (mems[i]);
  if (a->k_window)
    clReleaseKernel (a->k_window);
  if (a->k_accum)
    clReleaseKernel (a->k_accum);
  for (i = 0; i < N_PLANS; i++)
    if (a->plans[i])
      clf_plan_free (a->plans[i]);
  g_free (a->stream);
  g_free (a->offsets);
  if (a->seg_first)
    g_array_free (a->seg_first, TRUE);
  if (a->pending)
    g_array_free (a->pending, TRUE);
  g_free (a->draft_levels);
  clf_context_unref (a->ctx);
  g_free (a);
}

static gdouble
window_value (GstClfftSpectrumWindow window, guint i, guint n)
{
  /* periodic windows (cos of 2 pi i / n), as gst_fft_*_window */
  gdouble x = 2.0 * G_PI * i / n;

  switch (window) {
    case GST_CLFFT_SPECTRUM_WINDOW_HANN:
      return 0.5 - 0.5 * cos (x);
    case GST_CLFFT_SPECTRUM_WINDOW_HAMMING:
      return 0.53836 - 0.46164 * cos (x);
    case GST_CLFFT_SPECTRUM_WINDOW_BLACKMAN:
      return 0.42 - 0.5 * cos (x) + 0.08 * cos (2.0 * x);
    case GST_CLFFT_SPECTRUM_WINDOW_BLACKMAN_HARRIS:
      return 0.35875 - 0.48829 * cos (x) + 0.14128 * cos (2.0 * x)
          - 0.01168 * cos (3.0 * x);
    case GST_CLFFT_SPECTRUM_WINDOW_RECTANGULAR:
    default:
      return 1.0;
  }
}

/* Band tables of spectrum_accumulate: which bins, with which weights, make
 * up each band. Linear: band b is bin b. Log: band b is centred on
 * fmin * r^b (r such that the last band is at Nyquist) and spans the
 * geometric mid-points to its neighbours; a bin covers +-df/2 around its
 * frequency, and contributes its overlap with the band divided by the
 * smaller of the band and the bin width: wide bands sum the power of their
 * bins, bands narrower than a bin interpolate between the bins they touch,
 * so a sine reads the same level in either case. */
static void
audio_band_tables (GstClfftSpectrumAudio * a, gboolean log_scale,
    gdouble fmin, GArray * first, GArray * bin, GArray * weight,
    GArray * phase_bin)
{
  guint b, k;

  if (!log_scale) {
    for (b = 0; b < a->bands; b++) {
      gfloat one = 1.0f;
      g_array_append_val (first, b);
      g_array_append_val (bin, b);
      g_array_append_val (weight, one);
      g_array_append_val (phase_bin, b);
    }
    g_array_append_val (first, a->bands);
    return;
  }

  {
    gdouble nyq = a->rate / 2.0;
    gdouble df = (gdouble) a->rate / a->nfft;
    gdouble lr = log (nyq / fmin) / (a->bands - 1);
    gdouble half_step = exp (lr / 2.0);

    for (b = 0; b < a->bands; b++) {
      gdouble fc = fmin * exp (lr * b);
      gdouble lo = fc / half_step, hi = fc * half_step;
      gdouble norm = MIN (df, hi - lo);
      gint k0 = (gint) floor (lo / df + 0.5);
      gint k1 = (gint) ceil (hi / df - 0.5);
      guint pb;

      g_array_append_val (first, bin->len);
      k0 = CLAMP (k0, 0, (gint) a->nbins - 1);
      k1 = CLAMP (k1, 0, (gint) a->nbins - 1);
      for (k = k0; k <= (guint) k1; k++) {
        gdouble ov = MIN (hi, (k + 0.5) * df) - MAX (lo, (k - 0.5) * df);
        if (ov > 0.0) {
          gfloat w = ov / norm;
          g_array_append_val (bin, k);
          g_array_append_val (weight, w);
        }
      }
      pb = (guint) MIN (floor (fc / df + 0.5), (gdouble) a->nbins - 1);
      g_array_append_val (phase_bin, pb);
    }
    g_array_append_val (first, bin->len);
  }
}

static cl_mem
upload_new (ClfContext * ctx, gconstpointer data, gsize size, ClfError * err)
{
  cl_mem mem = clf_context_alloc (ctx, CL_MEM_READ_ONLY, size, err);
  cl_int status;

  if (!mem)
    return NULL;
  status = clEnqueueWriteBuffer (clf_context_get_queue (ctx), mem, CL_TRUE, 0,
      size, data, 0, NULL, NULL);
  if (status != CL_SUCCESS) {
    clReleaseMemObject (mem);
    err->code = CLF_ERROR_OPENCL;
    g_snprintf (err->message, sizeof (err->message),
        "clEnqueueWriteBuffer failed (%d)", status);
    return NULL;
  }
  return mem;
}

/* Builds the analysis for the negotiated audio and the current properties
 * (called with the lock held). Posts an error and returns NULL on failure. */
static GstClfftSpectrumAudio *
audio_new (GstClfftSpectrum * self)
{
  GstClfftSpectrumAudio *a = g_new0 (GstClfftSpectrumAudio, 1);
  const GstAudioInfo *info = &self->audio_info;
  ClfError err = { 0, };
  const gchar *what = "building the spectrum kernels";
  gboolean log_scale = self->frequency_scale == GST_CLFFT_SPECTRUM_SCALE_LOG;
  gdouble fmin = self->min_frequency;
  GArray *first, *bin, *weight, *phase_bin;
  gfloat *win;
  guint i, overlap_frames;

  a->ctx = clf_context_ref (self->ctx);
  a->format = GST_AUDIO_INFO_FORMAT (info);
  a->rate = GST_AUDIO_INFO_RATE (info);
  a->channels = GST_AUDIO_INFO_CHANNELS (info);
  a->bpf = GST_AUDIO_INFO_BPF (info);
  a->nch = self->multi_channel ? a->channels : 1;
  a->bands = self->bands;
  a->linear = !log_scale;
  /* a CPU device vectorises a run of bands; a GPU wants them spread */
  a->band_run = clf_context_is_cpu (a->ctx) ? 64 : 1;
  /* as spectrum: the largest value of the integer format, in float */
  a->max_value = (gfloat) ((1UL << ((GST_AUDIO_INFO_BPS (info) << 3) - 1))
      - 1);

  a->nfft = 2 * a->bands - 2;
  if (log_scale) {
    gdouble nyq = a->rate / 2.0;
    guint64 need;

    if (fmin >= nyq) {
      GST_WARNING_OBJECT (self, "min-frequency %g Hz is not below Nyquist "
          "(%g Hz), using %g Hz", fmin, nyq, nyq / 2.0);
      fmin = nyq / 2.0;
    }
    need = (guint64) ceil (LOG_MIN_PERIODS * a->rate / fmin);
    need = MIN (need, (guint64) LOG_MAX_NFFT);
    need = MAX (need, 2);
    a->nfft = MAX (a->nfft, (guint) (1u << g_bit_storage (need - 1)));
  }
  a->nbins = a->nfft / 2 + 1;
  overlap_frames = (guint) floor (self->overlap * a->nfft + 0.5);
  a->hop = MAX (1, a->nfft - overlap_frames);

  a->fft_cap = MAX (MAX_BATCH_FLOATS / a->nfft, a->nch);
  a->fft_cap -= a->fft_cap % a->nch;
  a->ev_cap = a->fft_cap / a->nch;
  a->stream_cap = (guint) MIN ((guint64) a->ev_cap * a->hop,
      (guint64) MAX (MAX_BATCH_FLOATS / a->nch, a->hop));
  a->stream_cap = MAX (a->stream_cap, 1);
  /* events, then at most one segment per event plus two, and the end */
  a->offsets = g_new (guint, a->ev_cap);
  a->seg_first = g_array_new (FALSE, FALSE, sizeof (guint));
  a->pending = g_array_new (FALSE, FALSE, sizeof (PendingMessage));
  /* An FFT the device cannot hold fails here, before the host tables:
   * Linux overcommits those, and filling them ends in the OOM killer. */
  {
    cl_ulong max_alloc = 0;
    guint64 need = (guint64) a->nch * a->nbins * 2 * sizeof (gfloat);
    clGetDeviceInfo (clf_context_get_device (a->ctx),
        CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof (max_alloc), &max_alloc, NULL);
    /* the host tables (sums, history, window) and, on a CPU device, the
     * device buffers all come out of this machine's memory */
    guint64 host = ((guint64) a->nch * (2 * (guint64) a->bands + a->nfft) +
        a->nfft) * sizeof (gfloat) + 2 * need;
    guint64 phys = (guint64) sysconf (_SC_PHYS_PAGES) *
        (guint64) sysconf (_SC_PAGESIZE);
    if (phys > 0 && host > phys / 2) {
      what = "planning the spectrum";
      err.code = CLF_ERROR_OUT_OF_MEMORY;
      g_snprintf (err.message, sizeof (err.message), "bands=%u: %u channel(s) "
          "of a %u-point FFT need about %" G_GUINT64_FORMAT " MiB, more than "
          "half of this machine's %" G_GUINT64_FORMAT " MiB", a->bands, a->nch,
          a->nfft, host >> 20, phys >> 20);
      goto error;
    }
    if (need > max_alloc) {
      what = "planning the spectrum";
      err.code = CLF_ERROR_OUT_OF_MEMORY;
      g_snprintf (err.message, sizeof (err.message), "bands=%u: %u channel(s) "
          "of a %u-point FFT need %" G_GUINT64_FORMAT " bytes in one buffer, "
          "the device allows %" G_GUINT64_FORMAT, a->bands, a->nch, a->nfft,
          need, (guint64) max_alloc);
      goto error;
    }
  }
  /* huge bands values must fail with an error, not abort */
  what = "allocating host memory for the spectrum";
  a->draft_levels = g_try_new0 (gfloat, (gsize) a->nch * a->bands);
  /* history starts silent, as spectrum's zeroed ring buffers */
  a->stream = g_try_new0 (gfloat, (gsize) a->nch * a->nfft);
  win = g_try_new (gfloat, a->nfft);
  if (!a->draft_levels || !a->stream || !win) {
    g_free (win);
    err.code = CLF_ERROR_OUT_OF_MEMORY;
    g_snprintf (err.message, sizeof (err.message), "%u channel(s) of a "
        "%u-point FFT", a->nch, a->nfft);
    goto error;
  }

  what = "building the spectrum kernels";
  if (!(a->k_window = clf_context_create_kernel (a->ctx, "spectrum",
              "spectrum_window", &err)) ||
      !(a->k_accum = clf_context_create_kernel (a->ctx, "spectrum",
              "spectrum_accumulate", &err))) {
    g_free (win);
    goto error;
  }

  what = "uploading the window and band tables";
  for (i = 0; i < a->nfft; i++)
    win[i] = window_value (self->window, i, a->nfft);
  a->d_window = upload_new (a->ctx, win, a->nfft * sizeof (gfloat), &err);
  g_free (win);
  if (!a->d_window)
    goto error;

  first = g_array_new (FALSE, FALSE, sizeof (guint));
  bin = g_array_new (FALSE, FALSE, sizeof (guint));
  weight = g_array_new (FALSE, FALSE, sizeof (gfloat));
  phase_bin = g_array_new (FALSE, FALSE, sizeof (guint));
  audio_band_tables (a, log_scale, fmin, first, bin, weight, phase_bin);
  /* a log band can be empty only if it lies beyond every bin; keep the
   * buffers non-empty for clCreateBuffer */
  if (bin->len == 0) {
    guint zero = 0;
    gfloat w = 0.0f;
    g_array_append_val (bin, zero);
    g_array_append_val (weight, w);
  }
  a->d_band_first = upload_new (a->ctx, first->data,
      first->len * sizeof (guint), &err);
  if (a->d_band_first)
    a->d_band_bin = upload_new (a->ctx, bin->data, bin->len * sizeof (guint),
        &err);
  if (a->d_band_bin)
    a->d_band_weight = upload_new (a->ctx, weight->data,
        weight->len * sizeof (gfloat), &err);
  if (a->d_band_weight)
    a->d_phase_bin = upload_new (a->ctx, phase_bin->data,
        phase_bin->len * sizeof (guint), &err);
  g_array_free (first, TRUE);
  g_array_free (bin, TRUE);
  g_array_free (weight, TRUE);
  g_array_free (phase_bin, TRUE);
  if (!a->d_phase_bin)
    goto error;

  GST_INFO_OBJECT (self, "audio analysis: %u Hz, %u channel(s) analysed as "
      "%u, nfft %u (hop %u), %u %s bands, up to %u FFTs per batch", a->rate,
      a->channels, a->nch, a->nfft, a->hop, a->bands,
      log_scale ? "log" : "linear", a->fft_cap);
  return a;

error:
  gst_clfft_device_post_error (GST_ELEMENT (self), a->ctx, &err, what);
  audio_free (a);
  return NULL;
}

/* The plan for at least nffts transforms, batch rounded up to a power of
 * two (capped at fft_cap) so few plans serve any buffer size. */
static ClfPlan *
audio_get_plan (GstClfftSpectrumAudio * a, guint nffts, ClfError * err)
{
  guint k = g_bit_storage (MAX (nffts, 1) - 1);
  guint batch;
  ClfPlanDesc d;
  ClfPlan *plan;

  g_assert (k < N_PLANS);
  if (a->plans[k])
    return a->plans[k];

  batch = MIN (1u << k, a->fft_cap);
  clf_plan_desc_init (&d, CLF_R2C, CLF_FORWARD, a->nfft, 0, batch);
  plan = clf_plan_new (a->ctx, &d, err);
  if (!plan)
    return NULL;
  GST_DEBUG ("plan for %u x %u-point R2C: %s", batch, a->nfft,
      clf_plan_describe (plan));
  a->plans[k] = plan;
  return plan;
}

static gboolean
ensure_mem (ClfContext * ctx, cl_mem * mem, gsize * have, gsize need,
    cl_mem_flags flags, ClfError * err)
{
  if (*mem && *have >= need)
    return TRUE;
  if (*mem)
    clReleaseMemObject (*mem);
  *have = 0;
  *mem = clf_context_alloc (ctx, flags, need, err);
  if (!*mem)
    return FALSE;
  *have = need;
  return TRUE;
}

static cl_int
fill_zero (ClfContext * ctx, cl_mem mem, gsize size)
{
  const cl_float zero = 0.0f;
  return clEnqueueFillBuffer (clf_context_get_queue (ctx), mem, &zero,
      sizeof (zero), 0, size, 0, NULL, NULL);
}

#define SET_ARG(k, i, val) \
  (status |= clSetKernelArg ((k), (i), sizeof (val), &(val)))

/* Grows *mem to hold need elements of size each; FALSE if memory ran out */
static gboolean
ensure_host (gpointer * mem, gsize * have, gsize need, gsize size)
{
  gpointer grown;

  if (*have >= need)
    return TRUE;
  grown = g_try_realloc (*mem, need * size);
  if (!grown)
    return FALSE;
  *mem = grown;
  *have = need;
  return TRUE;
}

/* Queues the chunk's FFT events on the device, uploading chunk->stream
 * and the events, and the reads of the per-segment sums into
 * chunk->sums, which are there once chunk->done completes. */
static gboolean
audio_run_chunk (GstClfftSpectrumAudio * a, SpectrumChunk * chunk,
    gint threshold, ClfError * err, const gchar ** what)
{
  guint flags = chunk->flags;
  cl_event *done = &chunk->done;
  cl_command_queue q = clf_context_get_queue (a->ctx);
  guint nseg = a->seg_first->len;
  guint nffts = a->nev * a->nch;
  gsize stream_floats = (gsize) (a->nfft + a->m) * a->nch;
  gsize sums = (gsize) nseg * a->nch * a->bands;
  cl_uint nfft = a->nfft, nch = a->nch, nffts_arg = nffts, nbins = a->nbins;
  cl_uint nseg_arg = nseg, bands = a->bands, run = a->band_run;
  cl_uint flags_arg = flags | (a->linear ? 4 : 0);
  cl_uint nev = a->nev;
  cl_float inv_n2 = 1.0 / ((gdouble) a->nfft * a->nfft), thr = threshold;
  ClfPlan *plan;
  cl_int status = CL_SUCCESS;
  size_t gs[2];
  guint end = a->nev;

  *what = "planning the batched FFT";
  plan = audio_get_plan (a, nffts, err);
  if (!plan)
    return FALSE;

  *what = "allocating device buffers for the spectrum";
  if (!ensure_mem (a->ctx, &a->d_stream, &a->d_stream_size,
          stream_floats * sizeof (gfloat), CL_MEM_READ_ONLY, err))
    return FALSE;
  if (!a->d_index) {
    a->d_index = clf_context_alloc (a->ctx, CL_MEM_READ_ONLY,
        INDEX_SIZE (a->ev_cap) * sizeof (guint), err);
    if (!a->d_index)
      return FALSE;
  }
  if (!ensure_host ((gpointer *) & chunk->sums, &chunk->sums_floats,
          2 * sums, sizeof (gfloat)) ||
      !ensure_host ((gpointer *) & chunk->index, &chunk->index_len,
          a->nev + nseg + 1, sizeof (guint))) {
    err->code = CLF_ERROR_OUT_OF_MEMORY;
    g_snprintf (err->message, sizeof (err->message), "no host memory for "
        "the sums of %u segment(s)", nseg);
    return FALSE;
  }
  if (a->sum_segs < nseg) {
    /* a chunk has at most one segment per event, plus two */
    guint segs = MAX (nseg, MIN (a->ev_cap + 2, 16u));
    gsize floats = (gsize) segs * a->nch * a->bands;

    if (a->d_mag)
      clReleaseMemObject (a->d_mag);
    if (a->d_phase)
      clReleaseMemObject (a->d_phase);
    a->d_mag = a->d_phase = NULL;
    a->sum_segs = 0;
    if (!(a->d_mag = clf_context_alloc (a->ctx, CL_MEM_WRITE_ONLY,
                floats * sizeof (gfloat), err)) ||
        !(a->d_phase = clf_context_alloc (a->ctx, CL_MEM_WRITE_ONLY,
                floats * sizeof (gfloat), err)))
      return FALSE;
    a->sum_segs = segs;
  }
  if (a->d_in_size < clf_plan_input_size (plan)) {
    if (!ensure_mem (a->ctx, &a->d_in, &a->d_in_size,
            clf_plan_input_size (plan), CL_MEM_READ_WRITE, err))
      return FALSE;
    /* the plan transforms its whole batch: keep the unused windows finite */
    status = fill_zero (a->ctx, a->d_in, a->d_in_size);
  }
  if (!ensure_mem (a->ctx, &a->d_spec, &a->d_spec_size,
          clf_plan_output_size (plan), CL_MEM_READ_WRITE, err))
    return FALSE;

  *what = "analysing the audio spectrum";
  /* the events, then seg_first with its closing entry, in one upload */
  memcpy (chunk->index, a->offsets, a->nev * sizeof (guint));
  memcpy (chunk->index + a->nev, a->seg_first->data, nseg * sizeof (guint));
  chunk->index[a->nev + nseg] = end;
  status |= clEnqueueWriteBuffer (q, a->d_stream, CL_FALSE, 0,
      stream_floats * sizeof (gfloat), chunk->stream, 0, NULL, NULL);
  status |= clEnqueueWriteBuffer (q, a->d_index, CL_FALSE, 0,
      (a->nev + nseg + 1) * sizeof (guint), chunk->index, 0, NULL, NULL);
  if (status != CL_SUCCESS)
    goto cl_error;

  SET_ARG (a->k_window, 0, a->d_stream);
  SET_ARG (a->k_window, 1, a->d_index);
  SET_ARG (a->k_window, 2, a->d_window);
  SET_ARG (a->k_window, 3, a->d_in);
  SET_ARG (a->k_window, 4, nfft);
  SET_ARG (a->k_window, 5, nch);
  SET_ARG (a->k_window, 6, nffts_arg);
  if (status != CL_SUCCESS)
    goto cl_error;
  gs[0] = nfft;
  gs[1] = nffts;
  status = clEnqueueNDRangeKernel (q, a->k_window, 2, NULL, gs, NULL, 0, NULL,
      NULL);
  if (status != CL_SUCCESS)
    goto cl_error;

  if (clf_plan_enqueue (plan, a->d_in, a->d_spec, err) != CLF_OK) {
    clFinish (q);
    return FALSE;
  }

  SET_ARG (a->k_accum, 0, a->d_spec);
  SET_ARG (a->k_accum, 1, nbins);
  SET_ARG (a->k_accum, 2, a->d_index);
  SET_ARG (a->k_accum, 3, nseg_arg);
  SET_ARG (a->k_accum, 4, nch);
  SET_ARG (a->k_accum, 5, bands);
  SET_ARG (a->k_accum, 6, a->d_band_first);
  SET_ARG (a->k_accum, 7, a->d_band_bin);
  SET_ARG (a->k_accum, 8, a->d_band_weight);
  SET_ARG (a->k_accum, 9, a->d_phase_bin);
  SET_ARG (a->k_accum, 10, inv_n2);
  SET_ARG (a->k_accum, 11, thr);
  SET_ARG (a->k_accum, 12, flags_arg);
  SET_ARG (a->k_accum, 13, a->d_mag);
  SET_ARG (a->k_accum, 14, a->d_phase);
  SET_ARG (a->k_accum, 15, nev);
  SET_ARG (a->k_accum, 16, run);
  if (status != CL_SUCCESS)
    goto cl_error;
  gs[0] = (bands + run - 1) / run;
  gs[1] = nseg * (gsize) nch;
  status = clEnqueueNDRangeKernel (q, a->k_accum, 2, NULL, gs, NULL, 0, NULL,
      NULL);
  if (status != CL_SUCCESS)
    goto cl_error;

  if (flags & 2)
    status = clEnqueueReadBuffer (q, a->d_phase, CL_FALSE, 0,
        sums * sizeof (gfloat), chunk->sums + sums, 0, NULL, NULL);
  status |= clEnqueueReadBuffer (q, a->d_mag, CL_FALSE, 0,
      sums * sizeof (gfloat), chunk->sums, 0, NULL, done);
  if (status == CL_SUCCESS)
    status = clFlush (q);
  if (status != CL_SUCCESS) {
    if (*done)
      clReleaseEvent (*done);
    *done = NULL;
    goto cl_error;
  }
  return TRUE;

cl_error:
  clFinish (q);
  clf_set_cl_error (err, status, "queueing the spectrum kernels");
  return FALSE;
}

/* Waits for the chunk that audio_run_chunk queued, and releases done */
static gboolean
audio_wait_chunk (GstClfftSpectrumAudio * a, cl_event done, ClfError * err)
{
  /* the streaming thread waits for a few small commands */
  cl_int status = gst_clfft_completion_wait_event (done, TRUE);

  if (status == CL_SUCCESS)
    return TRUE;
  clFinish (clf_context_get_queue (a->ctx));
  clf_set_cl_error (err, status, "running the spectrum kernels");
  return FALSE;
}

/* ------------------------------------------------------------------------
 * Messages
 * ---------------------------------------------------------------------- */

/* container: an uninitialised GValue, made a list (or array) of n floats,
 * sized once and filled by taking each value rather than copying it
 * (1024 bands: about 25 instead of 40 us per message). */
static void
init_floats (GValue * container, const gfloat * data, guint n,
    gboolean as_list)
{
  guint i;

  if (as_list)
    gst_value_list_init (container, n);
  else
    gst_value_array_init (container, n);
  for (i = 0; i < n; i++) {
    GValue v = G_VALUE_INIT;

    g_value_init (&v, G_TYPE_FLOAT);
    g_value_set_float (&v, data[i]);
    if (as_list)
      gst_value_list_append_and_take_value (container, &v);
    else
      gst_value_array_append_and_take_value (container, &v);
  }
}

/* A field of n floats per channel: one list (or array) when single, an
 * array of arrays per channel when multi, as spectrum posts them. */
static void
set_levels_field (GstStructure * s, const gchar * name, const gfloat * data,
    guint channels, guint n, gboolean multi, gboolean as_list)
{
  GValue field = G_VALUE_INIT;

  if (!multi) {
    init_floats (&field, data, n, as_list);
  } else {
    guint c;

    gst_value_array_init (&field, channels);
    for (c = 0; c < channels; c++) {
      GValue ch = G_VALUE_INIT;

      init_floats (&ch, data + (gsize) c * n, n, FALSE);
      gst_value_array_append_and_take_value (&field, &ch);
    }
  }
  gst_structure_take_value (s, name, &field);
}

static GstMessage *
spectrum_message_new (GstClfftSpectrum * self, GstClockTime timestamp,
    GstClockTime duration, const gfloat * mag, const gfloat * phase,
    guint channels, guint bands, gboolean multi, gboolean as_list)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  GstClockTime running_time, stream_time, endtime;
  GstStructure *s;

  /* a segment in another format (appsrc's default BYTES) has no times to
   * convert to: the fields say so rather than GLib warning on each message */
  if (trans->segment.format == GST_FORMAT_TIME) {
    running_time = gst_segment_to_running_time (&trans->segment,
        GST_FORMAT_TIME, timestamp);
    stream_time = gst_segment_to_stream_time (&trans->segment,
        GST_FORMAT_TIME, timestamp);
  } else {
    running_time = stream_time = GST_CLOCK_TIME_NONE;
  }
  /* endtime is deprecated in spectrum but kept, with its arithmetic (an
   * invalid stream time wraps there too) */
  endtime = stream_time + duration;

  s = gst_structure_new ("spectrum",
      "endtime", GST_TYPE_CLOCK_TIME, endtime,
      "timestamp", G_TYPE_UINT64, timestamp,
      "stream-time", G_TYPE_UINT64, stream_time,
      "running-time", G_TYPE_UINT64, running_time,
      "duration", G_TYPE_UINT64, duration, NULL);
  if (mag)
    set_levels_field (s, "magnitude", mag, channels, bands, multi, as_list);
  if (phase)
    set_levels_field (s, "phase", phase, channels, bands, multi, as_list);

  return gst_message_new_element (GST_OBJECT (self), s);
}

/* Writes data over the n floats of container (made by init_floats). The
 * message holding it is not posted yet, so its values are ours to set. */
static void
fill_floats (const GValue * container, const gfloat * data, guint n,
    gboolean as_list)
{
  guint i;

  for (i = 0; i < n; i++) {
    GValue *v = (GValue *) (as_list ? gst_value_list_get_value (container, i) :
        gst_value_array_get_value (container, i));

    g_value_set_float (v, data[i]);
  }
}

static void
fill_levels_field (GstStructure * s, const gchar * name, const gfloat * data,
    guint channels, guint n, gboolean multi, gboolean as_list)
{
  const GValue *field = gst_structure_get_value (s, name);
  guint c;

  if (!multi) {
    fill_floats (field, data, n, as_list);
    return;
  }
  for (c = 0; c < channels; c++)
    fill_floats (gst_value_array_get_value (field, c), data + (gsize) c * n,
        n, FALSE);
}

/* Sets the levels of a message that spectrum_message_new drafted */
static void
spectrum_message_fill (GstMessage * msg, const gfloat * mag,
    const gfloat * phase, guint channels, guint bands, gboolean multi,
    gboolean as_list)
{
  GstStructure *s = gst_message_writable_structure (msg);

  if (mag)
    fill_levels_field (s, "magnitude", mag, channels, bands, multi, as_list);
  if (phase)
    fill_levels_field (s, "phase", phase, channels, bands, multi, as_list);
}

/* ------------------------------------------------------------------------
 * Audio processing: GstSpectrum's interval logic on the host
 * ---------------------------------------------------------------------- */

/* spectrum's flush: forget the current interval */
/* Forgets the FFTs not run yet; the last nfft frames of the stream in
 * from (a->stream, or the one a chunk took over) stay as the history the
 * next FFTs reach back into. */
static void
audio_drop_events (GstClfftSpectrumAudio * a, const gfloat * from)
{
  memmove (a->stream, from + (gsize) a->m * a->nch,
      (gsize) a->nfft * a->nch * sizeof (gfloat));
  a->m = 0;
  a->nev = 0;
  g_array_set_size (a->seg_first, 1);
  g_array_set_size (a->pending, 0);
}

static void
audio_flush (GstClfftSpectrum * self)
{
  self->num_frames = 0;
  self->num_fft = 0;
  self->accumulated_error = 0;
  /* spectrum keeps the levels summed before the discontinuity and divides
   * them by the FFTs counted after it; start the interval clean instead
   * (with the next chunk, in the order chunks finish) */
  self->restart_levels = TRUE;
  /* FFTs of the interval cut short by the discontinuity */
  if (self->audio)
    audio_drop_events (self->audio, self->audio->stream);
}

/* Drops the analysis state: rebuilt, and the interval restarted, on the
 * next buffer (as spectrum's reset_state). Called with the lock held. */
static void
audio_reset (GstClfftSpectrum * self)
{
  if (self->audio) {
    audio_free (self->audio);
    self->audio = NULL;
  }
  audio_flush (self);
}

static gboolean
audio_ensure (GstClfftSpectrum * self)
{
  guint rate;

  if (self->audio)
    return TRUE;

  self->audio = audio_new (self);
  if (!self->audio)
    return FALSE;

  /* the frames of one interval, and the nanoseconds of rounding error
   * per interval, which add a frame whenever they exceed a second */
  rate = GST_AUDIO_INFO_RATE (&self->audio_info);
  self->frames_per_interval = gst_util_uint64_scale (self->interval, rate,
      GST_SECOND);
  self->frames_todo = self->frames_per_interval;
  self->error_per_interval = (self->interval * rate) % GST_SECOND;
  if (self->frames_per_interval == 0)
    self->frames_per_interval = 1;
  GST_INFO_OBJECT (self, "interval %" GST_TIME_FORMAT ", fpi %"
      G_GUINT64_FORMAT ", error %" GST_TIME_FORMAT,
      GST_TIME_ARGS (self->interval), self->frames_per_interval,
      GST_TIME_ARGS (self->error_per_interval));
  audio_flush (self);
  return TRUE;
}

/* Converts frames to float as spectrum does: integers divided by the
 * format's largest value, channels averaged when not multi-channel. */
static void
audio_convert (GstClfftSpectrumAudio * a, const guint8 * in, gfloat * out,
    guint frames)
{
  const guint ch = a->channels, nch = a->nch;
  const gfloat max_value = a->max_value;
  guint j, c;

  switch (a->format) {
    case GST_AUDIO_FORMAT_S16:{
      const gint16 *s = (const gint16 *) in;
      if (nch == 1 && ch == 2) {
        /* stereo mixed, the common case, in a loop the compiler
         * vectorises: the same sums and quotients as below */
        for (j = 0; j < frames; j++)
          out[j] = (s[2 * j] / max_value + s[2 * j + 1] / max_value) / 2.0f;
        break;
      }
      for (j = 0; j < frames; j++, s += ch, out += nch) {
        if (nch > 1) {
          for (c = 0; c < ch; c++)
            out[c] = s[c] / max_value;
        } else {
          gfloat v = s[0] / max_value;
          for (c = 1; c < ch; c++)
            v += s[c] / max_value;
          out[0] = v / ch;
        }
      }
      break;
    }
    case GST_AUDIO_FORMAT_S24:{
      for (j = 0; j < frames; j++, out += nch) {
        gfloat v = 0.0f;
        for (c = 0; c < ch; c++, in += 3) {
#if G_BYTE_ORDER == G_BIG_ENDIAN
          gint32 x = GST_READ_UINT24_BE (in);
#else
          gint32 x = GST_READ_UINT24_LE (in);
#endif
          if (x & 0x00800000)
            x |= 0xff000000;
          if (nch > 1)
            out[c] = x / max_value;
          else
            v += x / max_value;
        }
        /* spectrum's mixing S24 reader never resets this sum between
         * frames, which integrates the signal; average each frame */
        if (nch == 1)
          out[0] = v / ch;
      }
      break;
    }
    case GST_AUDIO_FORMAT_S32:{
      const gint32 *s = (const gint32 *) in;
      for (j = 0; j < frames; j++, s += ch, out += nch) {
        if (nch > 1) {
          for (c = 0; c < ch; c++)
            out[c] = s[c] / max_value;
        } else {
          gfloat v = s[0] / max_value;
          for (c = 1; c < ch; c++)
            v += s[c] / max_value;
          out[0] = v / ch;
        }
      }
      break;
    }
    case GST_AUDIO_FORMAT_F32:{
      const gfloat *s = (const gfloat *) in;
      if (nch == 1 && ch == 2) {
        /* (as S16's; the mixing loop below took 10% of a bands=1024
         * stream's time on a 2-core Xeon) */
        for (j = 0; j < frames; j++)
          out[j] = (s[2 * j] + s[2 * j + 1]) / 2.0f;
        break;
      }
      for (j = 0; j < frames; j++, s += ch, out += nch) {
        if (nch > 1) {
          for (c = 0; c < ch; c++)
            out[c] = s[c];
        } else {
          gfloat v = s[0];
          for (c = 1; c < ch; c++)
            v += s[c];
          out[0] = v / ch;
        }
      }
      break;
    }
    case GST_AUDIO_FORMAT_F64:{
      const gdouble *s = (const gdouble *) in;
      for (j = 0; j < frames; j++, s += ch, out += nch) {
        if (nch > 1) {
          for (c = 0; c < ch; c++)
            out[c] = s[c];
        } else {
          gfloat v = s[0];
          for (c = 1; c < ch; c++)
            v += s[c];
          out[0] = v / ch;
        }
      }
      break;
    }
    default:
      g_assert_not_reached ();
      break;
  }
}

/* A chunk to fill: a finished one kept for reuse, or a new one */
static SpectrumChunk *
chunk_obtain (GstClfftSpectrum * self)
{
  SpectrumChunk *chunk = g_async_queue_try_pop (self->spare_chunks);

  if (!chunk) {
    chunk = g_new0 (SpectrumChunk, 1);
    chunk->pending = g_array_new (FALSE, FALSE, sizeof (PendingMessage));
  }
  return chunk;
}

static void
chunk_free (SpectrumChunk * chunk)
{
  g_array_free (chunk->pending, TRUE);
  g_free (chunk->stream);
  g_free (chunk->index);
  g_free (chunk->sums);
  g_free (chunk);
}

/* Drops what the chunk still holds of its run, and keeps its memory for
 * the next one (a few at most) */
static void
chunk_release (GstClfftSpectrum * self, SpectrumChunk * chunk)
{
  g_list_free_full (chunk->drafts, (GDestroyNotify) gst_message_unref);
  chunk->drafts = NULL;
  if (chunk->done)
    clReleaseEvent (chunk->done);
  chunk->done = NULL;
  g_clear_pointer (&chunk->ctx, clf_context_unref);
  g_array_set_size (chunk->pending, 0);
  if (g_async_queue_length (self->spare_chunks) < MAX_SPARE_CHUNKS)
    g_async_queue_push (self->spare_chunks, chunk);
  else
    chunk_free (chunk);
}

/* Adds the chunk's segment sums to the interval's levels, completes the
 * drafted message of each segment that closes an interval (prepended to
 * *messages) and starts the next interval's levels from zero. Chunks
 * finish in the order they ran, so the levels carry across them. */
static void
chunk_finish (GstClfftSpectrum * self, SpectrumChunk * chunk, GList ** messages)
{
  gsize per_seg = (gsize) chunk->nch * chunk->bands;
  const gfloat *sum_mag = chunk->sums;
  const gfloat *sum_phase = chunk->sums + chunk->nseg * per_seg;
  GList *draft = chunk->drafts;
  guint s, i;

  if (chunk->restart || self->level_len != per_seg) {
    g_free (self->level_mag);
    g_free (self->level_phase);
    self->level_mag = g_new0 (gfloat, per_seg);
    self->level_phase = g_new0 (gfloat, per_seg);
    self->level_len = per_seg;
  }
  for (s = 0; s < chunk->nseg; s++) {
    if (chunk->has_sums) {
      for (i = 0; i < per_seg; i++)
        self->level_mag[i] += sum_mag[s * per_seg + i];
      /* phases are read back only when the messages carry them */
      for (i = 0; (chunk->flags & 2) && i < per_seg; i++)
        self->level_phase[i] += sum_phase[s * per_seg + i];
    }
    if (s < chunk->pending->len) {
      const PendingMessage *pm =
          &g_array_index (chunk->pending, PendingMessage, s);

      if (chunk->post) {
        for (i = 0; i < per_seg; i++) {
          self->level_mag[i] /= pm->num_fft;
          self->level_phase[i] /= pm->num_fft;
        }
        spectrum_message_fill (draft->data,
            (chunk->flags & 1) ? self->level_mag : NULL,
            (chunk->flags & 2) ? self->level_phase : NULL, chunk->nch,
            chunk->bands, chunk->multi, chunk->as_list);
        *messages = g_list_prepend (*messages, draft->data);
        draft->data = NULL;
        draft = draft->next;
      }
      memset (self->level_mag, 0, per_seg * sizeof (gfloat));
      memset (self->level_phase, 0, per_seg * sizeof (gfloat));
    }
  }
  g_list_free (chunk->drafts);
  chunk->drafts = NULL;
}

static void
post_messages (GstClfftSpectrum * self, GList * messages)
{
  GList *l;

  messages = g_list_reverse (messages);
  for (l = messages; l; l = l->next)
    gst_element_post_message (GST_ELEMENT (self), l->data);
  g_list_free (messages);
}

/* async-messages: a chunk's device work has ended (on the completion's
 * thread, which posts without any lock of ours) */
static void
chunk_done_async (gpointer job, cl_int status, gpointer user_data)
{
  GstClfftSpectrum *self = user_data;
  SpectrumChunk *chunk = job;
  GList *messages = NULL;

  if (status != CL_SUCCESS) {
    ClfError err = { 0, };

    clf_set_cl_error (&err, status, "running the spectrum kernels");
    /* the streaming thread sees the flag and stops with an error */
    if (g_atomic_int_compare_and_exchange (&self->device_failed, 0, 1))
      gst_clfft_device_post_error (GST_ELEMENT (self), chunk->ctx, &err,
          "analysing the audio spectrum");
  } else if (!g_atomic_int_get (&self->device_failed)) {
    chunk_finish (self, chunk, &messages);
    post_messages (self, messages);
  }
  chunk_release (self, chunk);
}

/* Runs the chunk's FFTs and drafts the messages of its closed intervals,
 * keeping the last nfft frames as the next chunk's history. Without
 * async-messages it waits for the device and finishes the chunk (its
 * messages appended to *messages, posted by the caller without the lock);
 * with it, the chunk goes to *queued, for the completion. */
static gboolean
audio_finish_chunk (GstClfftSpectrum * self, gint threshold, guint flags,
    gboolean post, gboolean as_list, GList ** messages, GQueue * queued)
{
  GstClfftSpectrumAudio *a = self->audio;
  SpectrumChunk *chunk = chunk_obtain (self);
  gsize stream_floats = (gsize) (a->nfft + a->stream_alloc) * a->nch;
  guint nffts = a->nev * a->nch, frames = a->m;
  gint64 t0 = g_get_monotonic_time ();
  ClfError err = { 0, };
  const gchar *what = "allocating host memory for the spectrum";
  gfloat *stream;
  guint s;

  chunk->ctx = clf_context_ref (a->ctx);
  chunk->restart = self->restart_levels;
  chunk->nch = a->nch;
  chunk->bands = a->bands;
  chunk->flags = flags;
  chunk->nseg = a->seg_first->len;
  chunk->post = post;
  chunk->multi = self->multi_channel;
  chunk->as_list = as_list;
  g_array_append_vals (chunk->pending, a->pending->data, a->pending->len);

  /* The chunk takes the stream over until the device has read it, and
   * gives its own memory for the next frames: no copy, and the next
   * buffer is converted while the upload may still be queued. */
  if (!ensure_host ((gpointer *) & chunk->stream, &chunk->stream_floats,
          stream_floats, sizeof (gfloat))) {
    err.code = CLF_ERROR_OUT_OF_MEMORY;
    g_snprintf (err.message, sizeof (err.message), "%" G_GSIZE_FORMAT
        " floats of stream", stream_floats);
    goto error;
  }
  stream = chunk->stream;
  chunk->stream = a->stream;
  chunk->stream_floats = stream_floats;
  a->stream = stream;

  chunk->has_sums = a->nev > 0;
  if (chunk->has_sums && !audio_run_chunk (a, chunk, threshold, &err, &what))
    goto error;
  self->restart_levels = FALSE;

  /* While the device works, the messages are drafted with zeros for
   * levels, to be filled in once the sums arrive: on PoCL's pthread
   * driver the round trip is 40-60 us and a message of 1024 bands about
   * 25 us of it. */
  if (post) {
    for (s = 0; s < a->pending->len; s++) {
      const PendingMessage *pm = &g_array_index (a->pending, PendingMessage, s);

      chunk->drafts = g_list_prepend (chunk->drafts,
          spectrum_message_new (self, pm->ts, self->interval,
              (flags & 1) ? a->draft_levels : NULL,
              (flags & 2) ? a->draft_levels : NULL, a->nch, a->bands,
              self->multi_channel, as_list));
    }
    chunk->drafts = g_list_reverse (chunk->drafts);
  }
  audio_drop_events (a, chunk->stream);

  if (queued) {
    g_queue_push_tail (queued, chunk);
    return TRUE;
  }
  if (chunk->done) {
    cl_event done = chunk->done;

    /* audio_wait_chunk releases the event */
    chunk->done = NULL;
    if (!audio_wait_chunk (a, done, &err)) {
      what = "analysing the audio spectrum";
      goto error;
    }
    GST_LOG_OBJECT (self, "%u x %u-point FFTs of %u frames, %u segment(s): "
        "%" G_GINT64_FORMAT " us", nffts, a->nfft, frames, chunk->nseg,
        g_get_monotonic_time () - t0);
  }
  chunk_finish (self, chunk, messages);
  chunk_release (self, chunk);
  return TRUE;

error:
  gst_clfft_device_post_error (GST_ELEMENT (self), a->ctx, &err, what);
  chunk_release (self, chunk);
  return FALSE;
}

static GstFlowReturn
gst_clfft_spectrum_transform_ip (GstBaseTransform * trans, GstBuffer * buffer)
{
  GstClfftSpectrum *self = GST_CLFFT_SPECTRUM (trans);
  GstClfftSpectrumAudio *a;
  GstMapInfo map;
  const guint8 *data;
  gsize size;
  guint rate, bpf, flags;
  gint threshold;
  gboolean post, as_list;
  GList *messages = NULL;
  GQueue queued = G_QUEUE_INIT;
  GQueue *async = NULL;
  SpectrumChunk *chunk;
  GstFlowReturn ret = GST_FLOW_OK;

  if (self->is_video)
    return GST_FLOW_OK;
  /* async-messages: a chunk failed on the device, and said so */
  if (g_atomic_int_get (&self->device_failed))
    return GST_FLOW_ERROR;

  g_mutex_lock (&self->lock);
  if (self->completion)
    async = &queued;

  if (GST_BUFFER_IS_DISCONT (buffer)) {
    GST_DEBUG_OBJECT (self, "discontinuity: restarting the interval");
    audio_flush (self);
  }
  if (!audio_ensure (self)) {
    g_mutex_unlock (&self->lock);
    return GST_FLOW_ERROR;
  }
  a = self->audio;
  rate = a->rate;
  bpf = a->bpf;
  threshold = self->threshold;
  flags = (self->message_magnitude ? 1 : 0) | (self->message_phase ? 2 : 0);
  post = self->post_messages;
  as_list = self->message_format == GST_CLFFT_SPECTRUM_FORMAT_LIST;

  if (self->num_frames == 0)
    self->message_ts = GST_BUFFER_TIMESTAMP (buffer);

  if (!gst_buffer_map (buffer, &map, GST_MAP_READ)) {
    g_mutex_unlock (&self->lock);
    GST_ELEMENT_ERROR (self, RESOURCE, READ, (NULL),
        ("could not map the input buffer"));
    return GST_FLOW_ERROR;
  }
  data = map.data;
  size = map.size;
  g_array_set_size (a->seg_first, 1);
  g_array_index (a->seg_first, guint, 0) = 0;

  while (size >= bpf) {
    guint64 fft_todo = a->hop - (self->num_frames % a->hop);
    guint64 msg_todo = self->frames_todo - self->num_frames;
    guint64 block = MIN (msg_todo, size / bpf);
    gboolean have_full_interval;

    block = MIN (block, fft_todo);
    block = MIN (block, (guint64) (a->stream_cap - a->m));

    if (a->m + block > a->stream_alloc) {
      /* grows with the buffers seen, up to stream_cap */
      guint want = MIN (MAX (a->m + block, 2 * (guint64) a->stream_alloc),
          a->stream_cap);
      gfloat *grown = g_try_renew (gfloat, a->stream,
          (gsize) (a->nfft + want) * a->nch);

      if (!grown) {
        GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT, (NULL),
            ("no host memory for %u frames of %u channel(s)",
                a->nfft + want, a->nch));
        ret = GST_FLOW_ERROR;
        break;
      }
      a->stream = grown;
      a->stream_alloc = want;
    }

    audio_convert (a, data, a->stream + (gsize) (a->nfft + a->m) * a->nch,
        block);
    data += block * bpf;
    size -= block * bpf;
    a->m += block;
    self->num_frames += block;

    have_full_interval = (self->num_frames == self->frames_todo);

    /* an FFT every hop frames of the interval, and at least one per
     * interval (of the last nfft frames) when the interval is shorter */
    if ((self->num_frames % a->hop == 0) ||
        (have_full_interval && !self->num_fft)) {
      a->offsets[a->nev++] = a->m;
      self->num_fft++;
    }

    if (have_full_interval) {
      PendingMessage pm;
      guint end = a->nev;

      self->frames_todo = self->frames_per_interval;
      if (self->accumulated_error >= GST_SECOND) {
        self->accumulated_error -= GST_SECOND;
        self->frames_todo++;
      }
      self->accumulated_error += self->error_per_interval;

      pm.ts = self->message_ts;
      pm.num_fft = self->num_fft;
      g_array_append_val (a->pending, pm);
      g_array_append_val (a->seg_first, end);

      if (GST_CLOCK_TIME_IS_VALID (self->message_ts))
        self->message_ts += gst_util_uint64_scale (self->num_frames,
            GST_SECOND, rate);
      self->num_frames = 0;
      self->num_fft = 0;
    }

    if (a->nev == a->ev_cap || a->m == a->stream_cap) {
      if (!audio_finish_chunk (self, threshold, flags, post, as_list,
              &messages, async)) {
        ret = GST_FLOW_ERROR;
        break;
      }
    }
  }
  /* one device round trip per finished interval, not per buffer: the FFTs
   * of an unfinished interval wait for the buffers that finish it */
  if (ret == GST_FLOW_OK && a->pending->len > 0) {
    if (!audio_finish_chunk (self, threshold, flags, post, as_list,
            &messages, async))
      ret = GST_FLOW_ERROR;
  }

  gst_buffer_unmap (buffer, &map);
  if (ret != GST_FLOW_OK)
    audio_reset (self);
  g_mutex_unlock (&self->lock);

  /* posted without the lock, so a synchronous bus handler may set
   * properties; for the same reason the chunks go to the completion (which
   * waits when too many are pending) without it */
  post_messages (self, messages);
  while ((chunk = g_queue_pop_head (&queued))) {
    cl_event done = chunk->done;

    /* the completion releases the event; the chunk is its own from here */
    chunk->done = NULL;
    gst_clfft_completion_push (self->completion, done, chunk);
  }

  return ret;
}

/* ------------------------------------------------------------------------
 * Video processing
 * ---------------------------------------------------------------------- */

/* Plane 0 of buffer for the device: a clfft memory of our context is used
 * where it is (mapped for the device, which uploads what the CPU wrote
 * into it); anything else, memories of other contexts too, is mapped for
 * the CPU. */
static gboolean
map_side (GstClfftSpectrum * self, GstBuffer * buffer,
    const GstVideoInfo * info, gboolean write, GstVideoFrame * frame,
    GstMapInfo * map, GstClfftSpectrumVideoPlane * plane)
{
  gsize offset[GST_VIDEO_MAX_PLANES];
  gint stride[GST_VIDEO_MAX_PLANES];
  GstMemory *mem;

  memset (plane, 0, sizeof (*plane));
  if (gst_clfft_memory_frame_layout (buffer, self->ctx, info, &mem, offset,
          stride)) {
    if (!gst_memory_map (mem, map, (write ? GST_MAP_WRITE : GST_MAP_READ) |
            GST_MAP_CLFFT))
      return FALSE;
    plane->mem = gst_clfft_memory_get_cl_mem (map);
    plane->offset = offset[0];
    plane->stride = stride[0];
    return TRUE;
  }
  if (!gst_video_frame_map (frame, info, buffer,
          write ? GST_MAP_WRITE : GST_MAP_READ))
    return FALSE;
  plane->data = GST_VIDEO_FRAME_PLANE_DATA (frame, 0);
  plane->stride = GST_VIDEO_FRAME_PLANE_STRIDE (frame, 0);
  return TRUE;
}

static void
unmap_side (GstClfftSpectrumVideoPlane * plane, GstVideoFrame * frame,
    GstMapInfo * map)
{
  if (plane->mem)
    gst_memory_unmap (map->memory, map);
  else
    gst_video_frame_unmap (frame);
}

static GstFlowReturn
gst_clfft_spectrum_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GstClfftSpectrum *self = GST_CLFFT_SPECTRUM (trans);
  GstVideoFrame in, out;
  GstMapInfo in_map, out_map;
  GstClfftSpectrumVideoPlane in_plane, out_plane;
  gint threshold;
  guint bands;
  gboolean post, as_list, ok;
  GstClockTime ts, duration;
  gint64 t0;

  if (!self->is_video || !self->video)
    return GST_FLOW_NOT_NEGOTIATED;

  g_mutex_lock (&self->lock);
  threshold = self->threshold;
  post = self->post_messages;
  /* the radial average is only computed when a message carries it */
  bands = post && self->message_magnitude ? self->bands : 0;
  as_list = self->message_format == GST_CLFFT_SPECTRUM_FORMAT_LIST;
  g_mutex_unlock (&self->lock);

  if (bands > self->video_nbands) {
    self->video_bands = g_renew (gfloat, self->video_bands, bands);
    self->video_nbands = bands;
  }

  if (!map_side (self, inbuf, &self->video_in, FALSE, &in, &in_map, &in_plane))
    goto map_failed;
  if (!map_side (self, outbuf, &self->video_out, TRUE, &out, &out_map,
          &out_plane)) {
    unmap_side (&in_plane, &in, &in_map);
    goto map_failed;
  }
  t0 = g_get_monotonic_time ();
  ok = gst_clfft_spectrum_video_process (self->video, GST_ELEMENT (self),
      &in_plane, &out_plane, threshold, bands, self->video_bands);
  GST_LOG_OBJECT (self, "frame %ux%u, %s -> %s: %" G_GINT64_FORMAT " us",
      GST_VIDEO_INFO_WIDTH (&self->video_in),
      GST_VIDEO_INFO_HEIGHT (&self->video_in),
      in_plane.mem ? "device" : "host", out_plane.mem ? "device" : "host",
      g_get_monotonic_time () - t0);
  unmap_side (&out_plane, &out, &out_map);
  unmap_side (&in_plane, &in, &in_map);
  if (!ok)
    return GST_FLOW_ERROR;

  if (post) {
    ts = GST_BUFFER_PTS (inbuf);
    duration = GST_BUFFER_DURATION (inbuf);
    if (!GST_CLOCK_TIME_IS_VALID (duration) &&
        GST_VIDEO_INFO_FPS_N (&self->video_in) > 0)
      duration = gst_util_uint64_scale (GST_SECOND,
          GST_VIDEO_INFO_FPS_D (&self->video_in),
          GST_VIDEO_INFO_FPS_N (&self->video_in));
    gst_element_post_message (GST_ELEMENT (self),
        spectrum_message_new (self, ts, duration,
            bands ? self->video_bands : NULL, NULL, 1, bands, FALSE, as_list));
  }
  return GST_FLOW_OK;

map_failed:
  GST_ELEMENT_ERROR (self, RESOURCE, READ, (NULL),
      ("could not map a video frame"));
  return GST_FLOW_ERROR;
}

/* ------------------------------------------------------------------------
 * Caps
 * ---------------------------------------------------------------------- */

static void
set_format_list (GstStructure * s, const gchar * formats)
{
  gchar *str = g_strdup_printf ("video/x-raw, format = (string) %s", formats);
  GstStructure *tmpl = gst_structure_from_string (str, NULL);

  gst_structure_set_value (s, "format",
      gst_structure_get_value (tmpl, "format"));
  gst_structure_free (tmpl);
  g_free (str);
}

static GstCaps *
gst_clfft_spectrum_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstCaps *res = gst_caps_new_empty (), *tmp;
  guint i;

  for (i = 0; i < gst_caps_get_size (caps); i++) {
    GstStructure *s = gst_caps_get_structure (caps, i);
    GstCapsFeatures *f = gst_caps_get_features (caps, i);
    GstStructure *o;

    if (gst_structure_has_name (s, "video/x-raw")) {
      /* frames keep their size and rate; only the format changes */
      o = gst_structure_copy (s);
      gst_structure_remove_fields (o, "format", "colorimetry", "chroma-site",
          NULL);
      set_format_list (o, direction == GST_PAD_SINK ?
          GST_CLFFT_SPECTRUM_VIDEO_OUT_FORMATS :
          GST_CLFFT_SPECTRUM_VIDEO_IN_FORMATS);
    } else {
      /* audio passes through unchanged */
      o = gst_structure_copy (s);
    }
    gst_caps_append_structure_full (res, o,
        f ? gst_caps_features_copy (f) : NULL);
  }
  res = gst_caps_simplify (res);
  /* video either side in either memory, the device's first */
  tmp = gst_clfft_memory_transform_caps (res);
  gst_caps_unref (res);
  res = tmp;

  if (filter) {
    tmp = gst_caps_intersect_full (filter, res, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (res);
    res = tmp;
  }
  GST_DEBUG_OBJECT (trans, "%s caps %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
      direction == GST_PAD_SINK ? "sink" : "src", caps, res);
  return res;
}

static gboolean
gst_clfft_spectrum_transform_size (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, gsize size, GstCaps * othercaps,
    gsize * othersize)
{
  GstStructure *s = gst_caps_get_structure (othercaps, 0);

  if (gst_structure_has_name (s, "video/x-raw")) {
    GstVideoInfo info;

    if (!gst_video_info_from_caps (&info, othercaps))
      return FALSE;
    *othersize = GST_VIDEO_INFO_SIZE (&info);
  } else {
    *othersize = size;
  }
  return TRUE;
}

static gboolean
gst_clfft_spectrum_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstClfftSpectrum *self = GST_CLFFT_SPECTRUM (trans);
  GstStructure *s = gst_caps_get_structure (incaps, 0);

  if (!self->ctx)
    return FALSE;

  if (gst_structure_has_name (s, "video/x-raw")) {
    GstVideoInfo vin, vout;
    GstClfftSpectrumVideo *video;

    if (!gst_video_info_from_caps (&vin, incaps) ||
        !gst_video_info_from_caps (&vout, outcaps))
      goto bad_caps;
    if (vin.width != vout.width || vin.height != vout.height)
      goto bad_caps;

    video = gst_clfft_spectrum_video_new (GST_ELEMENT (self), self->ctx,
        &vin, &vout);
    if (!video)
      return FALSE;

    g_mutex_lock (&self->lock);
    audio_reset (self);
    if (self->video)
      gst_clfft_spectrum_video_free (self->video);
    self->video = video;
    self->video_in = vin;
    self->video_out = vout;
    self->is_video = TRUE;
    g_mutex_unlock (&self->lock);
    gst_base_transform_set_passthrough (trans, FALSE);
  } else {
    GstAudioInfo info;
    gboolean ok;

    if (!gst_audio_info_from_caps (&info, incaps))
      goto bad_caps;

    g_mutex_lock (&self->lock);
    if (self->video) {
      gst_clfft_spectrum_video_free (self->video);
      self->video = NULL;
    }
    self->is_video = FALSE;
    self->audio_info = info;
    /* re-plan now, so device errors show at negotiation */
    audio_reset (self);
    ok = audio_ensure (self);
    g_mutex_unlock (&self->lock);
    if (!ok)
      return FALSE;
    gst_base_transform_set_passthrough (trans, TRUE);
  }
  return TRUE;

bad_caps:
  GST_WARNING_OBJECT (self, "cannot handle caps %" GST_PTR_FORMAT " -> %"
      GST_PTR_FORMAT, incaps, outcaps);
  return FALSE;
}

static gboolean
gst_clfft_spectrum_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  GstClfftSpectrum *self = GST_CLFFT_SPECTRUM (trans);
  gboolean ret;

  ret = GST_BASE_TRANSFORM_CLASS (parent_class)->propose_allocation (trans,
      decide_query, query);
  /* frames are mapped through GstVideoFrame: any stride is fine */
  if (self->is_video && !gst_base_transform_is_passthrough (trans)) {
    GstCaps *caps = NULL;

    gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
    /* system memory frames in mapped OpenCL host memory: uploads by DMA */
    gst_query_parse_allocation (query, &caps, NULL);
    if (caps && !gst_clfft_caps_has_memory_feature (caps) &&
        gst_query_get_n_allocation_pools (query) == 0)
      gst_clfft_pinned_add_pool (query, caps, self->ctx, &self->pinned);
    ret = TRUE;
  }
  return ret;
}

/* Output frames on the device come from a pool of device buffers. */
static gboolean
gst_clfft_spectrum_decide_allocation (GstBaseTransform * trans,
    GstQuery * query)
{
  GstClfftSpectrum *self = GST_CLFFT_SPECTRUM (trans);
  GstCaps *caps = NULL;

  gst_query_parse_allocation (query, &caps, NULL);
  if (self->is_video && self->ctx && gst_clfft_caps_has_memory_feature (caps))
    gst_clfft_memory_decide_allocation (query, self->ctx, &self->allocator);
  return GST_BASE_TRANSFORM_CLASS (parent_class)->decide_allocation (trans,
      query);
}

/* ------------------------------------------------------------------------
 * State
 * ---------------------------------------------------------------------- */

static gboolean
gst_clfft_spectrum_start (GstBaseTransform * trans)
{
  GstClfftSpectrum *self = GST_CLFFT_SPECTRUM (trans);
  gchar *device;
  ClfContext *ctx;
  gboolean async;

  g_mutex_lock (&self->lock);
  device = g_strdup (self->device);
  async = self->async_messages;
  g_mutex_unlock (&self->lock);

  /* posts the error (naming the cause) when there is no usable device */
  ctx = gst_clfft_device_ensure_context (GST_ELEMENT (self), device);
  g_free (device);
  if (!ctx)
    return FALSE;
  GST_INFO_OBJECT (self, "running on %s", clf_context_describe (ctx));

  g_mutex_lock (&self->lock);
  self->ctx = ctx;
  g_free (self->device_name);
  self->device_name = g_strdup (clf_context_describe (ctx));
  audio_reset (self);
  g_atomic_int_set (&self->device_failed, 0);
  if (async)
    self->completion = gst_clfft_completion_new ("clfftspectrum-msgs",
        MAX_PENDING_CHUNKS, chunk_done_async, self);
  g_mutex_unlock (&self->lock);
  g_object_notify (G_OBJECT (self), "device-name");
  return TRUE;
}

/* Other clfft elements of the pipeline ask for our OpenCL context. */
static gboolean
gst_clfft_spectrum_query (GstBaseTransform * trans, GstPadDirection direction,
    GstQuery * query)
{
  if (gst_clfft_device_handle_context_query (GST_ELEMENT (trans), query))
    return TRUE;
  return GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, direction,
      query);
}

static gboolean
gst_clfft_spectrum_stop (GstBaseTransform * trans)
{
  GstClfftSpectrum *self = GST_CLFFT_SPECTRUM (trans);

  /* the last messages go out first; a bus handler they call may take the
   * lock, so it is not held here */
  g_clear_pointer (&self->completion, gst_clfft_completion_free);
  g_mutex_lock (&self->lock);
  audio_reset (self);
  if (self->video) {
    gst_clfft_spectrum_video_free (self->video);
    self->video = NULL;
  }
  g_free (self->video_bands);
  self->video_bands = NULL;
  self->video_nbands = 0;
  self->is_video = FALSE;
  /* frames still held downstream keep their context through their memory */
  gst_clear_object (&self->allocator);
  gst_clear_object (&self->pinned);
  if (self->ctx) {
    clf_context_unref (self->ctx);
    self->ctx = NULL;
  }
  g_mutex_unlock (&self->lock);
  return TRUE;
}

static gboolean
gst_clfft_spectrum_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstClfftSpectrum *self = GST_CLFFT_SPECTRUM (trans);

  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP) {
    /* the next buffer is DISCONT anyway; do not wait for it */
    g_mutex_lock (&self->lock);
    audio_flush (self);
    g_mutex_unlock (&self->lock);
  }
  /* every message of the stream is on the bus before its EOS */
  if (GST_EVENT_TYPE (event) == GST_EVENT_EOS && self->completion)
    gst_clfft_completion_drain (self->completion);
  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}

/* ------------------------------------------------------------------------
 * Properties
 * ---------------------------------------------------------------------- */

static void
gst_clfft_spectrum_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstClfftSpectrum *self = GST_CLFFT_SPECTRUM (object);
  gboolean reset = FALSE;

  g_mutex_lock (&self->lock);
  switch (prop_id) {
    case PROP_POST_MESSAGES:
      self->post_messages = g_value_get_boolean (value);
      break;
    case PROP_MESSAGE_MAGNITUDE:
      self->message_magnitude = g_value_get_boolean (value);
      break;
    case PROP_MESSAGE_PHASE:
      self->message_phase = g_value_get_boolean (value);
      break;
    case PROP_INTERVAL:{
      guint64 v = g_value_get_uint64 (value);
      reset = v != self->interval;
      self->interval = v;
      break;
    }
    case PROP_BANDS:{
      guint v = g_value_get_uint (value);
      reset = v != self->bands;
      self->bands = v;
      break;
    }
    case PROP_THRESHOLD:
      self->threshold = g_value_get_int (value);
      break;
    case PROP_MULTI_CHANNEL:{
      gboolean v = g_value_get_boolean (value);
      reset = v != self->multi_channel;
      self->multi_channel = v;
      break;
    }
    case PROP_WINDOW:{
      gint v = g_value_get_enum (value);
      reset = v != (gint) self->window;
      self->window = v;
      break;
    }
    case PROP_OVERLAP:{
      gdouble v = g_value_get_double (value);
      reset = v != self->overlap;
      self->overlap = v;
      break;
    }
    case PROP_FREQUENCY_SCALE:{
      gint v = g_value_get_enum (value);
      reset = v != (gint) self->frequency_scale;
      self->frequency_scale = v;
      break;
    }
    case PROP_MIN_FREQUENCY:{
      gdouble v = g_value_get_double (value);
      reset = v != self->min_frequency;
      self->min_frequency = v;
      break;
    }
    case PROP_MESSAGE_FORMAT:
      self->message_format = g_value_get_enum (value);
      break;
    case PROP_DEVICE:
      g_free (self->device);
      self->device = g_value_dup_string (value);
      break;
    case PROP_ASYNC_MESSAGES:
      self->async_messages = g_value_get_boolean (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  if (reset)
    audio_reset (self);
  g_mutex_unlock (&self->lock);
}

static void
gst_clfft_spectrum_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstClfftSpectrum *self = GST_CLFFT_SPECTRUM (object);

  g_mutex_lock (&self->lock);
  switch (prop_id) {
    case PROP_POST_MESSAGES:
      g_value_set_boolean (value, self->post_messages);
      break;
    case PROP_MESSAGE_MAGNITUDE:
      g_value_set_boolean (value, self->message_magnitude);
      break;
    case PROP_MESSAGE_PHASE:
      g_value_set_boolean (value, self->message_phase);
      break;
    case PROP_INTERVAL:
      g_value_set_uint64 (value, self->interval);
      break;
    case PROP_BANDS:
      g_value_set_uint (value, self->bands);
      break;
    case PROP_THRESHOLD:
      g_value_set_int (value, self->threshold);
      break;
    case PROP_MULTI_CHANNEL:
      g_value_set_boolean (value, self->multi_channel);
      break;
    case PROP_WINDOW:
      g_value_set_enum (value, self->window);
      break;
    case PROP_OVERLAP:
      g_value_set_double (value, self->overlap);
      break;
    case PROP_FREQUENCY_SCALE:
      g_value_set_enum (value, self->frequency_scale);
      break;
    case PROP_MIN_FREQUENCY:
      g_value_set_double (value, self->min_frequency);
      break;
    case PROP_MESSAGE_FORMAT:
      g_value_set_enum (value, self->message_format);
      break;
    case PROP_DEVICE:
      g_value_set_string (value, self->device);
      break;
    case PROP_DEVICE_NAME:
      g_value_set_string (value, self->device_name);
      break;
    case PROP_ASYNC_MESSAGES:
      g_value_set_boolean (value, self->async_messages);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  g_mutex_unlock (&self->lock);
}

static void
gst_clfft_spectrum_finalize (GObject * object)
{
  GstClfftSpectrum *self = GST_CLFFT_SPECTRUM (object);

  g_clear_pointer (&self->completion, gst_clfft_completion_free);
  audio_reset (self);
  g_async_queue_unref (self->spare_chunks);
  g_free (self->level_mag);
  g_free (self->level_phase);
  if (self->video)
    gst_clfft_spectrum_video_free (self->video);
  g_free (self->video_bands);
  if (self->ctx)
    clf_context_unref (self->ctx);
  g_free (self->device);
  g_free (self->device_name);
  g_mutex_clear (&self->lock);

  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_clfft_spectrum_class_init (GstClfftSpectrumClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS;

  GST_DEBUG_CATEGORY_INIT (gst_clfft_spectrum_debug, "clfftspectrum", 0,
      "OpenCL audio spectrum and video 2D spectrum");

  gobject_class->set_property = gst_clfft_spectrum_set_property;
  gobject_class->get_property = gst_clfft_spectrum_get_property;
  gobject_class->finalize = gst_clfft_spectrum_finalize;

  /* the first seven properties as spectrum's: names, types, ranges,
   * defaults */
  g_object_class_install_property (gobject_class, PROP_POST_MESSAGES,
      g_param_spec_boolean ("post-messages", "Post Messages",
          "Whether to post a 'spectrum' element message on the bus for each "
          "passed interval (audio) or each frame (video)",
          DEFAULT_POST_MESSAGES, rw));
  g_object_class_install_property (gobject_class, PROP_MESSAGE_MAGNITUDE,
      g_param_spec_boolean ("message-magnitude", "Magnitude",
          "Whether to add a 'magnitude' field (level of each band in dB, "
          "averaged over the interval) to the 'spectrum' messages",
          DEFAULT_MESSAGE_MAGNITUDE, rw));
  g_object_class_install_property (gobject_class, PROP_MESSAGE_PHASE,
      g_param_spec_boolean ("message-phase", "Phase",
          "Whether to add a 'phase' field (phase of each band in radians, "
          "-pi to pi, averaged over the interval) to the audio 'spectrum' "
          "messages", DEFAULT_MESSAGE_PHASE, rw));
  g_object_class_install_property (gobject_class, PROP_INTERVAL,
      g_param_spec_uint64 ("interval", "Interval",
          "Interval of time between message posts (in nanoseconds)",
          1, G_MAXUINT64, DEFAULT_INTERVAL, rw));
  g_object_class_install_property (gobject_class, PROP_BANDS,
      g_param_spec_uint ("bands", "Bands",
          "Number of frequency bands (audio: the FFT has 2 * bands - 2 "
          "points and band k is at k * rate / (2 * bands - 2) Hz on the "
          "linear scale; video: radius bands of the radial average)",
          2, ((guint) G_MAXINT + 2) / 2, DEFAULT_BANDS, rw));
  g_object_class_install_property (gobject_class, PROP_THRESHOLD,
      g_param_spec_int ("threshold", "Threshold",
          "dB threshold for result. All lower values will be set to this "
          "(video: the level shown black)", G_MININT, 0, DEFAULT_THRESHOLD,
          rw));
  g_object_class_install_property (gobject_class, PROP_MULTI_CHANNEL,
      g_param_spec_boolean ("multi-channel", "Multichannel results",
          "Send separate results for each channel (fields become arrays of "
          "per-channel arrays), else analyse the average of the channels",
          DEFAULT_MULTI_CHANNEL, rw));

  g_object_class_install_property (gobject_class, PROP_WINDOW,
      g_param_spec_enum ("window", "Window",
          "Window applied to each FFT's input (audio)",
          GST_TYPE_CLFFT_SPECTRUM_WINDOW, DEFAULT_WINDOW, rw));
  g_object_class_install_property (gobject_class, PROP_OVERLAP,
      g_param_spec_double ("overlap", "Overlap",
          "Fraction of the FFT length by which consecutive FFTs overlap "
          "(audio; 0 = back to back, as spectrum; 0.5 = an FFT every half "
          "length)", 0.0, 0.9, DEFAULT_OVERLAP, rw));
  g_object_class_install_property (gobject_class, PROP_FREQUENCY_SCALE,
      g_param_spec_enum ("frequency-scale", "Frequency scale",
          "Spacing of the audio bands. log: 'bands' bands from "
          "min-frequency to Nyquist with a constant ratio, each summing "
          "the power of the FFT bins it covers (the FFT then spans at "
          "least 4 periods of min-frequency, a power of two up to 2^20 "
          "points)", GST_TYPE_CLFFT_SPECTRUM_FREQUENCY_SCALE,
          DEFAULT_FREQUENCY_SCALE, rw));
  g_object_class_install_property (gobject_class, PROP_MIN_FREQUENCY,
      g_param_spec_double ("min-frequency", "Minimum frequency",
          "Centre of the first band of the log frequency scale, in Hz",
          0.01, 1e7, DEFAULT_MIN_FREQUENCY, rw));
  g_object_class_install_property (gobject_class, PROP_MESSAGE_FORMAT,
      g_param_spec_enum ("message-format", "Message format",
          "Type of the magnitude and phase fields of a single-channel "
          "message: list (GstValueList, as spectrum) or array "
          "(GstValueArray, which PyGObject can read)",
          GST_TYPE_CLFFT_SPECTRUM_MESSAGE_FORMAT, DEFAULT_MESSAGE_FORMAT, rw));
  g_object_class_install_property (gobject_class, PROP_DEVICE,
      g_param_spec_string ("device", "OpenCL device",
          "OpenCL device to run on: NULL for automatic ($CLFFT_DEVICE, else "
          "the first GPU, else any device), \"gpu\", \"cpu\", "
          "\"platform:device\" indices, or a substring of the platform or "
          "device name. Read when the element starts",
          DEFAULT_DEVICE, rw | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_DEVICE_NAME,
      g_param_spec_string ("device-name", "Device name",
          "The OpenCL device the element runs on, as \"platform / device "
          "(P:D)\" (NULL until it first starts; then the last one used)",
          NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_ASYNC_MESSAGES,
      g_param_spec_boolean ("async-messages", "Asynchronous messages",
          "Post the audio messages from a thread of the element's own once "
          "the device has finished, instead of waiting for the device "
          "before passing each buffer on: the next buffers' work overlaps "
          "the device's (twice the throughput on PoCL's pthread driver), "
          "and a message may reach the bus after its buffer has gone "
          "downstream (all of them before EOS). Read when the element starts",
          DEFAULT_ASYNC_MESSAGES, rw | GST_PARAM_MUTABLE_READY));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "OpenCL spectrum analyzer", "Filter/Analyzer/Audio/Video",
      "Audio: a drop-in replacement for 'spectrum' (same properties and "
      "'spectrum' messages) running its FFTs on an OpenCL device, with "
      "window, overlap, log frequency scale, array and asynchronous "
      "messages. "
      "Video: the log-magnitude 2D spectrum of each frame, DC centred",
      "gst-clfft developers");

  trans_class->start = GST_DEBUG_FUNCPTR (gst_clfft_spectrum_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_clfft_spectrum_stop);
  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_clfft_spectrum_transform_caps);
  trans_class->transform_size =
      GST_DEBUG_FUNCPTR (gst_clfft_spectrum_transform_size);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_clfft_spectrum_set_caps);
  trans_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_clfft_spectrum_propose_allocation);
  trans_class->decide_allocation =
      GST_DEBUG_FUNCPTR (gst_clfft_spectrum_decide_allocation);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_clfft_spectrum_sink_event);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_clfft_spectrum_query);
  trans_class->transform_ip =
      GST_DEBUG_FUNCPTR (gst_clfft_spectrum_transform_ip);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_clfft_spectrum_transform);
  /* audio is passed through, video converted; GRAY8 in and out must not
   * become passthrough, so set_caps decides */
  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->transform_ip_on_passthrough = TRUE;

  gst_type_mark_as_plugin_api (GST_TYPE_CLFFT_SPECTRUM_WINDOW, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CLFFT_SPECTRUM_FREQUENCY_SCALE, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CLFFT_SPECTRUM_MESSAGE_FORMAT, 0);
}

static void
gst_clfft_spectrum_init (GstClfftSpectrum * self)
{
  self->post_messages = DEFAULT_POST_MESSAGES;
  self->message_magnitude = DEFAULT_MESSAGE_MAGNITUDE;
  self->message_phase = DEFAULT_MESSAGE_PHASE;
  self->interval = DEFAULT_INTERVAL;
  self->bands = DEFAULT_BANDS;
  self->threshold = DEFAULT_THRESHOLD;
  self->multi_channel = DEFAULT_MULTI_CHANNEL;
  self->window = DEFAULT_WINDOW;
  self->overlap = DEFAULT_OVERLAP;
  self->frequency_scale = DEFAULT_FREQUENCY_SCALE;
  self->min_frequency = DEFAULT_MIN_FREQUENCY;
  self->message_format = DEFAULT_MESSAGE_FORMAT;
  self->device = g_strdup (DEFAULT_DEVICE);
  self->async_messages = DEFAULT_ASYNC_MESSAGES;
  self->restart_levels = TRUE;
  self->spare_chunks = g_async_queue_new_full ((GDestroyNotify) chunk_free);
  g_mutex_init (&self->lock);
  /* the base class would put a downstream peer's caps first, which for a
   * clfft element downstream of a system-memory one is system memory: the
   * order of transform_caps (frames on the device first) is ours */
  gst_base_transform_set_prefer_passthrough (GST_BASE_TRANSFORM (self), FALSE);
}

/* gstclfftspectrum.h: the clfftspectrum element (audio spectrum messages, video 2D spectra). */
#ifndef __GST_CLFFT_SPECTRUM_H__
#define __GST_CLFFT_SPECTRUM_H__

#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>
#include <gst/audio/audio.h>
#include <gst/video/video.h>
#include "clf.h"
#include "gstclfftspectrumvideo.h"
#include "gstclfftcompletion.h"

G_BEGIN_DECLS

#define GST_TYPE_CLFFT_SPECTRUM (gst_clfft_spectrum_get_type ())
G_DECLARE_FINAL_TYPE (GstClfftSpectrum, gst_clfft_spectrum, GST,
    CLFFT_SPECTRUM, GstBaseTransform);

typedef enum
{
  GST_CLFFT_SPECTRUM_WINDOW_HANN,
  GST_CLFFT_SPECTRUM_WINDOW_HAMMING,
  GST_CLFFT_SPECTRUM_WINDOW_BLACKMAN,
  GST_CLFFT_SPECTRUM_WINDOW_BLACKMAN_HARRIS,
  GST_CLFFT_SPECTRUM_WINDOW_RECTANGULAR
} GstClfftSpectrumWindow;

typedef enum
{
  GST_CLFFT_SPECTRUM_SCALE_LINEAR,
  GST_CLFFT_SPECTRUM_SCALE_LOG
} GstClfftSpectrumFrequencyScale;

typedef enum
{
  GST_CLFFT_SPECTRUM_FORMAT_LIST,
  GST_CLFFT_SPECTRUM_FORMAT_ARRAY
} GstClfftSpectrumMessageFormat;

/* Device buffers, plans and host staging of the audio analysis; private to
 * gstclfftspectrum.c. */
typedef struct _GstClfftSpectrumAudio GstClfftSpectrumAudio;

struct _GstClfftSpectrum
{
  GstBaseTransform parent;

  /* properties (the first seven as GstSpectrum's) */
  gboolean post_messages;
  gboolean message_magnitude;
  gboolean message_phase;
  guint64 interval;
  guint bands;
  gint threshold;
  gboolean multi_channel;
  GstClfftSpectrumWindow window;
  gdouble overlap;
  GstClfftSpectrumFrequencyScale frequency_scale;
  gdouble min_frequency;
  GstClfftSpectrumMessageFormat message_format;
  gchar *device;
  gchar *device_name;           /* clf_context_describe of the last start */
  gboolean async_messages;

  /* protects the properties above against the streaming thread, and the
   * analysis state below against property changes that reset it */
  GMutex lock;

  /* negotiated stream */
  gboolean is_video;
  GstAudioInfo audio_info;
  GstVideoInfo video_in, video_out;

  ClfContext *ctx;
  GstAllocator *allocator;      /* device buffers of ctx, for output frames */
  GstAllocator *pinned;         /* mapped host memory of ctx, for input frames */

  /* audio: NULL until the first buffer after a reset (as GstSpectrum) */
  GstClfftSpectrumAudio *audio;
  /* interval book-keeping, the same counters GstSpectrum keeps */
  guint64 num_frames;
  guint num_fft;
  guint64 frames_per_interval;
  guint64 frames_todo;
  GstClockTime error_per_interval;
  GstClockTime accumulated_error;
  GstClockTime message_ts;
  /* the next chunk starts the interval's levels from zero */
  gboolean restart_levels;
  /* levels of the current interval, summed over its chunks: only
   * chunk_finish touches them, in the streaming thread or (with
   * async-messages) in the completion's */
  gfloat *level_mag, *level_phase;
  gsize level_len;
  /* async-messages: finishes the chunks from start to stop */
  GstClfftCompletion *completion;
  gint device_failed;           /* atomic: a chunk failed on the device */
  GAsyncQueue *spare_chunks;    /* finished chunks, kept for reuse */

  /* video */
  GstClfftSpectrumVideo *video;
  gfloat *video_bands;
  guint video_nbands;
};

G_END_DECLS

#endif

/* gstclfftconvolveaudio.h: the audio (FIR / impulse response) half of clfftconvolve. */
#ifndef __GST_CLFFT_CONVOLVE_AUDIO_H__
#define __GST_CLFFT_CONVOLVE_AUDIO_H__

#include <gst/gst.h>
#include <gst/audio/audio.h>
#include "clf.h"

G_BEGIN_DECLS

/* Uniformly partitioned overlap-save convolution state for one stream. */
typedef struct _GstClfftConvolveAudio GstClfftConvolveAudio;

/* ir: ir_frames * ir_channels doubles, interleaved; ir_channels is 1 (the
 * same response for every channel) or info->channels. block_size: samples
 * per partition (0 = choose). Returns NULL and sets error on failure
 * (error domain GST_RESOURCE_ERROR or GST_LIBRARY_ERROR, message ready to
 * post with GST_ELEMENT_ERROR). */
GstClfftConvolveAudio *gst_clfft_convolve_audio_new (ClfContext * ctx,
    const GstAudioInfo * info, const gdouble * ir, guint ir_frames,
    guint ir_channels, guint block_size, GError ** error);
void gst_clfft_convolve_audio_free (GstClfftConvolveAudio * conv);

/* Latency the element must report: one block, as a duration. */
GstClockTime gst_clfft_convolve_audio_get_latency (GstClfftConvolveAudio *
    conv);

/* Consumes inbuf (not taken); *outbuf receives the samples that are ready
 * (NULL when none yet), with exact timestamps/offsets derived from the
 * input's, and DISCONT/resets handled inside. */
GstFlowReturn gst_clfft_convolve_audio_process (GstClfftConvolveAudio * conv,
    GstBuffer * inbuf, GstBuffer ** outbuf, GError ** error);

/* At EOS: the rest of the input and the IR tail (ir_frames - 1 samples).
 * Returns NULL when there is nothing to push. */
GstBuffer *gst_clfft_convolve_audio_drain (GstClfftConvolveAudio * conv,
    GError ** error);

/* Forget history (flush, discontinuity). */
void gst_clfft_convolve_audio_reset (GstClfftConvolveAudio * conv);

/* Reads an impulse response file (WAV, FLAC, ... through libsndfile).
 * Returns interleaved doubles (g_free) or NULL with error set. */
gdouble *gst_clfft_load_impulse_response (const gchar * path,
    guint * frames, guint * channels, GError ** error);

G_END_DECLS

#endif

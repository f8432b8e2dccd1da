/* gstclfftspectrumvideo.h: the 2D log-magnitude spectrum of video frames for clfftspectrum. */
#ifndef __GST_CLFFT_SPECTRUM_VIDEO_H__
#define __GST_CLFFT_SPECTRUM_VIDEO_H__

#include <gst/gst.h>
#include <gst/video/video.h>
#include "clf.h"

G_BEGIN_DECLS

/* Device buffers, kernels and the 2D plan for one negotiated frame size. */
typedef struct _GstClfftSpectrumVideo GstClfftSpectrumVideo;

/* The raw formats the video mode accepts, and the ones it produces. */
#define GST_CLFFT_SPECTRUM_VIDEO_IN_FORMATS \
  "{ GRAY8, GRAY16_LE, RGBA, BGRA, RGBx, BGRx, ARGB, ABGR, xRGB, xBGR, " \
  "RGB, BGR, I420, NV12 }"
#define GST_CLFFT_SPECTRUM_VIDEO_OUT_FORMATS "{ GRAY8, GRAY16_LE }"

/* Plans the 2D FFT of in's frame size and builds the kernels. out must be
 * GRAY8 or GRAY16_LE of the same size. On failure posts a GST_ELEMENT_ERROR
 * on element and returns NULL. */
GstClfftSpectrumVideo *gst_clfft_spectrum_video_new (GstElement * element,
    ClfContext * ctx, const GstVideoInfo * in, const GstVideoInfo * out);
void gst_clfft_spectrum_video_free (GstClfftSpectrumVideo * video);

/* Plane 0 of a frame: host bytes (mem NULL), or bytes of a device buffer
 * of the element's context, e.g. a frame another clfft element left there
 * (offset below 4 GiB). */
typedef struct
{
  cl_mem mem;
  gpointer data;                /* plane 0 on the host, when mem is NULL */
  gsize offset;                 /* byte offset of plane 0 in mem */
  gsize stride;                 /* bytes between rows */
} GstClfftSpectrumVideoPlane;

/* Writes the log-magnitude spectrum of in's luma (DC at the centre,
 * threshold dB black, the frame's peak white) into out. When bands > 0 also
 * fills radial_db[bands] with the radially averaged power in dB (band b
 * centred on b / (2 * (bands - 1)) cycles per pixel, clamped to threshold).
 * A host side costs one upload or download; a device side is read or
 * written where it is. Waits until out holds the result. On failure posts
 * a GST_ELEMENT_ERROR on element and returns FALSE. */
gboolean gst_clfft_spectrum_video_process (GstClfftSpectrumVideo * video,
    GstElement * element, const GstClfftSpectrumVideoPlane * in,
    const GstClfftSpectrumVideoPlane * out, gint threshold, guint bands,
    gfloat * radial_db);

G_END_DECLS

#endif

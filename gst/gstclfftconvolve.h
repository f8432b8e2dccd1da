/* gstclfftconvolve.h: the clfftconvolve element, frequency-domain convolution of video frames and audio. */
#ifndef __GST_CLFFT_CONVOLVE_H__
#define __GST_CLFFT_CONVOLVE_H__

#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>
#include <gst/audio/audio.h>

#include "clf.h"
#include "clf-convolve2d.h"
#include "gstclfftconvolveaudio.h"

G_BEGIN_DECLS

#define GST_TYPE_CLFFT_CONVOLVE (gst_clfft_convolve_get_type ())
G_DECLARE_FINAL_TYPE (GstClfftConvolve, gst_clfft_convolve, GST, CLFFT_CONVOLVE,
    GstBaseTransform)

typedef enum
{
  GST_CLFFT_CONVOLVE_KERNEL_GAUSSIAN = CLF_KERNEL_GAUSSIAN,
  GST_CLFFT_CONVOLVE_KERNEL_BOX = CLF_KERNEL_BOX,
  GST_CLFFT_CONVOLVE_KERNEL_DISK = CLF_KERNEL_DISK
} GstClfftConvolveKernelShape;

typedef enum
{
  GST_CLFFT_CONVOLVE_EDGE_CLAMP = CLF_EDGE_CLAMP,
  GST_CLFFT_CONVOLVE_EDGE_MIRROR = CLF_EDGE_MIRROR,
  GST_CLFFT_CONVOLVE_EDGE_WRAP = CLF_EDGE_WRAP,
  GST_CLFFT_CONVOLVE_EDGE_ZERO = CLF_EDGE_ZERO
} GstClfftConvolveEdgeMode;

/* A video frame queued on the device, its result not yet waited for: its
 * buffers stay mapped until then. */
typedef struct
{
  GstBuffer *inbuf, *outbuf;
  GstVideoFrame in, out;
  GstMapInfo in_map, out_map;
  ClfFrame2d src, dst;
  cl_event done;
} GstClfftConvolveQueuedFrame;

struct _GstClfftConvolve
{
  GstBaseTransform parent;

  /* properties, with the object lock */
  GstClfftConvolveKernelShape kernel_shape;
  gfloat radius;
  GstClfftConvolveEdgeMode edge_mode;
  GArray *kernel;               /* gfloat taps, empty = none */
  guint kernel_width;
  gchar *kernel_location;
  gboolean normalize;
  GArray *impulse_response;     /* gdouble, empty = none */
  gchar *ir_location;
  guint block_size;
  gchar *device;
  gchar *device_name;           /* clf_context_describe of the last start */
  gboolean kernel_changed;      /* video kernel needs rebuilding */
  gboolean in_device_caps;      /* negotiated memory:CLFFTBuffer, sink side */
  gboolean out_device_caps;     /* and src side */
  gboolean frame_overlap;

  /* streaming thread state */
  ClfContext *ctx;
  GstAllocator *allocator;      /* device buffers of ctx, for output frames */
  GstAllocator *pinned;         /* page-locked system memory of ctx */
  gboolean is_audio;
  GstVideoInfo vinfo;
  GstAudioInfo ainfo;
  ClfConvolve2d *conv2d;
  gboolean conv2d_ready;        /* configured for vinfo and the kernel */
  GstClfftConvolveQueuedFrame queued;   /* the frame held back, if inbuf */
  GstClfftConvolveAudio *audio;
  GstClockTime audio_latency;   /* with the object lock, for queries */
};

G_END_DECLS

#endif

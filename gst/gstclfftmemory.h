/* gstclfftmemory.h: GstMemory backed by an OpenCL buffer of a ClfContext, so chained clfft elements keep frames on the device. */
#ifndef __GST_CLFFT_MEMORY_H__
#define __GST_CLFFT_MEMORY_H__

#include <gst/gst.h>
#include <gst/video/video.h>
#include "clf.h"

G_BEGIN_DECLS

/* Caps feature of video frames held in GstClfftMemory. The bytes are those
 * of the system-memory frame of the same caps (GstVideoInfo offsets and
 * strides, or the buffer's GstVideoMeta), so the memory maps on the CPU
 * like any other; only the place they live in differs. */
#define GST_CAPS_FEATURE_MEMORY_CLFFT_BUFFER "memory:CLFFTBuffer"

/* GstAllocator mem_type of the memory */
#define GST_CLFFT_MEMORY_TYPE "CLFFTBuffer"

/* Map flag for device access: gst_memory_map (mem, &info, GST_MAP_READ |
 * GST_MAP_CLFFT) makes the OpenCL buffer hold the newest bytes (uploading
 * what the CPU wrote) and gst_clfft_memory_get_cl_mem (&info) returns it;
 * with GST_MAP_WRITE the device is about to change it, so the next CPU map
 * downloads. The frame starts at byte mem->offset of the buffer. */
#define GST_MAP_CLFFT (GST_MAP_FLAG_LAST << 1)

#define GST_TYPE_CLFFT_ALLOCATOR (gst_clfft_allocator_get_type ())
G_DECLARE_FINAL_TYPE (GstClfftAllocator, gst_clfft_allocator, GST,
    CLFFT_ALLOCATOR, GstAllocator)

/* An allocator of memories on ctx's device (it and every memory it makes
 * hold a reference on ctx, so they outlive the elements). */
GstAllocator *gst_clfft_allocator_new (ClfContext * ctx);
ClfContext *gst_clfft_allocator_get_context (GstClfftAllocator * allocator);

gboolean gst_is_clfft_memory (GstMemory * mem);
/* Whether mem is a clfft memory of ctx, whose buffer that context's
 * kernels can use; memories of other contexts are foreign (map them). */
gboolean gst_clfft_memory_is_from_context (GstMemory * mem, ClfContext * ctx);
/* The OpenCL buffer of a memory mapped with GST_MAP_CLFFT. */
cl_mem gst_clfft_memory_get_cl_mem (const GstMapInfo * info);

/* Whether the first structure of caps has the memory:CLFFTBuffer feature. */
gboolean gst_clfft_caps_has_memory_feature (const GstCaps * caps);

/* transform_caps for the video side of a clfft element: each video/x-raw
 * structure of caps (of any memory) as memory:CLFFTBuffer first, then as
 * system memory, so the feature is picked where the peer takes it;
 * other structures (audio) are kept as they are, after those. */
GstCaps *gst_clfft_memory_transform_caps (GstCaps * caps);

/* For decide_allocation when the output caps have the feature: puts a
 * video buffer pool that allocates from *allocator (made for ctx on first
 * use and kept by the caller) first in the query, so output frames are
 * reused device buffers. */
void gst_clfft_memory_decide_allocation (GstQuery * query, ClfContext * ctx,
    GstAllocator ** allocator);

/* Whether buffer holds one clfft memory of ctx: then fills mem_out and
 * the frame's plane offsets and strides from its GstVideoMeta or info. */
gboolean gst_clfft_memory_frame_layout (GstBuffer * buffer, ClfContext * ctx,
    const GstVideoInfo * info, GstMemory ** mem_out,
    gsize offset[GST_VIDEO_MAX_PLANES], gint stride[GST_VIDEO_MAX_PLANES]);

G_END_DECLS

#endif

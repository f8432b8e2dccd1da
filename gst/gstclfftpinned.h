/* gstclfftpinned.h: system memory the OpenCL driver can copy at full speed (page-locked host memory), for the frames clfft elements upload and download. */
#ifndef __GST_CLFFT_PINNED_H__
#define __GST_CLFFT_PINNED_H__

#include <gst/gst.h>
#include "clf.h"

G_BEGIN_DECLS

/* GstAllocator mem_type of the memory: ordinary system memory to everyone
 * else (mapped for the CPU all the time) */
#define GST_CLFFT_PINNED_MEMORY_TYPE "CLFFTPinned"

#define GST_TYPE_CLFFT_PINNED_ALLOCATOR (gst_clfft_pinned_allocator_get_type ())
G_DECLARE_FINAL_TYPE (GstClfftPinnedAllocator, gst_clfft_pinned_allocator,
    GST, CLFFT_PINNED_ALLOCATOR, GstAllocator)

/* Host memory from a mapped CL_MEM_ALLOC_HOST_PTR buffer of ctx: drivers
 * that pin it (NVIDIA's) copy it to and from the device by DMA, without
 * staging through a bounce buffer as they do for pageable memory. Where
 * the device cannot give such a buffer, memories fall back to ordinary
 * system memory. */
GstAllocator *gst_clfft_pinned_allocator_new (ClfContext * ctx);

/* A buffer pool of pinned video frames for caps, with the video meta
 * option when query asks for it, added first to an ALLOCATION query:
 * for propose_allocation (upstream writes frames where the upload reads
 * them fastest) and decide_allocation (the download writes them there).
 * *allocator is made on first use and kept by the caller. Returns FALSE
 * for caps that are not raw video. */
gboolean gst_clfft_pinned_add_pool (GstQuery * query, GstCaps * caps,
    ClfContext * ctx, GstAllocator ** allocator);

G_END_DECLS

#endif

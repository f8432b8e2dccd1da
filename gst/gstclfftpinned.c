/* gstclfftpinned.c: system memory the OpenCL driver can copy at full speed (page-locked host memory), for the frames clfft elements upload and download. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <gst/video/video.h>

#include "gstclfftpinned.h"

GST_DEBUG_CATEGORY_STATIC (gst_clfft_pinned_debug);
#define GST_CAT_DEFAULT gst_clfft_pinned_debug

struct _GstClfftPinnedAllocator
{
  GstAllocator parent;
  ClfContext *ctx;
};

/* The host side of a mapped OpenCL buffer, mapped for its whole life. A
 * shared (sub) memory points at its parent's bytes and owns nothing. */
typedef struct
{
  GstMemory mem;
  ClfContext *ctx;              /* NULL in a sub memory */
  cl_mem buf;
  guint8 *data;
} GstClfftPinnedMemory;

#define gst_clfft_pinned_allocator_parent_class parent_class
G_DEFINE_TYPE (GstClfftPinnedAllocator, gst_clfft_pinned_allocator,
    GST_TYPE_ALLOCATOR);

static GstMemory *
pinned_alloc (GstAllocator * allocator, gsize size, GstAllocationParams * params)
{
  GstClfftPinnedAllocator *self = GST_CLFFT_PINNED_ALLOCATOR (allocator);
  gsize maxsize = size + params->prefix + params->padding;
  GstClfftPinnedMemory *mem;
  ClfError err = { CLF_OK, "" };
  cl_mem buf;
  cl_int ret = CL_SUCCESS;
  void *data = NULL;

  buf = clf_context_alloc (self->ctx, CL_MEM_READ_WRITE |
      CL_MEM_ALLOC_HOST_PTR, maxsize, &err);
  if (buf)
    data = clEnqueueMapBuffer (clf_context_get_queue (self->ctx), buf, CL_TRUE,
        CL_MAP_READ | CL_MAP_WRITE, 0, maxsize, 0, NULL, NULL, &ret);
  if (!buf || ret != CL_SUCCESS || !data ||
      ((guintptr) data & params->align) != 0) {
    /* the frames still work, only the copies are slower */
    GST_WARNING ("no page-locked memory of %" G_GSIZE_FORMAT " bytes on %s "
        "(%s, map %d): using ordinary system memory", maxsize,
        clf_context_describe (self->ctx), buf ? "mapped" : err.message, ret);
    if (buf) {
      if (ret == CL_SUCCESS && data)
        clEnqueueUnmapMemObject (clf_context_get_queue (self->ctx), buf, data,
            0, NULL, NULL);
      clFinish (clf_context_get_queue (self->ctx));
      clReleaseMemObject (buf);
    }
    return gst_allocator_alloc (NULL, size, params);
  }

  mem = g_new0 (GstClfftPinnedMemory, 1);
  gst_memory_init (GST_MEMORY_CAST (mem), params->flags, allocator, NULL,
      maxsize, params->align, params->prefix, size);
  mem->ctx = clf_context_ref (self->ctx);
  mem->buf = buf;
  mem->data = data;
  if (params->prefix && (params->flags & GST_MEMORY_FLAG_ZERO_PREFIXED))
    memset (mem->data, 0, params->prefix);
  if (params->padding && (params->flags & GST_MEMORY_FLAG_ZERO_PADDED))
    memset (mem->data + params->prefix + size, 0, params->padding);
  GST_LOG ("%" G_GSIZE_FORMAT " bytes of mapped host memory at %p", maxsize,
      data);
  return GST_MEMORY_CAST (mem);
}

static void
pinned_free (GstAllocator * allocator, GstMemory * gmem)
{
  GstClfftPinnedMemory *mem = (GstClfftPinnedMemory *) gmem;

  if (mem->ctx) {
    cl_command_queue q = clf_context_get_queue (mem->ctx);

    /* OpenCL frees the buffer once the unmap has run */
    clEnqueueUnmapMemObject (q, mem->buf, mem->data, 0, NULL, NULL);
    clReleaseMemObject (mem->buf);
    clf_context_unref (mem->ctx);
  }
  g_free (mem);
}

static gpointer
pinned_map (GstMemory * gmem, gsize maxsize, GstMapFlags flags)
{
  return ((GstClfftPinnedMemory *) gmem)->data;
}

static void
pinned_unmap (GstMemory * gmem)
{
}

static GstMemory *
pinned_share (GstMemory * gmem, gssize offset, gssize size)
{
  GstClfftPinnedMemory *mem = (GstClfftPinnedMemory *) gmem;
  GstClfftPinnedMemory *sub;
  GstMemory *parent = gmem->parent ? gmem->parent : gmem;

  if (size == -1)
    size = gmem->size - offset;
  sub = g_new0 (GstClfftPinnedMemory, 1);
  gst_memory_init (GST_MEMORY_CAST (sub), GST_MINI_OBJECT_FLAGS (parent) |
      GST_MINI_OBJECT_FLAG_LOCK_READONLY, gmem->allocator, parent,
      gmem->maxsize, gmem->align, gmem->offset + offset, size);
  sub->data = mem->data;
  return GST_MEMORY_CAST (sub);
}

static GstMemory *
pinned_copy (GstMemory * gmem, gssize offset, gssize size)
{
  GstClfftPinnedMemory *mem = (GstClfftPinnedMemory *) gmem;
  GstAllocationParams params = { 0, gmem->align, 0, 0 };
  GstMemory *copy;
  GstMapInfo info;

  if (size == -1)
    size = gmem->size > (gsize) offset ? gmem->size - offset : 0;
  /* a copy is an ordinary frame: its maker keeps it as long as it likes */
  copy = gst_allocator_alloc (NULL, size, &params);
  if (!copy || !gst_memory_map (copy, &info, GST_MAP_WRITE)) {
    if (copy)
      gst_memory_unref (copy);
    return NULL;
  }
  memcpy (info.data, mem->data + gmem->offset + offset, size);
  gst_memory_unmap (copy, &info);
  return copy;
}

static void
gst_clfft_pinned_allocator_finalize (GObject * object)
{
  GstClfftPinnedAllocator *self = GST_CLFFT_PINNED_ALLOCATOR (object);

  if (self->ctx)
    clf_context_unref (self->ctx);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_clfft_pinned_allocator_class_init (GstClfftPinnedAllocatorClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstAllocatorClass *allocator_class = GST_ALLOCATOR_CLASS (klass);

  gobject_class->finalize = gst_clfft_pinned_allocator_finalize;
  allocator_class->alloc = pinned_alloc;
  allocator_class->free = pinned_free;

  GST_DEBUG_CATEGORY_INIT (gst_clfft_pinned_debug, "clfftpinned", 0,
      "page-locked host memory for clfft frames");
}

static void
gst_clfft_pinned_allocator_init (GstClfftPinnedAllocator * self)
{
  GstAllocator *allocator = GST_ALLOCATOR_CAST (self);

  allocator->mem_type = GST_CLFFT_PINNED_MEMORY_TYPE;
  allocator->mem_map = pinned_map;
  allocator->mem_unmap = pinned_unmap;
  allocator->mem_share = pinned_share;
  allocator->mem_copy = pinned_copy;
  /* an application or another element may allocate from it too */
  GST_OBJECT_FLAG_UNSET (allocator, GST_ALLOCATOR_FLAG_CUSTOM_ALLOC);
}

GstAllocator *
gst_clfft_pinned_allocator_new (ClfContext * ctx)
{
  GstClfftPinnedAllocator *self =
      g_object_new (GST_TYPE_CLFFT_PINNED_ALLOCATOR, NULL);

  gst_object_ref_sink (self);
  self->ctx = clf_context_ref (ctx);
  return GST_ALLOCATOR_CAST (self);
}

gboolean
gst_clfft_pinned_add_pool (GstQuery * query, GstCaps * caps, ClfContext * ctx,
    GstAllocator ** allocator)
{
  GstVideoInfo info;
  GstBufferPool *pool;
  GstStructure *config;
  GstAllocationParams params;

  if (!caps || !ctx || !gst_video_info_from_caps (&info, caps))
    return FALSE;
  if (!*allocator)
    *allocator = gst_clfft_pinned_allocator_new (ctx);

  gst_allocation_params_init (&params);
  pool = gst_video_buffer_pool_new ();
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, info.size, 2, 0);
  gst_buffer_pool_config_set_allocator (config, *allocator, &params);
  if (gst_query_find_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL))
    gst_buffer_pool_config_add_option (config,
        GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (!gst_buffer_pool_set_config (pool, config)) {
    gst_object_unref (pool);
    return FALSE;
  }
  gst_query_add_allocation_param (query, *allocator, &params);
  gst_query_add_allocation_pool (query, pool, info.size, 2, 0);
  gst_object_unref (pool);
  return TRUE;
}

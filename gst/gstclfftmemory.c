/* gstclfftmemory.c: GstMemory backed by an OpenCL buffer of a ClfContext, so chained clfft elements keep frames on the device. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>
#include <string.h>

#include "gstclfftmemory.h"

GST_DEBUG_CATEGORY_STATIC (gst_clfft_memory_debug);
#define GST_CAT_DEFAULT gst_clfft_memory_debug

struct _GstClfftAllocator
{
  GstAllocator parent;
  ClfContext *ctx;
};

/* The OpenCL buffer is the memory; the host copy is a cache for CPU maps.
 * At most one of the two is stale at a time. */
typedef struct
{
  GstMemory mem;
  ClfContext *ctx;
  cl_mem buf;                   /* maxsize bytes */

  GMutex lock;                  /* the fields below, and the transfers */
  guint8 *host;                 /* made at the first CPU map */
  gboolean host_stale;          /* the device changed since host was filled */
  gboolean device_stale;        /* the CPU wrote host since the last upload */
} GstClfftMemory;

#define gst_clfft_allocator_parent_class parent_class
G_DEFINE_TYPE (GstClfftAllocator, gst_clfft_allocator, GST_TYPE_ALLOCATOR);

/* ---- transfers (with the memory lock) ----------------------------------- */

static gboolean
ensure_host (GstClfftMemory * mem)
{
  gsize align = MAX (mem->mem.align + 1, sizeof (gpointer));
  void *p = NULL;

  if (mem->host)
    return TRUE;
  if (posix_memalign (&p, align, mem->mem.maxsize) != 0) {
    GST_ERROR ("no host memory for a %" G_GSIZE_FORMAT "-byte shadow copy",
        mem->mem.maxsize);
    return FALSE;
  }
  mem->host = p;
  /* a new buffer is zero-filled on the device too */
  if (!mem->host_stale)
    memset (mem->host, 0, mem->mem.maxsize);
  return TRUE;
}

static gboolean
download (GstClfftMemory * mem)
{
  ClfError err = { CLF_OK, "" };

  GST_LOG ("downloading %" G_GSIZE_FORMAT " bytes of %p", mem->mem.maxsize,
      mem);
  if (clf_context_download (mem->ctx, mem->buf, 0, mem->mem.maxsize,
          mem->host, mem->mem.maxsize, mem->mem.maxsize, 1, TRUE, NULL,
          &err) != CLF_OK) {
    GST_ERROR ("mapping a clfft memory for the CPU on %s: %s",
        clf_context_describe (mem->ctx), err.message);
    return FALSE;
  }
  mem->host_stale = FALSE;
  return TRUE;
}

static gboolean
upload (GstClfftMemory * mem)
{
  ClfError err = { CLF_OK, "" };

  GST_LOG ("uploading %" G_GSIZE_FORMAT " bytes of %p", mem->mem.maxsize, mem);
  if (clf_context_upload (mem->ctx, mem->buf, 0, mem->mem.maxsize,
          mem->host, mem->mem.maxsize, mem->mem.maxsize, 1, TRUE, NULL,
          &err) != CLF_OK) {
    GST_ERROR ("mapping a clfft memory for the device on %s: %s",
        clf_context_describe (mem->ctx), err.message);
    return FALSE;
  }
  mem->device_stale = FALSE;
  return TRUE;
}

/* ---- GstMemory vfuncs --------------------------------------------------- */

static gpointer
clfft_mem_map (GstMemory * gmem, gsize maxsize, GstMapFlags flags)
{
  GstClfftMemory *mem = (GstClfftMemory *) gmem;
  gpointer data = NULL;

  g_mutex_lock (&mem->lock);
  if (flags & GST_MAP_CLFFT) {
    if (mem->device_stale && !upload (mem))
      goto done;
    if (flags & GST_MAP_WRITE)
      mem->host_stale = TRUE;
    data = &mem->buf;
  } else {
    if (!ensure_host (mem))
      goto done;
    /* also for WRITE: a partial write must keep the rest of the frame */
    if (mem->host_stale && !download (mem))
      goto done;
    if (flags & GST_MAP_WRITE)
      mem->device_stale = TRUE;
    data = mem->host;
  }
done:
  g_mutex_unlock (&mem->lock);
  return data;
}

static void
clfft_mem_unmap (GstMemory * gmem)
{
}

static GstClfftMemory *
memory_new (GstClfftAllocator * alloc, gsize maxsize, GstMemoryFlags flags,
    gsize align, gsize offset, gsize size)
{
  GstClfftMemory *mem;
  ClfError err = { CLF_OK, "" };
  cl_mem buf;
  const cl_uchar zero = 0;
  cl_int ret;

  buf = clf_context_alloc (alloc->ctx, CL_MEM_READ_WRITE, maxsize, &err);
  if (!buf) {
    GST_ERROR_OBJECT (alloc, "%s", err.message);
    return NULL;
  }
  /* defined bytes, like the zero prefix and padding GstAllocationParams
   * may ask for; queued before any use, the queue is in order */
  ret = clEnqueueFillBuffer (clf_context_get_queue (alloc->ctx), buf, &zero,
      sizeof (zero), 0, maxsize, 0, NULL, NULL);
  if (ret != CL_SUCCESS) {
    GST_ERROR_OBJECT (alloc, "clEnqueueFillBuffer failed (%d)", ret);
    clReleaseMemObject (buf);
    return NULL;
  }
  mem = g_new0 (GstClfftMemory, 1);
  gst_memory_init (GST_MEMORY_CAST (mem), flags, GST_ALLOCATOR_CAST (alloc),
      NULL, maxsize, align, offset, size);
  mem->ctx = clf_context_ref (alloc->ctx);
  mem->buf = buf;
  g_mutex_init (&mem->lock);
  GST_TRACE_OBJECT (alloc, "new memory %p, %" G_GSIZE_FORMAT " bytes", mem,
      maxsize);
  return mem;
}

/* A new memory of size bytes holding [offset, offset + size) of gmem:
 * copied on the device, or from the host copy when that is newer. */
static GstMemory *
clfft_mem_copy (GstMemory * gmem, gssize offset, gssize size)
{
  GstClfftMemory *mem = (GstClfftMemory *) gmem, *copy;
  GstClfftAllocator *alloc = GST_CLFFT_ALLOCATOR (gmem->allocator);
  gsize start;
  cl_int ret;

  if (size == -1)
    size = gmem->size > (gsize) offset ? gmem->size - offset : 0;
  start = gmem->offset + offset;
  if (size <= 0 || start + size > gmem->maxsize)
    return NULL;
  copy = memory_new (alloc, size, 0, gmem->align, 0, size);
  if (!copy)
    return NULL;

  g_mutex_lock (&mem->lock);
  if (mem->device_stale) {
    if (!ensure_host (copy)) {
      g_mutex_unlock (&mem->lock);
      gst_memory_unref (GST_MEMORY_CAST (copy));
      return NULL;
    }
    memcpy (copy->host, mem->host + start, size);
    copy->device_stale = TRUE;
  } else {
    ret = clEnqueueCopyBuffer (clf_context_get_queue (mem->ctx), mem->buf,
        copy->buf, start, 0, size, 0, NULL, NULL);
    if (ret != CL_SUCCESS) {
      g_mutex_unlock (&mem->lock);
      GST_ERROR ("clEnqueueCopyBuffer failed (%d)", ret);
      gst_memory_unref (GST_MEMORY_CAST (copy));
      return NULL;
    }
    copy->host_stale = TRUE;
  }
  g_mutex_unlock (&mem->lock);
  return GST_MEMORY_CAST (copy);
}

/* Sub-memories would need their own view of the host/device state: buffer
 * copies of a part fall back to mem_copy. */
static GstMemory *
clfft_mem_share (GstMemory * gmem, gssize offset, gssize size)
{
  return NULL;
}

static gboolean
clfft_mem_is_span (GstMemory * mem1, GstMemory * mem2, gsize * offset)
{
  return FALSE;
}

/* ---- GstAllocator ------------------------------------------------------- */

static GstMemory *
gst_clfft_allocator_alloc (GstAllocator * allocator, gsize size,
    GstAllocationParams * params)
{
  GstClfftAllocator *alloc = GST_CLFFT_ALLOCATOR (allocator);
  GstAllocationParams defaults;

  if (!params) {
    gst_allocation_params_init (&defaults);
    params = &defaults;
  }
  return GST_MEMORY_CAST (memory_new (alloc,
          params->prefix + size + params->padding, params->flags,
          params->align, params->prefix, size));
}

static void
gst_clfft_allocator_free (GstAllocator * allocator, GstMemory * gmem)
{
  GstClfftMemory *mem = (GstClfftMemory *) gmem;

  GST_TRACE_OBJECT (allocator, "freeing memory %p", mem);
  /* OpenCL keeps the buffer until queued commands that use it are done */
  clReleaseMemObject (mem->buf);
  free (mem->host);
  g_mutex_clear (&mem->lock);
  clf_context_unref (mem->ctx);
  g_free (mem);
}

static void
gst_clfft_allocator_finalize (GObject * object)
{
  GstClfftAllocator *alloc = GST_CLFFT_ALLOCATOR (object);

  g_clear_pointer (&alloc->ctx, clf_context_unref);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_clfft_allocator_class_init (GstClfftAllocatorClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstAllocatorClass *allocator_class = GST_ALLOCATOR_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (gst_clfft_memory_debug, "clfftmemory", 0,
      "OpenCL buffers as GstMemory (memory:CLFFTBuffer)");

  gobject_class->finalize = gst_clfft_allocator_finalize;
  allocator_class->alloc = gst_clfft_allocator_alloc;
  allocator_class->free = gst_clfft_allocator_free;
}

static void
gst_clfft_allocator_init (GstClfftAllocator * alloc)
{
  GstAllocator *allocator = GST_ALLOCATOR_CAST (alloc);

  allocator->mem_type = GST_CLFFT_MEMORY_TYPE;
  allocator->mem_map = clfft_mem_map;
  allocator->mem_unmap = clfft_mem_unmap;
  allocator->mem_copy = clfft_mem_copy;
  allocator->mem_share = clfft_mem_share;
  allocator->mem_is_span = clfft_mem_is_span;
  /* it needs a ClfContext: not one for other elements to pick up */
  GST_OBJECT_FLAG_SET (alloc, GST_ALLOCATOR_FLAG_CUSTOM_ALLOC);
}

GstAllocator *
gst_clfft_allocator_new (ClfContext * ctx)
{
  GstClfftAllocator *alloc = g_object_new (GST_TYPE_CLFFT_ALLOCATOR, NULL);

  gst_object_ref_sink (alloc);
  alloc->ctx = clf_context_ref (ctx);
  return GST_ALLOCATOR_CAST (alloc);
}

ClfContext *
gst_clfft_allocator_get_context (GstClfftAllocator * allocator)
{
  return allocator->ctx;
}

/* ---- queries on memories ------------------------------------------------ */

gboolean
gst_is_clfft_memory (GstMemory * mem)
{
  return mem && mem->allocator && GST_IS_CLFFT_ALLOCATOR (mem->allocator);
}

gboolean
gst_clfft_memory_is_from_context (GstMemory * mem, ClfContext * ctx)
{
  return gst_is_clfft_memory (mem) && ((GstClfftMemory *) mem)->ctx == ctx;
}

cl_mem
gst_clfft_memory_get_cl_mem (const GstMapInfo * info)
{
  g_return_val_if_fail (gst_is_clfft_memory (info->memory), NULL);
  g_return_val_if_fail (info->flags & GST_MAP_CLFFT, NULL);
  return ((GstClfftMemory *) info->memory)->buf;
}

gboolean
gst_clfft_memory_frame_layout (GstBuffer * buffer, ClfContext * ctx,
    const GstVideoInfo * info, GstMemory ** mem_out,
    gsize offset[GST_VIDEO_MAX_PLANES], gint stride[GST_VIDEO_MAX_PLANES])
{
  GstVideoMeta *meta;
  GstMemory *mem;
  guint p, n_planes = GST_VIDEO_INFO_N_PLANES (info);

  if (gst_buffer_n_memory (buffer) != 1)
    return FALSE;
  mem = gst_buffer_peek_memory (buffer, 0);
  if (!gst_clfft_memory_is_from_context (mem, ctx))
    return FALSE;
  meta = gst_buffer_get_video_meta (buffer);
  if (meta && meta->n_planes != n_planes)
    return FALSE;
  for (p = 0; p < n_planes; p++) {
    offset[p] = mem->offset + (meta ? meta->offset[p] : info->offset[p]);
    stride[p] = meta ? meta->stride[p] : info->stride[p];
    /* a flipped frame (negative stride) goes the mapped way */
    if (stride[p] <= 0)
      return FALSE;
  }
  *mem_out = mem;
  return TRUE;
}

/* ---- caps and allocation ------------------------------------------------ */

gboolean
gst_clfft_caps_has_memory_feature (const GstCaps * caps)
{
  GstCapsFeatures *f;

  if (!caps || gst_caps_is_empty (caps) || gst_caps_is_any (caps))
    return FALSE;
  f = gst_caps_get_features (caps, 0);
  return f && !gst_caps_features_is_any (f) &&
      gst_caps_features_contains (f, GST_CAPS_FEATURE_MEMORY_CLFFT_BUFFER);
}

GstCaps *
gst_clfft_memory_transform_caps (GstCaps * caps)
{
  GstCaps *res, *rest;
  guint i;

  if (gst_caps_is_any (caps))
    return gst_caps_ref (caps);
  res = gst_caps_new_empty ();
  rest = gst_caps_new_empty ();
  for (i = 0; i < gst_caps_get_size (caps); i++) {
    GstStructure *s = gst_caps_get_structure (caps, i);
    GstCapsFeatures *f = gst_caps_get_features (caps, i);

    if (gst_structure_has_name (s, "video/x-raw")) {
      /* the element reads and writes either memory, whatever it gets */
      res = gst_caps_merge_structure_full (res, gst_structure_copy (s),
          gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_CLFFT_BUFFER, NULL));
      rest = gst_caps_merge_structure_full (rest, gst_structure_copy (s),
          gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY, NULL));
    } else {
      rest = gst_caps_merge_structure_full (rest, gst_structure_copy (s),
          f ? gst_caps_features_copy (f) : NULL);
    }
  }
  return gst_caps_merge (res, rest);
}

void
gst_clfft_memory_decide_allocation (GstQuery * query, ClfContext * ctx,
    GstAllocator ** allocator)
{
  GstCaps *caps = NULL;
  GstVideoInfo info;
  GstBufferPool *pool;
  GstStructure *config;
  GstAllocationParams params;
  guint min = 2, max = 0;

  gst_query_parse_allocation (query, &caps, NULL);
  if (!caps || !gst_video_info_from_caps (&info, caps))
    return;
  if (!*allocator)
    *allocator = gst_clfft_allocator_new (ctx);

  /* downstream may want more buffers in flight (a queue); a pool it
   * offers holds system memory, not ours, so only its counts are kept */
  if (gst_query_get_n_allocation_pools (query) > 0) {
    guint size, qmin, qmax;

    gst_query_parse_nth_allocation_pool (query, 0, NULL, &size, &qmin, &qmax);
    min = MAX (min, qmin);
    max = qmax;
    if (max != 0 && max < min)
      max = min;
  }

  gst_allocation_params_init (&params);
  pool = gst_video_buffer_pool_new ();
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, info.size, min, max);
  gst_buffer_pool_config_set_allocator (config, *allocator, &params);
  if (gst_query_find_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL))
    gst_buffer_pool_config_add_option (config,
        GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_buffer_pool_set_config (pool, config);

  /* GstBaseTransform configures the first pool with the first allocator */
  if (gst_query_get_n_allocation_params (query) > 0)
    gst_query_set_nth_allocation_param (query, 0, *allocator, &params);
  else
    gst_query_add_allocation_param (query, *allocator, &params);
  if (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_set_nth_allocation_pool (query, 0, pool, info.size, min, max);
  else
    gst_query_add_allocation_pool (query, pool, info.size, min, max);
  gst_object_unref (pool);

  GST_DEBUG ("device buffer pool of %u..%u frames of %" G_GSIZE_FORMAT
      " bytes on %s", min, max, info.size, clf_context_describe (ctx));
}

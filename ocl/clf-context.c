/* clf-context.c: device choice, context and queue, programs built once. */
#include "clf-private.h"
#include "clf-kernels.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One built program: an embedded source with one set of build options */
typedef struct _CachedProgram
{
  struct _CachedProgram *next;
  const char *name;
  char *options;
  cl_program program;
} CachedProgram;

struct _ClfContext
{
  int refcount;
  cl_platform_id platform;
  cl_device_id device;
  cl_context context;
  cl_command_queue queue;
  char platform_name[256];
  char device_name[256];
  char description[640];
  size_t local_mem;
  size_t max_work_group;
  size_t cache_bytes;           /* global memory cache (0: not reported) */
  int is_cpu;

  pthread_mutex_t lock;         /* guards programs */
  CachedProgram *programs;
};

typedef struct
{
  cl_platform_id platform;
  cl_device_id device;
  cl_device_type type;
  unsigned pi, di;
  char label[512];              /* "platform / device" */
} DeviceEntry;

/* Enumerates every device; returns count or -1 (err set). */
static int
enumerate_devices (DeviceEntry ** out, ClfError * err)
{
  cl_uint np = 0;
  cl_platform_id *platforms;
  DeviceEntry *list = NULL;
  int count = 0;
  cl_int clerr = clGetPlatformIDs (0, NULL, &np);

  if (clerr == CL_PLATFORM_NOT_FOUND_KHR || np == 0) {
    clf_set_error (err, CLF_ERROR_NO_PLATFORM,
        "no OpenCL platform found (is an ICD such as pocl-opencl-icd "
        "installed, and OCL_ICD_VENDORS pointing at it?)");
    return -1;
  }
  if (clerr != CL_SUCCESS) {
    clf_set_cl_error (err, clerr, "clGetPlatformIDs");
    return -1;
  }
  platforms = calloc (np, sizeof (*platforms));
  if (!platforms) {
    clf_set_error (err, CLF_ERROR_OUT_OF_MEMORY, "out of host memory");
    return -1;
  }
  clGetPlatformIDs (np, platforms, NULL);
  for (cl_uint p = 0; p < np; p++) {
    cl_uint nd = 0;
    cl_device_id *devs;
    char pname[256] = "";

    clGetPlatformInfo (platforms[p], CL_PLATFORM_NAME, sizeof (pname), pname,
        NULL);
    pname[sizeof (pname) - 1] = '\0';
    if (clGetDeviceIDs (platforms[p], CL_DEVICE_TYPE_ALL, 0, NULL,
            &nd) != CL_SUCCESS || nd == 0)
      continue;
    devs = calloc (nd, sizeof (*devs));
    DeviceEntry *grown = realloc (list, (count + nd) * sizeof (*list));
    if (!devs || !grown) {
      free (devs);
      free (grown ? grown : list);
      free (platforms);
      clf_set_error (err, CLF_ERROR_OUT_OF_MEMORY, "out of host memory");
      return -1;
    }
    list = grown;
    clGetDeviceIDs (platforms[p], CL_DEVICE_TYPE_ALL, nd, devs, NULL);
    for (cl_uint d = 0; d < nd; d++) {
      DeviceEntry *e = &list[count++];
      char dname[256] = "";
      e->platform = platforms[p];
      e->device = devs[d];
      e->pi = p;
      e->di = d;
      e->type = 0;
      clGetDeviceInfo (devs[d], CL_DEVICE_TYPE, sizeof (e->type), &e->type,
          NULL);
      clGetDeviceInfo (devs[d], CL_DEVICE_NAME, sizeof (dname), dname, NULL);
      dname[sizeof (dname) - 1] = '\0';
      snprintf (e->label, sizeof (e->label), "%s / %s", pname, dname);
    }
    free (devs);
  }
  free (platforms);
  if (count == 0) {
    free (list);
    clf_set_error (err, CLF_ERROR_NO_DEVICE,
        "OpenCL platforms are installed but expose no device");
    return -1;
  }
  *out = list;
  return count;
}

static int
contains_nocase (const char *hay, const char *needle)
{
  size_t n = strlen (needle);
  for (; *hay; hay++) {
    size_t i = 0;
    while (i < n && hay[i] && tolower ((unsigned char) hay[i]) ==
        tolower ((unsigned char) needle[i]))
      i++;
    if (i == n)
      return 1;
  }
  return n == 0;
}

static const DeviceEntry *
pick_device (const DeviceEntry * list, int count, const char *spec)
{
  unsigned p, d;
  char tail;

  if (!spec || !spec[0]) {
    for (int i = 0; i < count; i++)
      if (list[i].type & CL_DEVICE_TYPE_GPU)
        return &list[i];
    return &list[0];
  }
  if (strcasecmp (spec, "gpu") == 0 || strcasecmp (spec, "cpu") == 0) {
    cl_device_type want = (spec[0] == 'g' || spec[0] == 'G') ?
        CL_DEVICE_TYPE_GPU : CL_DEVICE_TYPE_CPU;
    for (int i = 0; i < count; i++)
      if (list[i].type & want)
        return &list[i];
    return NULL;
  }
  if (sscanf (spec, "%u:%u%c", &p, &d, &tail) == 2) {
    for (int i = 0; i < count; i++)
      if (list[i].pi == p && list[i].di == d)
        return &list[i];
    return NULL;
  }
  for (int i = 0; i < count; i++)
    if (contains_nocase (list[i].label, spec))
      return &list[i];
  return NULL;
}

static const char *
type_name (cl_device_type t)
{
  if (t & CL_DEVICE_TYPE_GPU)
    return "gpu";
  if (t & CL_DEVICE_TYPE_CPU)
    return "cpu";
  if (t & CL_DEVICE_TYPE_ACCELERATOR)
    return "accelerator";
  return "other";
}

char *
clf_list_devices (ClfError * err)
{
  DeviceEntry *list;
  int count = enumerate_devices (&list, err);
  char *text;
  size_t len = 0;

  if (count < 0)
    return NULL;
  text = malloc (count * (sizeof (list[0].label) + 32) + 1);
  if (!text) {
    free (list);
    clf_set_error (err, CLF_ERROR_OUT_OF_MEMORY, "out of host memory");
    return NULL;
  }
  text[0] = '\0';
  for (int i = 0; i < count; i++)
    len += sprintf (text + len, "%u:%u  %-11s %s\n", list[i].pi, list[i].di,
        type_name (list[i].type), list[i].label);
  free (list);
  return text;
}

ClfContext *
clf_context_new (const char *device_spec, ClfError * err)
{
  DeviceEntry *list;
  const DeviceEntry *e;
  ClfContext *ctx;
  cl_int clerr;
  cl_ulong local_mem = 0;
  int count;

  if ((!device_spec || !device_spec[0]) && getenv ("CLFFT_DEVICE"))
    device_spec = getenv ("CLFFT_DEVICE");

  count = enumerate_devices (&list, err);
  if (count < 0)
    return NULL;
  e = pick_device (list, count, device_spec);
  if (!e) {
    clf_set_error (err, CLF_ERROR_NO_DEVICE,
        "no OpenCL device matches '%s' (use \"gpu\", \"cpu\", \"P:D\" or a "
        "part of the name; %d device(s) available)", device_spec, count);
    free (list);
    return NULL;
  }

  ctx = calloc (1, sizeof (*ctx));
  if (!ctx) {
    free (list);
    clf_set_error (err, CLF_ERROR_OUT_OF_MEMORY, "out of host memory");
    return NULL;
  }
  ctx->refcount = 1;
  ctx->platform = e->platform;
  ctx->is_cpu = (e->type & CL_DEVICE_TYPE_CPU) != 0;
  ctx->device = e->device;
  pthread_mutex_init (&ctx->lock, NULL);
  clGetPlatformInfo (e->platform, CL_PLATFORM_NAME,
      sizeof (ctx->platform_name), ctx->platform_name, NULL);
  ctx->platform_name[sizeof (ctx->platform_name) - 1] = '\0';
  clGetDeviceInfo (e->device, CL_DEVICE_NAME, sizeof (ctx->device_name),
      ctx->device_name, NULL);
  ctx->device_name[sizeof (ctx->device_name) - 1] = '\0';
  snprintf (ctx->description, sizeof (ctx->description), "%s (%u:%u)",
      e->label, e->pi, e->di);
  clGetDeviceInfo (e->device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof (local_mem),
      &local_mem, NULL);
  ctx->local_mem = local_mem;
  clGetDeviceInfo (e->device, CL_DEVICE_MAX_WORK_GROUP_SIZE,
      sizeof (ctx->max_work_group), &ctx->max_work_group, NULL);
  {
    cl_ulong cache = 0;
    if (clGetDeviceInfo (e->device, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE,
            sizeof (cache), &cache, NULL) == CL_SUCCESS)
      ctx->cache_bytes = (size_t) cache;
  }
  free (list);

  {
    cl_context_properties props[] = { CL_CONTEXT_PLATFORM,
      (cl_context_properties) ctx->platform, 0
    };
    ctx->context = clCreateContext (props, 1, &ctx->device, NULL, NULL,
        &clerr);
  }
  if (!ctx->context) {
    clf_set_cl_error (err, clerr, "clCreateContext");
    goto fail;
  }
  ctx->queue = clCreateCommandQueue (ctx->context, ctx->device, 0, &clerr);
  if (!ctx->queue) {
    clf_set_cl_error (err, clerr, "clCreateCommandQueue");
    goto fail;
  }
  return ctx;

fail:
  clf_context_unref (ctx);
  return NULL;
}

ClfContext *
clf_context_ref (ClfContext * ctx)
{
  __atomic_add_fetch (&ctx->refcount, 1, __ATOMIC_SEQ_CST);
  return ctx;
}

void
clf_context_unref (ClfContext * ctx)
{
  if (!ctx || __atomic_sub_fetch (&ctx->refcount, 1, __ATOMIC_SEQ_CST) > 0)
    return;
  while (ctx->programs) {
    CachedProgram *p = ctx->programs;
    ctx->programs = p->next;
    clReleaseProgram (p->program);
    free (p->options);
    free (p);
  }
  if (ctx->queue) {
    clFinish (ctx->queue);
    clReleaseCommandQueue (ctx->queue);
  }
  if (ctx->context)
    clReleaseContext (ctx->context);
  pthread_mutex_destroy (&ctx->lock);
  free (ctx);
}

cl_context
clf_context_get_cl_context (ClfContext * ctx)
{
  return ctx->context;
}

cl_command_queue
clf_context_get_queue (ClfContext * ctx)
{
  return ctx->queue;
}

cl_device_id
clf_context_get_device (ClfContext * ctx)
{
  return ctx->device;
}

const char *
clf_context_get_device_name (ClfContext * ctx)
{
  return ctx->device_name;
}

const char *
clf_context_get_platform_name (ClfContext * ctx)
{
  return ctx->platform_name;
}

const char *
clf_context_describe (ClfContext * ctx)
{
  return ctx->description;
}

static size_t local_memory_cap;

void
clf_debug_cap_local_memory (size_t bytes)
{
  local_memory_cap = bytes;
}

/* The local memory plans count on */
static size_t
local_memory (ClfContext * ctx)
{
  return local_memory_cap && local_memory_cap < ctx->local_mem ?
      local_memory_cap : ctx->local_mem;
}

size_t
clf_context_local_fft_limit (ClfContext * ctx)
{
  /* the largest power of two whose points (at an odd stride) fit the
   * device's local memory, at most 8192: beyond that two passes cost less
   * than huge work-groups */
  size_t lim = 8192;
  while (lim > 64 && (lim + 1) * sizeof (cl_float2) > local_memory (ctx))
    lim /= 2;
  return lim;
}

size_t
clf_context_local_capacity (ClfContext * ctx)
{
  return local_memory (ctx) / sizeof (cl_float2);
}

int
clf_context_is_cpu (ClfContext * ctx)
{
  return ctx->is_cpu;
}

size_t
clf_context_max_work_group (ClfContext * ctx)
{
  return ctx->max_work_group;
}

size_t
clf_context_cache_bytes (ClfContext * ctx)
{
  return ctx->cache_bytes;
}

cl_program
clf_context_get_program_full (ClfContext * ctx, const char *name,
    const char *defines, ClfError * err)
{
  const ClfEmbeddedKernel *k;
  CachedProgram *p;
  cl_program program = NULL;
  const char *extra;
  char *options;

  for (k = clf_embedded_kernels; k->name; k++)
    if (strcmp (k->name, name) == 0)
      break;
  if (!k->name) {
    clf_set_error (err, CLF_ERROR_INVALID_ARG,
        "no embedded kernel source named '%s'", name);
    return NULL;
  }
  /* CLFFT_BUILD_OPTIONS: appended to every build (for tuning, such as
   * NVIDIA's -cl-nv-maxrregcount=N) */
  extra = getenv ("CLFFT_BUILD_OPTIONS");
  if (!extra)
    extra = "";
  options = malloc (strlen (defines ? defines : "") + strlen (extra) + 32);
  if (!options) {
    clf_set_error (err, CLF_ERROR_OUT_OF_MEMORY, "host memory");
    return NULL;
  }
  sprintf (options, "-cl-std=CL1.2 %s%s%s", defines ? defines : "",
      extra[0] ? " " : "", extra);

  /* Built under the lock so two elements starting together build once */
  pthread_mutex_lock (&ctx->lock);
  for (p = ctx->programs; p; p = p->next)
    if (strcmp (p->name, name) == 0 && strcmp (p->options, options) == 0)
      break;
  if (p) {
    program = p->program;
  } else {
    program = clf_program_build_cached (ctx->context, ctx->device, name,
        k->source, options, err);
    p = program ? calloc (1, sizeof (*p)) : NULL;
    if (p) {
      p->name = k->name;
      p->options = options;
      p->program = program;
      p->next = ctx->programs;
      ctx->programs = p;
      options = NULL;
    } else if (program) {
      clReleaseProgram (program);
      program = NULL;
      clf_set_error (err, CLF_ERROR_OUT_OF_MEMORY, "host memory");
    }
  }
  pthread_mutex_unlock (&ctx->lock);
  free (options);
  return program;
}

cl_program
clf_context_get_program (ClfContext * ctx, const char *name, ClfError * err)
{
  return clf_context_get_program_full (ctx, name, NULL, err);
}

cl_kernel
clf_context_create_kernel_full (ClfContext * ctx, const char *program,
    const char *defines, const char *kernel_name, ClfError * err)
{
  cl_program prog = clf_context_get_program_full (ctx, program, defines, err);
  cl_kernel kernel;
  cl_int clerr;

  if (!prog)
    return NULL;
  kernel = clCreateKernel (prog, kernel_name, &clerr);
  if (!kernel)
    clf_set_cl_error (err, clerr, "clCreateKernel");
  return kernel;
}

cl_kernel
clf_context_create_kernel (ClfContext * ctx, const char *program,
    const char *kernel_name, ClfError * err)
{
  return clf_context_create_kernel_full (ctx, program, NULL, kernel_name,
      err);
}

cl_mem
clf_context_alloc (ClfContext * ctx, cl_mem_flags flags, size_t size,
    ClfError * err)
{
  cl_int clerr;
  cl_mem mem;

  if (clf_debug_should_fail_alloc ()) {
    clf_set_error (err, CLF_ERROR_OUT_OF_MEMORY,
        "allocating %zu bytes on %s failed (injected by test hook)", size,
        ctx->description);
    return NULL;
  }
  if (size == 0) {
    clf_set_error (err, CLF_ERROR_INVALID_ARG, "zero-sized allocation");
    return NULL;
  }
  mem = clCreateBuffer (ctx->context, flags, size, NULL, &clerr);
  if (!mem) {
    clf_set_cl_error (err, clerr, "clCreateBuffer");
    if (err)
      clf_set_error (err, err->code, "allocating %zu bytes on %s: %s", size,
          ctx->description, clf_cl_error_name (clerr));
  }
  return mem;
}

/* One rectangle between host and device on queue, after the events in
 * wait; plain Write/ReadBuffer when neither side pads its rows. */
static ClfStatus
transfer (cl_command_queue queue, int upload, cl_mem buf, size_t offset,
    size_t stride, void *host, size_t host_stride, size_t row_bytes,
    size_t rows, int blocking, cl_uint n_wait, const cl_event * wait,
    cl_event * done, ClfError * err)
{
  cl_bool block = blocking ? CL_TRUE : CL_FALSE;
  cl_int ret;

  if (!buf || !host || row_bytes == 0 || rows == 0 || stride < row_bytes ||
      host_stride < row_bytes)
    return clf_set_error (err, CLF_ERROR_INVALID_ARG,
        "%s of %zu rows of %zu bytes (device stride %zu, host stride %zu)",
        upload ? "upload" : "download", rows, row_bytes, stride, host_stride);
  if (rows == 1 || (stride == row_bytes && host_stride == row_bytes)) {
    size_t bytes = row_bytes * rows;

    if (upload)
      ret = clEnqueueWriteBuffer (queue, buf, block, offset, bytes, host,
          n_wait, wait, done);
    else
      ret = clEnqueueReadBuffer (queue, buf, block, offset, bytes, host,
          n_wait, wait, done);
  } else {
    size_t buf_origin[3] = { offset, 0, 0 };
    size_t host_origin[3] = { 0, 0, 0 };
    size_t region[3] = { row_bytes, rows, 1 };

    if (upload)
      ret = clEnqueueWriteBufferRect (queue, buf, block, buf_origin,
          host_origin, region, stride, 0, host_stride, 0, host, n_wait, wait,
          done);
    else
      ret = clEnqueueReadBufferRect (queue, buf, block, buf_origin,
          host_origin, region, stride, 0, host_stride, 0, host, n_wait, wait,
          done);
  }
  if (ret != CL_SUCCESS)
    return clf_set_cl_error (err, ret, upload ? "uploading a frame "
        "(clEnqueueWriteBuffer)" : "downloading a frame (clEnqueueReadBuffer)");
  clf_debug_count_transfer (upload, row_bytes * rows);
  return CLF_OK;
}

ClfStatus
clf_context_transfer_on (ClfContext * ctx, cl_command_queue queue,
    int upload, cl_mem buf, size_t offset, size_t stride, void *host,
    size_t host_stride, size_t row_bytes, size_t rows, cl_uint n_wait,
    const cl_event * wait, cl_event * done, ClfError * err)
{
  return transfer (queue ? queue : ctx->queue, upload, buf, offset, stride,
      host, host_stride, row_bytes, rows, 0, n_wait, n_wait ? wait : NULL,
      done, err);
}

ClfStatus
clf_context_upload (ClfContext * ctx, cl_mem buf, size_t offset,
    size_t stride, const void *host, size_t host_stride, size_t row_bytes,
    size_t rows, int blocking, cl_event * done, ClfError * err)
{
  return transfer (ctx->queue, 1, buf, offset, stride, (void *) host,
      host_stride, row_bytes, rows, blocking, 0, NULL, done, err);
}

ClfStatus
clf_context_download (ClfContext * ctx, cl_mem buf, size_t offset,
    size_t stride, void *host, size_t host_stride, size_t row_bytes,
    size_t rows, int blocking, cl_event * done, ClfError * err)
{
  return transfer (ctx->queue, 0, buf, offset, stride, host, host_stride,
      row_bytes, rows, blocking, 0, NULL, done, err);
}

ClfStatus
clf_context_launch (ClfContext * ctx, cl_kernel kernel, size_t gx,
    size_t gy, size_t lx, size_t ly, const char *what, ClfError * err)
{
  size_t global[2] = { (gx + lx - 1) / lx * lx, (gy + ly - 1) / ly * ly };
  size_t local[2] = { lx, ly };
  cl_int ret = clEnqueueNDRangeKernel (ctx->queue, kernel, gy ? 2 : 1, NULL,
      global, local, 0, NULL, NULL);

  if (ret != CL_SUCCESS)
    return clf_set_cl_error (err, ret, what);
  return CLF_OK;
}

ClfStatus
clf_context_wait (ClfContext * ctx, ClfError * err)
{
  cl_event marker = NULL;
  cl_int ret;

  ret = clEnqueueMarkerWithWaitList (ctx->queue, 0, NULL, &marker);
  if (ret != CL_SUCCESS)
    return clf_set_cl_error (err, ret, "clEnqueueMarkerWithWaitList");
  ret = clWaitForEvents (1, &marker);
  clReleaseEvent (marker);
  if (ret != CL_SUCCESS)
    return clf_set_cl_error (err, ret, "clWaitForEvents");
  return CLF_OK;
}

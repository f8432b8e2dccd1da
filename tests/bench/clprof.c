/* clprof.c: device times of every kernel a program launches, for
 * comparing our kernels with another library's in the same process
 * (fftbench's VkFFT) where host wall clock also counts the launch.
 *
 *   LD_PRELOAD=build/tests/bench/libclprof.so clfft-bench 1024 1 16384
 *
 * Turns on profiling in every command queue, keeps an event of each
 * NDRange launch and reads its start and end at the next clFinish. At
 * exit prints to stderr, per kernel name, the launches, the median and
 * least device time and their sum, and the same for the span from the
 * first start to the last end between two clFinish calls. CLPROF_DUMP=dir writes the
 * source of every program built from source there (how another library
 * shapes its kernels). CLPROF_TRACE=1 prints every launch as it completes:
 * kernel, global and local size, device time (which launches a plan
 * makes, and where one frame's time goes); CLPROF_TRACE=2 adds when each
 * started and ended, in us from the first start since the last clFinish
 * (the device's idle time between launches). */
#define _GNU_SOURCE
/* the wrapped entry points of OpenCL 2.0 too, whatever the build asks */
#undef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_PENDING 4096
#define MAX_KERNELS 64
#define MAX_TIMES 100000

typedef struct
{
  char name[64];
  double *times;
  int count;
} KernelTimes;

static cl_event pending[MAX_PENDING];
static int pending_kernel[MAX_PENDING];
static size_t pending_shape[MAX_PENDING][6];
static int npending;
static KernelTimes kernels[MAX_KERNELS];
static int nkernels;
static KernelTimes spans = { "span", NULL, 0 };

static void *
real_symbol (const char *name)
{
  void *f = dlsym (RTLD_NEXT, name);
  if (!f) {
    fprintf (stderr, "clprof: no %s in the OpenCL library\n", name);
    abort ();
  }
  return f;
}

static void
add_time (KernelTimes * k, double us)
{
  if (!k->times)
    k->times = malloc (sizeof (double) * MAX_TIMES);
  if (k->times && k->count < MAX_TIMES)
    k->times[k->count++] = us;
}

/* The slot of kernel k's name; the first launch of a name also prints
 * its geometry and local memory */
static int
kernel_slot (cl_kernel k, cl_uint dim, const size_t *global,
    const size_t *local)
{
  char name[64] = "";
  size_t local_mem = 0;
  cl_device_id dev;

  clGetKernelInfo (k, CL_KERNEL_FUNCTION_NAME, sizeof (name), name, NULL);
  for (int i = 0; i < nkernels; i++)
    if (!strcmp (kernels[i].name, name))
      return i;
  if (nkernels == MAX_KERNELS)
    return MAX_KERNELS - 1;
  {
    cl_program prog;
    clGetKernelInfo (k, CL_KERNEL_PROGRAM, sizeof (prog), &prog, NULL);
    if (clGetProgramInfo (prog, CL_PROGRAM_DEVICES, sizeof (dev), &dev,
            NULL) == CL_SUCCESS)
      clGetKernelWorkGroupInfo (k, dev, CL_KERNEL_LOCAL_MEM_SIZE,
          sizeof (local_mem), &local_mem, NULL);
  }
  fprintf (stderr, "clprof: %s global %zu,%zu,%zu local %zu,%zu,%zu, "
      "%zu bytes of local memory\n", name, global[0],
      dim > 1 ? global[1] : 1, dim > 2 ? global[2] : 1,
      local ? local[0] : 0, local && dim > 1 ? local[1] : 1,
      local && dim > 2 ? local[2] : 1, local_mem);
  snprintf (kernels[nkernels].name, sizeof (kernels[nkernels].name), "%s",
      name);
  return nkernels++;
}

cl_command_queue
clCreateCommandQueue (cl_context c, cl_device_id d,
    cl_command_queue_properties props, cl_int * err)
{
  static cl_command_queue (*real) (cl_context, cl_device_id,
      cl_command_queue_properties, cl_int *);
  if (!real)
    real = real_symbol ("clCreateCommandQueue");
  return real (c, d, props | CL_QUEUE_PROFILING_ENABLE, err);
}

cl_command_queue
clCreateCommandQueueWithProperties (cl_context c, cl_device_id d,
    const cl_queue_properties * props, cl_int * err)
{
  static cl_command_queue (*real) (cl_context, cl_device_id,
      const cl_queue_properties *, cl_int *);
  cl_queue_properties p[32];
  int n = 0, have = 0;

  if (!real)
    real = real_symbol ("clCreateCommandQueueWithProperties");
  for (int i = 0; props && props[i] && n < 28; i += 2) {
    p[n] = props[i];
    p[n + 1] = props[i + 1];
    if (props[i] == CL_QUEUE_PROPERTIES) {
      p[n + 1] |= CL_QUEUE_PROFILING_ENABLE;
      have = 1;
    }
    n += 2;
  }
  if (!have) {
    p[n++] = CL_QUEUE_PROPERTIES;
    p[n++] = CL_QUEUE_PROFILING_ENABLE;
  }
  p[n] = 0;
  return real (c, d, p, err);
}

/* Reads the device times of the pending launches (waiting for each) */
static void
collect (void)
{
  cl_ulong first = ~(cl_ulong) 0, last = 0;
  const char *trace = getenv ("CLPROF_TRACE");

  for (int i = 0; i < npending; i++) {
    cl_ulong start = 0, end = 0;
    clWaitForEvents (1, &pending[i]);
    clGetEventProfilingInfo (pending[i], CL_PROFILING_COMMAND_START,
        sizeof (start), &start, NULL);
    clGetEventProfilingInfo (pending[i], CL_PROFILING_COMMAND_END,
        sizeof (end), &end, NULL);
    add_time (&kernels[pending_kernel[i]], (end - start) / 1e3);
    if (start < first)
      first = start;
    if (trace && (trace[0] == '1' || trace[0] == '2')) {
      const size_t *sh = pending_shape[i];
      fprintf (stderr, "clprof: trace %s %zu,%zu,%zu / %zu,%zu,%zu %.1f us",
          kernels[pending_kernel[i]].name, sh[0], sh[1], sh[2], sh[3], sh[4],
          sh[5], (end - start) / 1e3);
      if (trace[0] == '2')
        fprintf (stderr, " from %.1f to %.1f", (start - first) / 1e3,
            (end - first) / 1e3);
      fputc ('\n', stderr);
    }
    if (end > last)
      last = end;
    clReleaseEvent (pending[i]);
  }
  if (npending)
    add_time (&spans, (last - first) / 1e3);
  npending = 0;
}

cl_int
clEnqueueNDRangeKernel (cl_command_queue q, cl_kernel k, cl_uint dim,
    const size_t *offset, const size_t *global, const size_t *local,
    cl_uint nwait, const cl_event * wait, cl_event * event)
{
  static cl_int (*real) (cl_command_queue, cl_kernel, cl_uint,
      const size_t *, const size_t *, const size_t *, cl_uint,
      const cl_event *, cl_event *);
  cl_event mine;
  cl_int r;

  if (!real)
    real = real_symbol ("clEnqueueNDRangeKernel");
  r = real (q, k, dim, offset, global, local, nwait, wait, &mine);
  if (r != CL_SUCCESS)
    return r;
  if (event) {
    *event = mine;
    clRetainEvent (mine);
  }
  /* a program that never calls clFinish: read the oldest launches
   * now (waiting for them) rather than lose the newest */
  if (npending == MAX_PENDING)
    collect ();
  pending_kernel[npending] = kernel_slot (k, dim, global, local);
  for (cl_uint d = 0; d < 3; d++) {
    pending_shape[npending][d] = d < dim ? global[d] : 1;
    pending_shape[npending][3 + d] = local && d < dim ? local[d] : 0;
  }
  pending[npending++] = mine;
  return r;
}

cl_int
clFinish (cl_command_queue q)
{
  static cl_int (*real) (cl_command_queue);
  cl_int r;

  if (!real)
    real = real_symbol ("clFinish");
  r = real (q);
  collect ();
  return r;
}

cl_program
clCreateProgramWithSource (cl_context c, cl_uint count, const char **strings,
    const size_t *lengths, cl_int * err)
{
  static cl_program (*real) (cl_context, cl_uint, const char **,
      const size_t *, cl_int *);
  static int seq;
  const char *dir = getenv ("CLPROF_DUMP");

  if (!real)
    real = real_symbol ("clCreateProgramWithSource");
  if (dir) {
    char path[512];
    FILE *f;
    snprintf (path, sizeof (path), "%s/program-%d-%d.cl", dir,
        (int) getpid (), seq++);
    if ((f = fopen (path, "w"))) {
      for (cl_uint i = 0; i < count; i++)
        fwrite (strings[i], 1, lengths && lengths[i] ? lengths[i] :
            strlen (strings[i]), f);
      fclose (f);
    }
  }
  return real (c, count, strings, lengths, err);
}

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static void
print_times (const KernelTimes * k)
{
  double total = 0.0;

  if (!k->count)
    return;
  for (int i = 0; i < k->count; i++)
    total += k->times[i];
  qsort (k->times, k->count, sizeof (double), compare_doubles);
  fprintf (stderr, "clprof: %s n=%d median_us=%.2f min_us=%.2f "
      "total_ms=%.2f\n", k->name, k->count, k->times[k->count / 2],
      k->times[0], total / 1e3);
}

static void report (void) __attribute__((destructor));

static void
report (void)
{
  for (int i = 0; i < nkernels; i++)
    print_times (&kernels[i]);
  print_times (&spans);
}

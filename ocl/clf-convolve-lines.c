/* clf-convolve-lines.c: one axis of a separable 2D convolution, fused into
 * one kernel per pass on GPUs or staged through plans. */
#include "clf-convolve-lines.h"
#include "clf-plan-private.h"
#include "clf-tables.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct _ClfLinePass
{
  ClfContext *ctx;
  ClfLineAxis axis;
  size_t n, count;
  cl_mem kspec;                 /* n complex, holds 1/n */
  cl_mem sums;                  /* clamp edges' taps (line_edges), or NULL */
  size_t frame;                 /* lines of the frame alone: its samples
                                 * along a line, zeros after; 0: padded */

  /* fused: fft.cl's fft_convolve_line */
  ClfLocalKernel fused;
  cl_mem tw;

  /* staged: line_load, plans and multiply_spectrum, line_store */
  cl_kernel load, store, multiply;
  ClfPlan *fwd, *inv;
  cl_mem buf;                   /* count lines of n complex */
  size_t fill;                  /* samples line_load writes a line */
  int reads_lines;              /* the forward plan reads the lines
                                 * buffer itself, with no line_load */
  int each;                     /* CPU forms over row-major lines */
};

static size_t force_fused;

void
clf_debug_force_fused_lines (size_t longest)
{
  force_fused = longest;
}

/* Lines fuse up to what local memory holds, beyond the plans' power-of-
 * two limit: on the H200 3840x2160 rows of 5120 points at radius 500 took
 * 1.41 ms of device time fused, 1.76 staged at 4480. */
int
clf_line_pass_would_fuse (ClfContext * ctx, size_t n)
{
  if (force_fused)
    return n <= force_fused && clf_fits_local_memory (ctx, n);
  return !clf_context_is_cpu (ctx) && clf_fits_local_memory (ctx, n);
}

int
clf_line_pass_fuses_within_limit (ClfContext * ctx, size_t n)
{
  return clf_line_pass_would_fuse (ctx, n) && clf_fits_local (ctx, n);
}

size_t
clf_line_pass_device_bytes (size_t n, size_t count, int fused,
    size_t clamp_extent)
{
  /* kernel spectrum, clamp edge sums */
  size_t bytes = n * sizeof (cl_float2) + 2 * clamp_extent * sizeof (cl_float);

  if (fused)
    return bytes + n * sizeof (cl_float2);      /* twiddles */
  return bytes + count * n * sizeof (cl_float2);
}

int
clf_line_pass_is_fused (ClfLinePass * lp)
{
  return lp->fused.kernel != NULL;
}

void
clf_line_pass_free (ClfLinePass * lp)
{
  if (!lp)
    return;
  {
    cl_mem mems[] = { lp->kspec, lp->tw, lp->buf, lp->sums };
    cl_kernel kernels[] = { lp->fused.kernel, lp->load, lp->store,
      lp->multiply
    };

    for (size_t i = 0; i < sizeof (mems) / sizeof (mems[0]); i++)
      if (mems[i])
        clReleaseMemObject (mems[i]);
    for (size_t i = 0; i < sizeof (kernels) / sizeof (kernels[0]); i++)
      if (kernels[i])
        clReleaseKernel (kernels[i]);
  }
  if (lp->fwd)
    clf_plan_free (lp->fwd);
  if (lp->inv)
    clf_plan_free (lp->inv);
  clf_context_unref (lp->ctx);
  free (lp);
}

/* Copies count complex values from the host into mem (blocking) and frees
 * them; NULL values: the host was out of memory. */
static ClfStatus
write_complex (ClfLinePass * lp, cl_mem mem, size_t count, float *values,
    const char *what, ClfError * err)
{
  cl_int ret;

  if (!values)
    return clf_set_error (err, CLF_ERROR_OUT_OF_MEMORY, "out of host memory");
  ret = clEnqueueWriteBuffer (clf_context_get_queue (lp->ctx), mem, CL_TRUE,
      0, count * sizeof (cl_float2), values, 0, NULL, NULL);
  free (values);
  if (ret != CL_SUCCESS)
    return clf_set_cl_error (err, ret, what);
  return CLF_OK;
}

static ClfStatus
new_fused (ClfLinePass * lp, ClfError * err)
{
  char defines[80];
  ClfStatus st;

  /* the kernel stages every line through local memory itself */
  snprintf (defines, sizeof (defines), "-DCLF_LINE_PASS=%d "
      "-DCLF_NO_DIRECT_IO%s", (int) lp->axis,
      lp->frame ? " -DCLF_LINE_EDGES" : "");
  st = clf_local_kernel_new (lp->ctx, lp->n, lp->count, 0,
      clf_local_pad (lp->ctx, lp->n), defines, "fft_convolve_line", &lp->fused,
      err);
  if (st != CLF_OK)
    return st;
  lp->tw = clf_context_alloc (lp->ctx, CL_MEM_READ_ONLY,
      2 * lp->n * sizeof (cl_float2), err);
  if (!lp->tw)
    return err ? err->code : CLF_ERROR_OUT_OF_MEMORY;
  return write_complex (lp, lp->tw, 2 * lp->n,
      clf_stage_twiddle_table (lp->n, lp->fused.radices, lp->fused.nstages),
      "clEnqueueWriteBuffer (twiddles)", err);
}

/* On CPU devices the plans' first stages take the frame's extent and
 * the kernel multiply (ClfPlanDesc): line_load writes no zeros and no
 * pass of its own multiplies. On PoCL (2-core EPYC) 1080p RGBA at radius
 * 1000 (lines of 3072 and 2240 for 1920 and 1080 samples) took 64.0-65.6
 * ms a frame against 70.2-72.8; at radius 4 it stayed level. An output
 * extent for the inverse gained nothing measurable and doubled the cold
 * build of small frames' plans (320x240: 9.1 s against 4.9), whose last
 * stages of radix 42 it compiled twice. GPUs keep the multiply pass,
 * which would otherwise become a plan pass into scratch of the lines'
 * size. */
/* Whether a staged pass's forward plan reads the frame's lines straight
 * from the lines buffer (as the rows pass left them) rather than from a
 * copy padded to n: CPU devices' columns of the frame alone, whose plans
 * take the zeros after the frame as an extent. The plan's reads reach
 * n - h samples past each line's frame samples (and drop them): past the
 * last line, or in row-major lines n - h rows past the last row, so the
 * lines buffer holds that much more. On PoCL (2-core EPYC) the copy
 * (line_load_each) took 1.6-1.9 ms of 1080p RGBA's frame. */
static int
columns_read_lines (ClfContext * ctx, ClfLineAxis axis, size_t frame)
{
  return axis == CLF_LINES_COLUMNS && frame && clf_context_is_cpu (ctx);
}

/* Whether the staged passes take the CPU forms of line_load and
 * line_store (convolve2d.cl), over a lines buffer in rows: on CPU
 * devices, unless a test makes lines fuse, whose kernel and the GPU forms
 * keep the lines in columns */
static int
row_major_lines (ClfContext * ctx)
{
  return clf_context_is_cpu (ctx) && !force_fused;
}

size_t
clf_line_pass_lines_slack (ClfContext * ctx, ClfLineAxis axis, size_t n,
    size_t count, size_t frame)
{
  if (!columns_read_lines (ctx, axis, frame) ||
      clf_line_pass_would_fuse (ctx, n))
    return 0;
  /* past the last line, or in rows past the frame's last row */
  if (row_major_lines (ctx))
    return (n - frame) * count * sizeof (cl_float2);
  return (n - frame) * sizeof (cl_float2);
}

/* A plan over the lines, count of them in a row at a stride of count
 * samples (row-major lines), or n apart (in_dist where it reads the
 * column-major lines buffer) */
static ClfPlan *
new_line_plan (ClfLinePass * lp, ClfDirection dir, int in_rows,
    size_t in_dist, ClfError * err)
{
  ClfPlanDesc desc;

  clf_plan_desc_init (&desc, CLF_C2C, dir, lp->n, 0, lp->count);
  if (dir == CLF_FORWARD)
    desc.in_extent = lp->fill;
  else if (clf_context_is_cpu (lp->ctx))
    desc.in_multiplier = lp->kspec;
  if (in_rows) {
    desc.in.stride[0] = desc.out.stride[0] = lp->count;
    desc.in.dist = desc.out.dist = 1;
  } else if (in_dist) {
    desc.in.dist = in_dist;
  }
  return clf_plan_new (lp->ctx, &desc, err);
}

static ClfStatus
new_staged (ClfLinePass * lp, ClfError * err)
{
  int cpu = clf_context_is_cpu (lp->ctx);
  /* the columns of row-major lines transform in column order */
  int in_rows;

  lp->each = row_major_lines (lp->ctx);
  in_rows = lp->each && lp->axis == CLF_LINES_COLUMNS;
  lp->reads_lines = columns_read_lines (lp->ctx, lp->axis, lp->frame);
  if ((!lp->reads_lines &&
          !(lp->load = clf_context_create_kernel (lp->ctx, "convolve2d",
                  lp->each ? "line_load_each" : "line_load", err))) ||
      !(lp->store = clf_context_create_kernel (lp->ctx, "convolve2d",
              lp->each ? "line_store_each" : "line_store", err)) ||
      (!cpu && !(lp->multiply = clf_context_create_kernel (lp->ctx,
                  "convolve2d", "multiply_spectrum", err))))
    return err ? err->code : CLF_ERROR_BUILD;
  lp->fill = cpu && lp->frame ? lp->frame : lp->n;
  if (!(lp->fwd = new_line_plan (lp, CLF_FORWARD, in_rows,
              lp->reads_lines ? lp->frame : 0, err)) ||
      !(lp->inv = new_line_plan (lp, CLF_INVERSE, in_rows, 0, err)))
    return err ? err->code : CLF_ERROR_OPENCL;
  lp->buf = clf_context_alloc (lp->ctx, CL_MEM_READ_WRITE,
      lp->count * lp->n * sizeof (cl_float2), err);
  return lp->buf ? CLF_OK : (err ? err->code : CLF_ERROR_OUT_OF_MEMORY);
}

ClfLinePass *
clf_line_pass_new (ClfContext * ctx, ClfLineAxis axis, size_t n,
    size_t count, size_t frame, ClfError * err)
{
  ClfLinePass *lp = calloc (1, sizeof (ClfLinePass));
  ClfStatus st;

  if (!lp) {
    clf_set_error (err, CLF_ERROR_OUT_OF_MEMORY, "out of host memory");
    return NULL;
  }
  lp->ctx = clf_context_ref (ctx);
  lp->axis = axis;
  lp->frame = frame;
  lp->n = n;
  lp->count = count;
  if (n < 1 || count < 1 || n > UINT32_MAX || count > UINT32_MAX || frame > n) {
    clf_set_error (err, CLF_ERROR_INVALID_ARG, "%zu lines of %zu samples",
        count, n);
    clf_line_pass_free (lp);
    return NULL;
  }
  lp->kspec = clf_context_alloc (ctx, CL_MEM_READ_ONLY,
      n * sizeof (cl_float2), err);
  if (!lp->kspec) {
    clf_line_pass_free (lp);
    return NULL;
  }
  st = clf_line_pass_would_fuse (ctx, n) ? new_fused (lp, err) :
      new_staged (lp, err);
  if (st != CLF_OK) {
    clf_line_pass_free (lp);
    return NULL;
  }
  return lp;
}

ClfStatus
clf_line_pass_set_kernel (ClfLinePass * lp, const double *taps,
    size_t n_taps, size_t centre, ClfError * err)
{
  if (lp->sums)
    clReleaseMemObject (lp->sums);
  lp->sums = NULL;
  return write_complex (lp, lp->kspec, lp->n, clf_kernel_spectrum (taps, n_taps,
          centre, lp->n, 1.0 / (double) lp->n),
      "clEnqueueWriteBuffer (line kernel)", err);
}

/* Lines of the frame alone: only taps that reach from one frame sample
 * to another (offsets within extent - 1) go into the spectrum; the rest
 * act on the clamped edges, summed per output sample x: sums[x] over the
 * offsets that reach before the first sample (> x), sums[extent + x]
 * over those that reach past the last one (<= x - extent). */
ClfStatus
clf_line_pass_set_clamped_kernel (ClfLinePass * lp, const double *taps,
    size_t n_taps, size_t centre, size_t extent, ClfError * err)
{
  long reach = (long) extent - 1;
  long first = (long) centre - reach, last = (long) centre + reach;
  double *prefix;
  float *sums;
  cl_int ret;
  ClfStatus st;

  if (first < 0)
    first = 0;
  if (last > (long) n_taps - 1)
    last = (long) n_taps - 1;
  st = clf_line_pass_set_kernel (lp, taps + first, (size_t) (last - first +
          1), centre - (size_t) first, err);
  if (st != CLF_OK)
    return st;

  /* prefix[t]: taps[0] + ... + taps[t - 1], so that each sum is one
   * difference rather than a pass over every tap per output sample */
  sums = calloc (2 * extent, sizeof (float));
  prefix = malloc ((n_taps + 1) * sizeof (double));
  if (!sums || !prefix) {
    free (sums);
    free (prefix);
    return clf_set_error (err, CLF_ERROR_OUT_OF_MEMORY, "out of host memory");
  }
  prefix[0] = 0.0;
  for (size_t t = 0; t < n_taps; t++)
    prefix[t + 1] = prefix[t] + taps[t];
  for (size_t x = 0; x < extent; x++) {
    /* before: taps t with t - centre > x; after: t - centre <= x - extent */
    long from = (long) centre + (long) x + 1;
    long upto = (long) centre + (long) x - (long) extent + 1;
    from = from < (long) n_taps ? from : (long) n_taps;
    upto = upto > 0 ? (upto < (long) n_taps ? upto : (long) n_taps) : 0;
    sums[x] = (float) (prefix[n_taps] - prefix[from]);
    sums[extent + x] = (float) prefix[upto];
  }
  free (prefix);
  lp->sums = clf_context_alloc (lp->ctx, CL_MEM_READ_ONLY,
      2 * extent * sizeof (float), err);
  if (!lp->sums) {
    free (sums);
    return err ? err->code : CLF_ERROR_OUT_OF_MEMORY;
  }
  ret = clEnqueueWriteBuffer (clf_context_get_queue (lp->ctx), lp->sums,
      CL_TRUE, 0, 2 * extent * sizeof (float), sums, 0, NULL, NULL);
  free (sums);
  if (ret != CL_SUCCESS)
    return clf_set_cl_error (err, ret, "clEnqueueWriteBuffer (edge sums)");
  return CLF_OK;
}

/* the sums buffer as a kernel argument; NULL when there is none */
static cl_int
set_sums_arg (cl_kernel k, cl_uint index, ClfLinePass * lp)
{
  return clSetKernelArg (k, index, sizeof (cl_mem), lp->sums ? &lp->sums :
      NULL);
}

#define SET_ARG(k, i, v) clSetKernelArg (k, i, sizeof (v), &(v))

static ClfStatus
enqueue_fused (ClfLinePass * lp, cl_mem raw, cl_mem lines,
    const cl_uint16 * chan, const cl_int8 * geo, ClfError * err)
{
  ClfLocalKernel *f = &lp->fused;
  cl_uint count = (cl_uint) lp->count;
  cl_uint4 shape = { {(cl_uint) lp->n, (cl_uint) f->nstages, (cl_uint) f->T,
      (cl_uint) f->G}
  };
  cl_int e = 0;

  e |= SET_ARG (f->kernel, 0, raw);
  e |= SET_ARG (f->kernel, 1, lines);
  e |= SET_ARG (f->kernel, 2, *chan);
  e |= SET_ARG (f->kernel, 3, *geo);
  e |= SET_ARG (f->kernel, 4, count);
  e |= SET_ARG (f->kernel, 5, lp->kspec);
  e |= SET_ARG (f->kernel, 6, lp->tw);
  e |= clSetKernelArg (f->kernel, 7, f->G * f->ls * sizeof (cl_float2), NULL);
  e |= SET_ARG (f->kernel, 8, shape);
  e |= SET_ARG (f->kernel, 9, f->codes);
  e |= set_sums_arg (f->kernel, 10, lp);
  if (e != CL_SUCCESS)
    return clf_set_cl_error (err, e, "clSetKernelArg (fft_convolve_line)");
  /* T work-items per line, G lines per work-group */
  return clf_context_launch (lp->ctx, f->kernel, lp->count * f->T, 0,
      f->G * f->T, 1, "convolving lines", err);
}

/* line_load or line_store over samples of each line (the CPU forms run
 * chunk by chunk, launch_each_range) */
static ClfStatus
launch_line_io (ClfLinePass * lp, cl_kernel k, size_t samples,
    const char *what, ClfError * err)
{
  return clf_context_launch (lp->ctx, k, samples, lp->count, 64, 1, what, err);
}

/* the range argument of line_load_each and line_store_each */
#define LOAD_RANGE_ARG 9
#define STORE_RANGE_ARG 10

/* A line pass's loads and stores of one chunk of lines (the CPU forms) */
typedef struct
{
  ClfLinePass *lp;
  size_t extent;                /* frame samples a line stores */
} ChunkIo;

/* The CPU forms over lines [from, from + count): the row pass runs a
 * work-item per line, the column pass one per row of samples, each over
 * those lines' columns */
static ClfStatus
launch_each_range (ClfLinePass * lp, cl_kernel k, cl_uint arg, size_t from,
    size_t count, size_t samples, const char *what, ClfError * err)
{
  cl_uint2 range = { {(cl_uint) from, (cl_uint) count} };
  cl_int e = clSetKernelArg (k, arg, sizeof (range), &range);

  if (e != CL_SUCCESS)
    return clf_set_cl_error (err, e, "clSetKernelArg (line range)");
  return clf_context_launch (lp->ctx, k, lp->axis == CLF_LINES_ROWS ? count :
      samples, 0, 1, 1, what, err);
}

static ClfStatus
load_chunk (size_t from, size_t count, void *data, ClfError * err)
{
  ChunkIo *io = data;

  if (!io->lp->load)
    return CLF_OK;
  return launch_each_range (io->lp, io->lp->load, LOAD_RANGE_ARG, from,
      count, io->lp->fill, "loading lines", err);
}

static ClfStatus
store_chunk (size_t from, size_t count, void *data, ClfError * err)
{
  ChunkIo *io = data;

  return launch_each_range (io->lp, io->lp->store, STORE_RANGE_ARG, from,
      count, io->extent, "storing lines", err);
}

static ClfStatus
enqueue_staged (ClfLinePass * lp, cl_mem raw, cl_mem lines,
    const cl_uint16 * chan, const cl_int8 * geo, size_t extent, ClfError * err)
{
  cl_uint n = (cl_uint) lp->n, count = (cl_uint) lp->count;
  cl_uint ext = (cl_uint) extent, fill = (cl_uint) lp->fill;
  cl_int pass = (cl_int) lp->axis;
  cl_kernel io[2] = { lp->load, lp->store };
  ClfStatus st;
  cl_int e = 0;

  for (int i = 0; i < 2; i++) {
    if (!io[i])
      continue;
    e |= SET_ARG (io[i], 0, raw);
    e |= SET_ARG (io[i], 1, lines);
    e |= SET_ARG (io[i], 2, *chan);
    e |= SET_ARG (io[i], 3, *geo);
    e |= SET_ARG (io[i], 4, lp->buf);
    e |= SET_ARG (io[i], 5, n);
    e |= SET_ARG (io[i], 6, count);
    e |= SET_ARG (io[i], 7, pass);
  }
  if (lp->load)
    e |= SET_ARG (lp->load, 8, fill);
  e |= SET_ARG (lp->store, 8, ext);
  e |= set_sums_arg (lp->store, 9, lp);
  if (lp->multiply) {
    e |= SET_ARG (lp->multiply, 0, lp->buf);
    e |= SET_ARG (lp->multiply, 1, lp->kspec);
    e |= SET_ARG (lp->multiply, 2, n);
  }
  if (e != CL_SUCCESS)
    return clf_set_cl_error (err, e, "clSetKernelArg (line convolution)");
  /* CPU devices' inverse plans multiply as they read, and each chunk of
   * lines is loaded, transformed both ways and stored in turn, finding
   * what the step before left there still in the caches (PoCL, 2-core
   * EPYC, 1080p RGBA, five rounds of frames alternating in one process
   * with the whole passes one after the other: the fastest frame 17-21%
   * faster at radius 4, up to 20% at radius 1000, the mean 8-24% and
   * 0-6%). */
  if (lp->each) {
    ChunkIo io = { lp, extent };
    return clf_plan_enqueue_pair (lp->fwd, lp->reads_lines ? lines : lp->buf,
        lp->buf, lp->inv, lp->buf, lp->buf, load_chunk, store_chunk, &io, err);
  }
  /* GPUs multiply in a pass of their own (CPU devices whose lines a
   * test makes fuse take line_load and line_store, and no multiply) */
  if ((lp->load && (st = launch_line_io (lp, lp->load, lp->fill,
                  "loading lines", err)) != CLF_OK) ||
      (st = clf_plan_enqueue (lp->fwd, lp->reads_lines ? lines : lp->buf,
              lp->buf, err)) != CLF_OK ||
      (lp->multiply && (st = clf_context_launch (lp->ctx, lp->multiply,
                  lp->n, lp->count, 64, 1,
                  "multiplying lines by the kernel spectrum",
                  err)) != CLF_OK) ||
      (st = clf_plan_enqueue (lp->inv, lp->buf, lp->buf, err)) != CLF_OK)
    return st;
  return launch_line_io (lp, lp->store, extent, "storing lines", err);
}

ClfStatus
clf_line_pass_enqueue (ClfLinePass * lp, cl_mem raw, cl_mem lines,
    const cl_uint16 * chan, const cl_int8 * geo, size_t extent, ClfError * err)
{
  if (lp->fused.kernel)
    return enqueue_fused (lp, raw, lines, chan, geo, err);
  return enqueue_staged (lp, raw, lines, chan, geo, extent, err);
}

/* clf-convolve2d.c: frequency-domain 2D convolution of 8/16-bit image frames on the device. */
#include "clf-convolve2d-private.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Kernels index the padded grid with int */
#define MAX_GRID_LENGTH ((size_t) 1 << 30)

void
clf_kernel2d_extent (const ClfKernel2d * k, size_t *width, size_t *height,
    size_t *cx, size_t *cy)
{
  size_t c;

  if (k->shape == CLF_KERNEL_TAPS) {
    *width = k->width;
    *height = k->height;
    *cx = k->width / 2;
    *cy = k->height / 2;
    return;
  }
  c = (size_t) (k->shape == CLF_KERNEL_GAUSSIAN ? ceil (k->radius) :
      floor (k->radius));
  *width = *height = 2 * c + 1;
  *cx = *cy = c;
}

/* Odd radix stages of a 7-smooth n: one per factor 3, 5 or 7 */
static unsigned
odd_factors (size_t n)
{
  unsigned radices[64], count = 0;
  int ns = clf_factor_radices (n, radices, 64);

  for (int i = 0; i < ns; i++)
    count += radices[i] % 2;
  return count;
}

size_t
clf_convolve2d_padded_length (size_t frame, size_t kernel, int even_only)
{
  size_t need = frame + kernel - 1, n = clf_next_smooth (need), p2 = 1;

  /* Long chains of odd radices run slowly on GPUs: on an H100, R2C 2D
   * batches of 1944x1120 (1944 = 8 3^5) took 215 us and 2048x1120 135 us,
   * 4096x2187 (3^7) 8% longer than 4096x2240. Take the first length with
   * at most three odd factors, and a power of two within 10% of it. */
  while (odd_factors (n) > 3 || (even_only && n % 2 != 0))
    n = clf_next_smooth (n + 1);
  while (p2 < need)
    p2 *= 2;
  return p2 <= n + n / 10 ? p2 : n;
}

size_t
clf_convolve2d_get_device_bytes (ClfConvolve2d * conv)
{
  return conv->device_bytes;
}

const char *
clf_convolve2d_describe (ClfConvolve2d * conv)
{
  return conv->description;
}

static void
release_mem (cl_mem * mem)
{
  if (*mem)
    clReleaseMemObject (*mem);
  *mem = NULL;
}

/* Whether channels unpack through unpack_channel_exact, which checks no
 * bounds and runs exactly a work-item per grid sample: CPU devices, where
 * PoCL vectorises it only so; GPUs take unpack_channel in tiles */
static int
unpack_exact (ClfContext * ctx)
{
  return clf_context_is_cpu (ctx);
}

static size_t
pairs_of (const Group * g)
{
  return (g->batch + 1) / 2;
}

/* Taps of a k-tap kernel centred at c reach this far on the longer side */
static size_t
kernel_reach (size_t k, size_t c)
{
  return k - 1 - c > c ? k - 1 - c : c;
}

/* Length along an axis of extent samples that holds the frame alone: the
 * frame, then zeros as far as taps reach from one frame sample to
 * another (clamped edges add the rest through sums) */
static size_t
alone_length (size_t extent, size_t reach, int even_only)
{
  if (reach > extent - 1)
    reach = extent - 1;
  return clf_convolve2d_padded_length (extent, reach + 1, even_only);
}

/* Clamp and zero edges, whose frame alone needs no edge extension */
static int
edges_as_sums (int edge)
{
  return edge == CLF_EDGE_CLAMP || edge == CLF_EDGE_ZERO;
}

/* Line length of a separable pass over extent samples with a kernel of
 * 2c+1 taps. Clamped lines hold the frame and then zeros, enough of them
 * that no tap wraps from one frame sample onto another; padded lines hold
 * the edge extension of c samples on each side. At 1920x1080 with radius
 * 1000 that is rows of 3072 and columns of 2240 against 4096 and 3136. */
static size_t
line_length (size_t extent, size_t c, int clamped)
{
  if (clamped)
    return alone_length (extent, c, 0);
  return clf_convolve2d_padded_length (extent, 2 * c + 1, 0);
}

/* The axes that take lines of the frame alone: those whose padded lines
 * would not fuse within the power-of-two limit, every axis on PoCL
 * (radius 1000 in 110-114 ms against 117-138). Where padded lines fuse
 * within it they stay: line_edges in the fused kernel cost more than the
 * shorter lines saved (H100, 1080p RGBA: 0.62 against 0.41 ms at radius
 * 4, 0.56 against 0.53 at radius 1000). Beyond it the shorter lines fuse
 * where the padded ones would not, or run faster (H200, 3840x2160:
 * columns of 3200 points against 4480 at radius 1000; rows of 4096
 * against 4480 at radius 150, 1.17 against 1.22 ms). */
static unsigned
clampable_axes (ClfContext * ctx, const Group * g)
{
  size_t rows = line_length (g->width, g->cx, 0);
  size_t cols = line_length (g->height, g->cy, 0);
  unsigned axes = 0;

  if (!clf_line_pass_fuses_within_limit (ctx, rows))
    axes |= CLF_LINES_ROWS;
  if (!clf_line_pass_fuses_within_limit (ctx, cols))
    axes |= CLF_LINES_COLUMNS;
  return axes;
}

/* Line lengths of the group's two axes for the clamped axes given */
static void
set_line_lengths (Group * g, unsigned clamped)
{
  g->clamped = clamped;
  g->nx = line_length (g->width, g->cx, (clamped & CLF_LINES_ROWS) != 0);
  g->ny = line_length (g->height, g->cy, (clamped & CLF_LINES_COLUMNS) != 0);
}

/* The lines buffer between a group's two passes */
static size_t
lines_bytes (ClfContext * ctx, const Group * g)
{
  return pairs_of (g) * g->width * g->height * sizeof (cl_float2) +
      clf_line_pass_lines_slack (ctx, CLF_LINES_COLUMNS, g->ny,
      pairs_of (g) * g->width, clamp_extent (g, CLF_LINES_COLUMNS));
}

/* Device bytes of a group, and the largest single buffer in *largest */
static size_t
separable_bytes (ClfContext * ctx, const Group * g, size_t *largest)
{
  size_t pairs = pairs_of (g);
  size_t lines = lines_bytes (ctx, g);
  size_t rows = pairs * g->height, cols = pairs * g->width;
  int fuse_rows = clf_line_pass_would_fuse (ctx, g->nx);
  int fuse_cols = clf_line_pass_would_fuse (ctx, g->ny);

  if (largest) {
    size_t staged = fuse_rows ? 0 : rows * g->nx * sizeof (cl_float2);
    if (!fuse_cols && cols * g->ny * sizeof (cl_float2) > staged)
      staged = cols * g->ny * sizeof (cl_float2);
    *largest = lines > *largest ? lines : *largest;
    *largest = staged > *largest ? staged : *largest;
  }
  return lines + clf_line_pass_device_bytes (g->nx, rows, fuse_rows,
      clamp_extent (g, CLF_LINES_ROWS)) + clf_line_pass_device_bytes (g->ny,
      cols, fuse_cols, clamp_extent (g, CLF_LINES_COLUMNS));
}

static size_t
group_bytes (const Group * g, size_t *largest)
{
  size_t grid = g->batch * g->nx * g->ny * sizeof (cl_float);
  size_t spec = g->batch * (g->nx / 2 + 1) * g->ny * sizeof (cl_float2);
  size_t kspec = kspec_tables (g) * (g->nx / 2 + 1) * g->ny *
      sizeof (cl_float2);
  size_t edges = g->alone ? 2 * edge_lines_bytes (g) + corner_bytes (g) : 0;

  if (largest) {
    *largest = grid > *largest ? grid : *largest;
    *largest = spec > *largest ? spec : *largest;
    *largest = kspec > *largest ? kspec : *largest;
  }
  return grid + spec + kspec + edges;
}

/* Releases a separable group's line passes and lines buffer */
static void
separable_clear (ClfConvolve2d * conv, Group * g)
{
  conv->device_bytes -= g->line_bytes;
  g->line_bytes = 0;
  clf_line_pass_free (g->rows);
  clf_line_pass_free (g->cols);
  g->rows = g->cols = NULL;
  release_mem (&g->lines);
}

/* Releases a 2D group's plans and buffers (its kernel stays known) */
static void
grid_clear (ClfConvolve2d * conv, Group * g)
{
  ClfPlan **plans[] = { &g->fwd, &g->fwd_frame, &g->inv, &g->edge_cols,
    &g->edge_rows
  };
  cl_mem *mems[] = { &g->grid, &g->spec, &g->kspec, &g->edges, &g->espec,
    &g->corners
  };

  if (g->grid)
    conv->device_bytes -= group_bytes (g, NULL);
  for (size_t i = 0; i < sizeof (plans) / sizeof (plans[0]); i++) {
    if (*plans[i])
      clf_plan_free (*plans[i]);
    *plans[i] = NULL;
  }
  for (size_t i = 0; i < sizeof (mems) / sizeof (mems[0]); i++)
    release_mem (mems[i]);
  g->kspec_valid = 0;
}

static void
group_clear (ClfConvolve2d * conv, Group * g)
{
  separable_clear (conv, g);
  grid_clear (conv, g);
  free (g->ktaps);
  g->ktaps = NULL;
}

/* Copy queues on GPUs; CLFFT_TRANSFER_QUEUES=1 gives them to CPU devices
 * too (to test them on PoCL), 0 keeps GPUs on one queue (to compare). */
static int
transfer_queues (ClfContext * ctx)
{
  const char *env = getenv ("CLFFT_TRANSFER_QUEUES");

  if (env && env[0])
    return atoi (env) > 0;
  return !clf_context_is_cpu (ctx);
}

/* Waits for every frame queued (their host planes are free after). */
static void
finish_frames (ClfConvolve2d * conv)
{
  if (conv->up_queue)
    clFinish (conv->up_queue);
  clFinish (clf_context_get_queue (conv->ctx));
  if (conv->down_queue)
    clFinish (conv->down_queue);
}

static void
release_raw (ClfConvolve2d * conv)
{
  for (unsigned s = 0; s < MAX_SLOTS; s++) {
    release_mem (&conv->raw[s]);
    if (conv->raw_free[s])
      clReleaseEvent (conv->raw_free[s]);
    conv->raw_free[s] = NULL;
  }
  conv->device_bytes -= conv->raw_bytes * conv->n_slots;
  conv->raw_bytes = 0;
  conv->slot = 0;
}

ClfConvolve2d *
clf_convolve2d_new (ClfContext * ctx, ClfError * err)
{
  ClfConvolve2d *conv = calloc (1, sizeof (ClfConvolve2d));
  struct
  {
    cl_kernel *slot;
    const char *name;
  } kernels[] = {
    {&conv->unpack, unpack_exact (ctx) ? "unpack_channel_exact" :
          "unpack_channel"},
    {&conv->pack, "pack_channel"},
    {&conv->place_disk, "place_disk"},
    {&conv->place_taps, "place_taps"},
    {&conv->scale_spectrum, "scale_spectrum"},
    {&conv->multiply_spectrum, "multiply_spectrum"},
    {&conv->gather_edges, "gather_edges"},
    {&conv->multiply_edges, "multiply_edges"},
    {&conv->add_corner, "add_corner"},
  };

  if (!conv) {
    clf_set_error (err, CLF_ERROR_OUT_OF_MEMORY, "out of host memory");
    return NULL;
  }
  conv->ctx = clf_context_ref (ctx);
  conv->n_slots = 1;
  if (transfer_queues (ctx)) {
    cl_context cl = clf_context_get_cl_context (ctx);
    cl_device_id dev = clf_context_get_device (ctx);
    cl_int ret;

    conv->up_queue = clCreateCommandQueue (cl, dev, 0, &ret);
    conv->down_queue = clCreateCommandQueue (cl, dev, 0, &ret);
    if (conv->up_queue && conv->down_queue) {
      conv->n_slots = MAX_SLOTS;
    } else {
      /* both or neither: an upload queue without the download one would
       * refill the one buffer before its download on the other queue */
      if (conv->up_queue)
        clReleaseCommandQueue (conv->up_queue);
      if (conv->down_queue)
        clReleaseCommandQueue (conv->down_queue);
      conv->up_queue = conv->down_queue = NULL;
    }
  }
  for (size_t i = 0; i < sizeof (kernels) / sizeof (kernels[0]); i++) {
    *kernels[i].slot = clf_context_create_kernel (ctx, "convolve2d",
        kernels[i].name, err);
    if (!*kernels[i].slot) {
      clf_convolve2d_free (conv);
      return NULL;
    }
  }
  snprintf (conv->description, sizeof (conv->description), "unconfigured");
  return conv;
}

void
clf_convolve2d_free (ClfConvolve2d * conv)
{
  cl_kernel *kernels[] = { &conv->unpack, &conv->pack,
    &conv->place_disk, &conv->place_taps, &conv->scale_spectrum,
    &conv->multiply_spectrum, &conv->gather_edges, &conv->multiply_edges,
    &conv->add_corner
  };

  if (!conv)
    return;
  finish_frames (conv);
  for (unsigned i = 0; i < conv->n_groups; i++)
    group_clear (conv, &conv->groups[i]);
  release_raw (conv);
  if (conv->up_queue)
    clReleaseCommandQueue (conv->up_queue);
  if (conv->down_queue)
    clReleaseCommandQueue (conv->down_queue);
  for (size_t i = 0; i < sizeof (kernels) / sizeof (kernels[0]); i++)
    if (*kernels[i])
      clReleaseKernel (*kernels[i]);
  clf_context_unref (conv->ctx);
  free (conv);
}

/* ---- launching ---------------------------------------------------------- */

/* Exactly gx x gy work-items, for kernels without bounds checks: rows
 * of the largest divisor of gx up to 64 (16 to 64 for the grids' smooth
 * lengths) */
static ClfStatus
enqueue_exact (ClfConvolve2d * conv, cl_kernel k, size_t gx, size_t gy,
    const char *what, ClfError * err)
{
  return clf_context_launch (conv->ctx, k, gx, gy,
      clf_largest_divisor_upto (gx, 64), 1, what, err);
}

/* ---- configuration ------------------------------------------------------ */

static ClfStatus
check_layout (const ClfFrameLayout2d * l, const ClfKernel2d * kernels,
    unsigned n_kernels, ClfError * err)
{
  if (l->n_planes < 1 || l->n_planes > CLF_CONVOLVE2D_MAX_PLANES ||
      l->n_channels < 1 || l->n_channels > CLF_CONVOLVE2D_MAX_CHANNELS)
    return clf_set_error (err, CLF_ERROR_INVALID_ARG,
        "frame layout with %u planes and %u channels", l->n_planes,
        l->n_channels);
  if (l->edge < CLF_EDGE_CLAMP || l->edge > CLF_EDGE_ZERO)
    return clf_set_error (err, CLF_ERROR_INVALID_ARG, "edge mode %d", l->edge);
  for (unsigned i = 0; i < l->n_channels; i++) {
    const ClfChannel2d *ch = &l->channels[i];
    size_t bytes = ch->bits == 16 ? 2 : 1;

    if (ch->plane >= l->n_planes || ch->kernel >= n_kernels ||
        (ch->bits != 8 && ch->bits != 16) || ch->width < 1 ||
        ch->height < 1 || ch->height > l->rows[ch->plane] ||
        ch->offset + (ch->width - 1) * ch->pixel_stride + bytes >
        l->row_bytes[ch->plane] || ch->width >= MAX_GRID_LENGTH ||
        ch->height >= MAX_GRID_LENGTH)
      return clf_set_error (err, CLF_ERROR_INVALID_ARG,
          "channel %u (%zux%zu, %u bits, plane %u, kernel %u) does not fit "
          "the frame layout", i, ch->width, ch->height, ch->bits, ch->plane,
          ch->kernel);
  }
  for (unsigned i = 0; i < n_kernels; i++) {
    const ClfKernel2d *k = &kernels[i];

    if (k->shape == CLF_KERNEL_TAPS) {
      if (!k->taps || k->width < 1 || k->height < 1 ||
          k->width >= MAX_GRID_LENGTH || k->height >= MAX_GRID_LENGTH)
        return clf_set_error (err, CLF_ERROR_INVALID_ARG,
            "kernel %u: %zux%zu taps", i, k->width, k->height);
    } else if (!(k->radius >= 0.0 && k->radius < MAX_GRID_LENGTH / 2)) {
      return clf_set_error (err, CLF_ERROR_INVALID_ARG,
          "kernel %u: radius %g is negative, not a number or too large", i,
          k->radius);
    }
  }
  return CLF_OK;
}

/* A 2D group's grid: the frame alone, or padded with the edge extension
 * (frame + kernel - 1 samples). R2C rows need an even length. */
static void
set_grid_size (Group * g, int alone)
{
  g->alone = alone;
  if (alone) {
    g->nx = alone_length (g->width, kernel_reach (g->kw, g->cx), 1);
    g->ny = alone_length (g->height, kernel_reach (g->kh, g->cy), 0);
  } else {
    g->nx = clf_convolve2d_padded_length (g->width, g->kw, 1);
    g->ny = clf_convolve2d_padded_length (g->height, g->kh, 0);
  }
  clf_edge_reach (g->kw, g->kh, g->cx, g->cy, g->width, g->height, &g->reach);
}

/* Fills groups[] with the geometry of each (size, kernel) set of channels. */
static unsigned
make_groups (ClfContext * ctx, const ClfFrameLayout2d * l,
    const ClfKernel2d * kernels, Group * groups)
{
  unsigned n = 0;
  int frame_alone = edges_as_sums (l->edge);

  for (unsigned i = 0; i < l->n_channels; i++) {
    const ClfChannel2d *ch = &l->channels[i];
    Group *g = NULL;

    for (unsigned j = 0; j < n && !g; j++)
      if (groups[j].width == ch->width && groups[j].height == ch->height &&
          groups[j].kernel == ch->kernel)
        g = &groups[j];
    if (!g) {
      g = &groups[n++];
      memset (g, 0, sizeof (*g));
      g->width = ch->width;
      g->height = ch->height;
      g->kernel = ch->kernel;
      clf_kernel2d_extent (&kernels[ch->kernel], &g->kw, &g->kh, &g->cx,
          &g->cy);
      g->separable = kernels[ch->kernel].shape == CLF_KERNEL_GAUSSIAN ||
          kernels[ch->kernel].shape == CLF_KERNEL_BOX;
      if (g->separable) {
        /* lines of the frame alone for clamp and zero edges on the axes
         * that take them; a frame with mirror or wrap edges switches the
         * group to padded lines (switch_group), and back */
        g->can_clamp = clampable_axes (ctx, g);
        set_line_lengths (g, frame_alone ? g->can_clamp : 0);
      } else {
        /* the frame alone for clamp and zero edges where its grid is a
         * fifth smaller or more; a frame with mirror or wrap edges
         * switches the group to the padded frame (switch_group), and back */
        size_t area;

        set_grid_size (g, 1);
        area = g->nx * g->ny;
        set_grid_size (g, 0);
        g->can_alone = area * 5 < g->nx * g->ny * 4;
        set_grid_size (g, frame_alone && g->can_alone);
      }
    }
    g->channels[g->batch++] = i;
  }
  return n;
}

static ClfStatus
check_memory (ClfConvolve2d * conv, const Group * groups, unsigned n,
    size_t raw_bytes, ClfError * err)
{
  cl_device_id dev = clf_context_get_device (conv->ctx);
  cl_ulong mem_size = 0, alloc_size = 0;
  size_t total = raw_bytes * conv->n_slots, largest = raw_bytes;
  char sizes[256] = "";
  size_t used = 0;
  int too_long = 0, fits;

  clGetDeviceInfo (dev, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof (mem_size),
      &mem_size, NULL);
  clGetDeviceInfo (dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof (alloc_size),
      &alloc_size, NULL);
  for (unsigned i = 0; i < n; i++) {
    const Group *g = &groups[i];

    if (g->nx >= MAX_GRID_LENGTH || g->ny >= MAX_GRID_LENGTH)
      too_long = 1;
    else if (g->separable)
      total += separable_bytes (conv->ctx, g, &largest);
    else
      total += group_bytes (g, &largest);
    if (used < sizeof (sizes))
      used += snprintf (sizes + used, sizeof (sizes) - used,
          "%s%zux%zu frame plane%s with a %zux%zu kernel -> %zux%zu FFT "
          "grid", i ? "; " : "", g->width, g->height, g->batch > 1 ? "s" : "",
          g->kw, g->kh, g->nx, g->ny);
  }
  if (too_long)
    return clf_set_error (err, CLF_ERROR_OUT_OF_MEMORY,
        "%s: longer than the %zu samples a side the device kernels address",
        sizes, MAX_GRID_LENGTH);
  fits = (mem_size == 0 || total <= mem_size) &&
      (alloc_size == 0 || largest <= alloc_size);
  if (!fits)
    return clf_set_error (err, CLF_ERROR_OUT_OF_MEMORY,
        "%s: needs %zu MiB of device memory in buffers of up to %zu MiB, "
        "the device has %llu MiB (buffers up to %llu MiB); use a smaller "
        "radius or frame", sizes, total >> 20, largest >> 20,
        (unsigned long long) (mem_size >> 20),
        (unsigned long long) (alloc_size >> 20));
  return CLF_OK;
}

static cl_mem
alloc_plain (ClfConvolve2d * conv, size_t bytes, ClfError * err)
{
  return clf_context_alloc (conv->ctx, CL_MEM_READ_WRITE, bytes, err);
}

static cl_mem
alloc_zeroed (ClfConvolve2d * conv, size_t bytes, ClfError * err)
{
  const cl_float zero = 0.0f;
  cl_mem mem = clf_context_alloc (conv->ctx, CL_MEM_READ_WRITE, bytes, err);
  cl_int ret;

  if (!mem)
    return NULL;
  /* scratch planes get transformed with the kernel: keep them finite */
  ret = clEnqueueFillBuffer (clf_context_get_queue (conv->ctx), mem, &zero,
      sizeof (zero), 0, bytes, 0, NULL, NULL);
  if (ret != CL_SUCCESS) {
    clf_set_cl_error (err, ret, "clEnqueueFillBuffer");
    clReleaseMemObject (mem);
    return NULL;
  }
  return mem;
}

static ClfStatus
separable_alloc (ClfConvolve2d * conv, Group * g, ClfError * err)
{
  size_t pairs = pairs_of (g);

  g->rows = clf_line_pass_new (conv->ctx, CLF_LINES_ROWS, g->nx,
      pairs * g->height, clamp_extent (g, CLF_LINES_ROWS), err);
  if (g->rows)
    g->cols = clf_line_pass_new (conv->ctx, CLF_LINES_COLUMNS, g->ny,
        pairs * g->width, clamp_extent (g, CLF_LINES_COLUMNS), err);
  if (g->cols)
    g->lines = clf_context_alloc (conv->ctx, CL_MEM_READ_WRITE,
        lines_bytes (conv->ctx, g), err);
  if (!g->lines) {
    if (g->rows)
      clf_line_pass_free (g->rows);
    if (g->cols)
      clf_line_pass_free (g->cols);
    g->rows = g->cols = NULL;
    return err ? err->code : CLF_ERROR_OUT_OF_MEMORY;
  }
  g->line_bytes = separable_bytes (conv->ctx, g, NULL);
  conv->device_bytes += g->line_bytes;
  return CLF_OK;
}

/* Forward C2C transforms of the frame alone's edge lines, from edges to
 * espec: the columns (n = ny) or, after them, the rows (n = nx) */
static ClfPlan *
edge_plan (ClfConvolve2d * conv, const Group * g, size_t n, size_t offset,
    ClfError * err)
{
  ClfPlanDesc desc;

  clf_plan_desc_init (&desc, CLF_C2C, CLF_FORWARD, n, 0, 2 * g->batch);
  desc.in.offset = desc.out.offset = offset;
  return clf_plan_new (conv->ctx, &desc, err);
}

static ClfStatus
grid_alloc (ClfConvolve2d * conv, Group * g, ClfError * err)
{
  ClfPlanDesc desc;
  size_t half = (g->nx / 2 + 1) * g->ny * sizeof (cl_float2);

  clf_plan_desc_init (&desc, CLF_R2C, CLF_FORWARD, g->nx, g->ny, g->batch);
  g->fwd = clf_plan_new (conv->ctx, &desc, err);
  if (g->fwd && g->alone && clf_context_is_cpu (conv->ctx)) {
    desc.in_extent = g->height;
    if (!(g->fwd_frame = clf_plan_new (conv->ctx, &desc, err)))
      goto failed;
  }
  /* the frame alone's result: the rows past the frame are not wanted */
  clf_plan_desc_init (&desc, CLF_C2R, CLF_INVERSE, g->nx, g->ny, g->batch);
  desc.out_extent = g->alone ? g->height : 0;
  if (g->fwd)
    g->inv = clf_plan_new (conv->ctx, &desc, err);
  if (g->inv && g->alone) {
    g->edge_cols = edge_plan (conv, g, g->ny, 0, err);
    if (g->edge_cols)
      g->edge_rows = edge_plan (conv, g, g->nx, 2 * g->batch * g->ny, err);
  }
  if (!g->inv || (g->alone && !g->edge_rows))
    goto failed;
  g->grid = alloc_zeroed (conv, g->batch * g->nx * g->ny * sizeof (cl_float),
      err);
  /* the spectra and the corner table are written whole before they are
   * read: no fill (a 1080p radius-1000 group's 200 MB of them took
   * PoCL 0.2 s to clear) */
  if (g->grid)
    g->spec = alloc_plain (conv, g->batch * half, err);
  if (g->spec)
    g->kspec = alloc_plain (conv, kspec_tables (g) * half, err);
  if (g->kspec && g->alone) {
    /* past the frame the edge lines stay zero: gather_edges never
     * writes there */
    g->edges = alloc_zeroed (conv, edge_lines_bytes (g), err);
    if (g->edges)
      g->espec = alloc_plain (conv, edge_lines_bytes (g), err);
    if (g->espec)
      g->corners = alloc_plain (conv, corner_bytes (g), err);
  }
  if (!g->kspec || (g->alone && !g->corners))
    goto failed;
  conv->device_bytes += group_bytes (g, NULL);
  return CLF_OK;

failed:
  /* nothing counted yet: grid_clear would subtract it */
  release_mem (&g->grid);
  grid_clear (conv, g);
  return err ? err->code : CLF_ERROR_OUT_OF_MEMORY;
}

static ClfStatus
group_alloc (ClfConvolve2d * conv, Group * g, ClfError * err)
{
  if (g->separable)
    return separable_alloc (conv, g, err);
  return grid_alloc (conv, g, err);
}

static void
describe (ClfConvolve2d * conv)
{
  size_t used = 0, cap = sizeof (conv->description);

  conv->description[0] = '\0';
  for (unsigned i = 0; i < conv->n_groups && used < cap; i++) {
    const Group *g = &conv->groups[i];
    if (g->separable) {
      used += snprintf (conv->description + used, cap - used,
          "%s%zu x %zux%zu with %zux%zu kernel: separable, rows of %zu "
          "(%s), columns of %zu (%s)", i ? "; " : "", g->batch, g->width,
          g->height, g->kw, g->kh, g->nx,
          clf_line_pass_is_fused (g->rows) ? "fused" : "staged", g->ny,
          clf_line_pass_is_fused (g->cols) ? "fused" : "staged");
      continue;
    }
    used += snprintf (conv->description + used, cap - used,
        "%s%zu x %zux%zu with %zux%zu kernel: R2C %zux%zu of the %s [%s]",
        i ? "; " : "", g->batch, g->width, g->height, g->kw, g->kh, g->nx,
        g->ny, g->alone ? "frame alone" : "padded frame",
        g->fwd_frame ? clf_plan_describe (g->fwd_frame) :
        g->fwd ? clf_plan_describe (g->fwd) : "no plans");
  }
}

ClfStatus
clf_convolve2d_configure (ClfConvolve2d * conv,
    const ClfFrameLayout2d * layout, const ClfKernel2d * kernels,
    unsigned n_kernels, ClfError * err)
{
  Group fresh[CLF_CONVOLVE2D_MAX_CHANNELS];
  size_t plane_offset[CLF_CONVOLVE2D_MAX_PLANES], raw_bytes = 0;
  unsigned n;
  ClfStatus st;

  conv->configured = 0;
  if ((st = check_layout (layout, kernels, n_kernels, err)) != CLF_OK)
    return st;
  /* frames in flight still read the buffers and spectra replaced here */
  finish_frames (conv);
  for (unsigned p = 0; p < layout->n_planes; p++) {
    plane_offset[p] = raw_bytes;
    raw_bytes += layout->rows[p] * layout->row_bytes[p];
  }
  n = make_groups (conv->ctx, layout, kernels, fresh);
  if ((st = check_memory (conv, fresh, n, raw_bytes, err)) != CLF_OK)
    return st;

  /* Take over the plans, buffers and spectra of old groups with the same
   * grid, so a kernel change costs one spectrum and a frame size change
   * that keeps the padded size costs nothing. */
  for (unsigned i = 0; i < n; i++) {
    for (unsigned j = 0; j < conv->n_groups; j++) {
      Group *old = &conv->groups[j];
      if (old->separable ? old->rows && fresh[i].separable &&
          old->width == fresh[i].width && old->height == fresh[i].height &&
          old->clamped == fresh[i].clamped : old->fwd && !fresh[i].separable) {
        if (old->nx != fresh[i].nx || old->ny != fresh[i].ny ||
            old->batch != fresh[i].batch || old->alone != fresh[i].alone)
          continue;
        /* the frame alone's plans and tables fit one frame size */
        if (old->alone && (old->width != fresh[i].width ||
                old->height != fresh[i].height))
          continue;
        fresh[i].rows = old->rows;
        fresh[i].cols = old->cols;
        fresh[i].lines = old->lines;
        fresh[i].line_bytes = old->line_bytes;
        fresh[i].fwd = old->fwd;
        fresh[i].fwd_frame = old->fwd_frame;
        fresh[i].inv = old->inv;
        fresh[i].grid = old->grid;
        fresh[i].spec = old->spec;
        fresh[i].kspec = old->kspec;
        fresh[i].edge_cols = old->edge_cols;
        fresh[i].edge_rows = old->edge_rows;
        fresh[i].edges = old->edges;
        fresh[i].espec = old->espec;
        fresh[i].corners = old->corners;
        /* a kernel of another reach: a corner table of its size, below */
        if (old->alone && corner_bytes (old) != corner_bytes (&fresh[i])) {
          conv->device_bytes -= corner_bytes (old);
          release_mem (&fresh[i].corners);
        }
        fresh[i].kspec_valid = old->kspec_valid &&
            old->kw == fresh[i].kw && old->kh == fresh[i].kh;
        fresh[i].kshape = old->kshape;
        fresh[i].kradius = old->kradius;
        fresh[i].ktaps = old->ktaps;
        fresh[i].ktaps_w = old->ktaps_w;
        fresh[i].ktaps_h = old->ktaps_h;
        memset (old, 0, sizeof (*old));
        break;
      }
    }
  }
  for (unsigned j = 0; j < conv->n_groups; j++)
    group_clear (conv, &conv->groups[j]);
  memcpy (conv->groups, fresh, sizeof (fresh));
  conv->n_groups = n;

  if (raw_bytes != conv->raw_bytes) {
    release_raw (conv);
    for (unsigned s = 0; s < conv->n_slots; s++)
      if (!(conv->raw[s] = clf_context_alloc (conv->ctx, CL_MEM_READ_WRITE,
                  raw_bytes, err))) {
        release_raw (conv);
        return err ? err->code : CLF_ERROR_OUT_OF_MEMORY;
      }
    conv->raw_bytes = raw_bytes;
    conv->device_bytes += raw_bytes * conv->n_slots;
  }
  for (unsigned i = 0; i < n; i++) {
    Group *g = &conv->groups[i];

    if (!g->fwd && !g->rows && (st = group_alloc (conv, g, err)) != CLF_OK)
      return st;
    if (g->alone && g->fwd && !g->corners) {
      conv->device_bytes += corner_bytes (g);
      if (!(g->corners = alloc_plain (conv, corner_bytes (g), err))) {
        grid_clear (conv, g);
        return err ? err->code : CLF_ERROR_OUT_OF_MEMORY;
      }
    }
    if (!clf_convolve2d_same_kernel (g, &kernels[g->kernel]) &&
        (st = clf_convolve2d_compute_kernel_spectrum (conv, g,
                &kernels[g->kernel], err)) != CLF_OK)
      return st;
  }
  conv->layout = *layout;
  memcpy (conv->plane_offset, plane_offset, sizeof (plane_offset));
  describe (conv);
  conv->configured = 1;
  return CLF_OK;
}

/* ---- per frame ---------------------------------------------------------- */

/* The planes the kernels work on: conv->raw (packed) when the result goes
 * to the host, else the device destination itself. */
typedef struct
{
  cl_mem mem;
  size_t offset[CLF_CONVOLVE2D_MAX_PLANES];
  size_t stride[CLF_CONVOLVE2D_MAX_PLANES];
} Work;

static ClfStatus
enqueue_channel (ClfConvolve2d * conv, const Work * w, const Group * g,
    unsigned b, int unpack, cl_int edge, ClfError * err)
{
  const ClfChannel2d *ch = &conv->layout.channels[g->channels[b]];
  cl_kernel k = unpack ? conv->unpack : conv->pack;
  cl_uint offset = (cl_uint) (w->offset[ch->plane] + ch->offset);
  cl_uint pstride = (cl_uint) ch->pixel_stride;
  cl_uint row_bytes = (cl_uint) w->stride[ch->plane];
  cl_int width = (cl_int) ch->width, h = (cl_int) ch->height;
  cl_int bits16 = ch->bits == 16;
  cl_int nx = (cl_int) g->nx, ny = (cl_int) g->ny;
  cl_int left = g->alone ? 0 : (cl_int) (g->kw - 1 - g->cx);
  cl_int top = g->alone ? 0 : (cl_int) (g->kh - 1 - g->cy);
  /* the frame alone: zeros after it, clamped edges come as sums */
  cl_int unpack_edge = g->alone ? CLF_EDGE_ZERO : edge;
  cl_uint index = b;
  cl_int ret;
  cl_uint a = 0;

  SET_ARG (k, a++, w->mem, "raw");
  SET_ARG (k, a++, offset, "offset");
  SET_ARG (k, a++, pstride, "pixel_stride");
  SET_ARG (k, a++, row_bytes, "row_bytes");
  SET_ARG (k, a++, width, "width");
  SET_ARG (k, a++, h, "height");
  SET_ARG (k, a++, bits16, "bits16");
  SET_ARG (k, a++, g->grid, "grid");
  SET_ARG (k, a++, index, "index");
  SET_ARG (k, a++, nx, "nx");
  SET_ARG (k, a++, ny, "ny");
  SET_ARG (k, a++, left, "left");
  SET_ARG (k, a++, top, "top");
  if (unpack) {
    /* the frame's forward plan reads no row past the frame */
    size_t rows = g->fwd_frame ? g->height : g->ny;

    SET_ARG (k, a++, unpack_edge, "edge");
    if (unpack_exact (conv->ctx))
      return enqueue_exact (conv, k, g->nx, rows, "unpacking a channel", err);
    return enqueue_2d (conv, k, g->nx, rows, "unpacking a channel", err);
  }
  return enqueue_2d (conv, k, ch->width, ch->height, "packing a channel", err);
}

/* Rebuilds a group when a frame's edge mode needs its other form: a
 * separable group's lines clamped on the axes of form's bits or padded,
 * a 2D group's grid of the frame alone (form 1) or padded. The kernel's
 * own taps outlive the rebuild: its spectrum's computation takes a copy
 * of them. */
static ClfStatus
switch_group (ClfConvolve2d * conv, Group * g, unsigned form, ClfError * err)
{
  float *taps = g->ktaps;
  ClfKernel2d k = { g->kshape, g->kradius, taps, g->ktaps_w, g->ktaps_h };
  ClfStatus st;

  g->ktaps = NULL;
  if (g->separable) {
    separable_clear (conv, g);
    set_line_lengths (g, form);
  } else {
    grid_clear (conv, g);
    set_grid_size (g, form != 0);
  }
  /* the padded form of a wide kernel may not fit where the frame alone
   * did (the group's own bytes and the frame's are checked) */
  st = check_memory (conv, g, 1, conv->raw_bytes, err);
  if (st == CLF_OK && (st = group_alloc (conv, g, err)) == CLF_OK)
    st = clf_convolve2d_compute_kernel_spectrum (conv, g, &k, err);
  free (taps);
  describe (conv);
  return st;
}

/* geo's fields for one pass of a k-tap kernel centred at c: lines of the
 * frame alone (clamped) or padded with the edge extension */
static void
line_geo (cl_int8 * geo, int clamped, size_t k, size_t c, cl_int edge)
{
  geo->s[2] = clamped ? 0 : (cl_int) (k - 1 - c);
  geo->s[3] = clamped ? CLF_EDGE_ZERO : edge;
  geo->s[5] = clamped && edge == CLF_EDGE_CLAMP;
  geo->s[6] = (cl_int) kernel_reach (k, c);
}

/* Rows, then columns: the frame's channels in the working planes, two to
 * a complex line (line-io.clh lays out chan and geo) */
static ClfStatus
enqueue_separable (ClfConvolve2d * conv, const Work * w, Group * g,
    cl_int edge, ClfError * err)
{
  unsigned clamped = edges_as_sums (edge) ? g->can_clamp : 0;
  cl_uint16 chan;
  cl_int8 geo;
  ClfStatus st;

  /* (no passes: an earlier switch failed) */
  if ((clamped != g->clamped || !g->rows) &&
      (st = switch_group (conv, g, clamped, err)) != CLF_OK)
    return st;

  memset (&chan, 0, sizeof (chan));
  memset (&geo, 0, sizeof (geo));
  for (unsigned b = 0; b < g->batch; b++) {
    const ClfChannel2d *ch = &conv->layout.channels[g->channels[b]];
    chan.s[b] = (cl_uint) (w->offset[ch->plane] + ch->offset);
    chan.s[4 + b] = (cl_uint) ch->pixel_stride;
    chan.s[8 + b] = (cl_uint) w->stride[ch->plane];
    chan.s[12 + b] = ch->bits == 16;
  }
  geo.s[0] = (cl_int) g->width;
  geo.s[1] = (cl_int) g->height;
  geo.s[4] = (cl_int) g->batch;
  line_geo (&geo, clamped & CLF_LINES_ROWS, g->kw, g->cx, edge);
  st = clf_line_pass_enqueue (g->rows, w->mem, g->lines, &chan, &geo,
      g->width, err);
  if (st != CLF_OK)
    return st;
  line_geo (&geo, clamped & CLF_LINES_COLUMNS, g->kh, g->cy, edge);
  return clf_line_pass_enqueue (g->cols, w->mem, g->lines, &chan, &geo,
      g->height, err);
}

/* Puts src's planes into the working planes: an upload from the host (on
 * up, NULL for the context's queue, after the event `after` if any; the
 * last upload's event in *uploaded), a copy on the device from another
 * buffer, nothing when src is them. */
static ClfStatus
fill_work (ClfConvolve2d * conv, const ClfFrame2d * src, const Work * w,
    cl_command_queue up, cl_event after, cl_event * uploaded, ClfError * err)
{
  const ClfFrameLayout2d *l = &conv->layout;
  cl_command_queue queue = clf_context_get_queue (conv->ctx);
  ClfStatus st;
  cl_int ret;

  for (unsigned p = 0; p < l->n_planes; p++) {
    size_t src_origin[3] = { src->offset[p], 0, 0 };
    size_t dst_origin[3] = { w->offset[p], 0, 0 };
    size_t region[3] = { l->row_bytes[p], l->rows[p], 1 };
    int last = p + 1 == l->n_planes;

    if (!src->mem) {
      /* the queue is in order: the first upload waits for all */
      st = clf_context_transfer_on (conv->ctx, up, 1, w->mem, w->offset[p],
          w->stride[p], src->host[p], src->stride[p], l->row_bytes[p],
          l->rows[p], p == 0 && after ? 1 : 0, &after,
          last && up ? uploaded : NULL, err);
      if (st != CLF_OK)
        return st;
      continue;
    }
    if (src->mem == w->mem && src->offset[p] == w->offset[p] &&
        src->stride[p] == w->stride[p])
      continue;
    ret = clEnqueueCopyBufferRect (queue, src->mem, w->mem, src_origin,
        dst_origin, region, src->stride[p], 0, w->stride[p], 0, 0, NULL, NULL);
    if (ret != CL_SUCCESS)
      return clf_set_cl_error (err, ret,
          "clEnqueueCopyBufferRect (frame on the device)");
  }
  return CLF_OK;
}

/* The frame alone's edge lines and their spectra, and the multiply with
 * the edge tables (clamped edges) */
static ClfStatus
enqueue_edge_multiply (ClfConvolve2d * conv, Group * g, ClfError * err)
{
  cl_kernel k = conv->gather_edges;
  cl_int nx = (cl_int) g->nx, ny = (cl_int) g->ny;
  cl_int width = (cl_int) g->width, height = (cl_int) g->height;
  cl_uint batch = (cl_uint) g->batch, bins_x = (cl_uint) (g->nx / 2 + 1);
  cl_uint unx = (cl_uint) g->nx, uny = (cl_uint) g->ny;
  size_t global[3] = { 0, g->ny, g->batch }, local[3] = { 0, 1, g->batch };
  size_t lx = 64;
  cl_int ret;
  ClfStatus st;

  SET_ARG (k, 0, g->grid, "grid");
  SET_ARG (k, 1, nx, "nx");
  SET_ARG (k, 2, ny, "ny");
  SET_ARG (k, 3, width, "width");
  SET_ARG (k, 4, height, "height");
  SET_ARG (k, 5, batch, "batch");
  SET_ARG (k, 6, g->edges, "edges");
  st = enqueue_1d (conv, k, g->width > g->height ? g->width : g->height,
      g->batch, "gathering the edge lines", err);
  if (st == CLF_OK)
    st = clf_plan_enqueue (g->edge_cols, g->edges, g->espec, err);
  if (st == CLF_OK)
    st = clf_plan_enqueue (g->edge_rows, g->edges, g->espec, err);
  if (st != CLF_OK)
    return st;
  k = conv->multiply_edges;
  SET_ARG (k, 0, g->spec, "spec");
  SET_ARG (k, 1, g->kspec, "kspec");
  SET_ARG (k, 2, bins_x, "bins_x");
  SET_ARG (k, 3, unx, "nx");
  SET_ARG (k, 4, uny, "ny");
  SET_ARG (k, 5, batch, "batch");
  SET_ARG (k, 6, g->espec, "espec");
  /* four bins a work-item; a work-group holds its bins in every channel */
  while (lx > 1 && lx * g->batch > clf_context_max_work_group (conv->ctx))
    lx /= 2;
  global[0] = (bins_x + 3) / 4;
  global[0] = (global[0] + lx - 1) / lx * lx;
  local[0] = lx;
  ret = clEnqueueNDRangeKernel (clf_context_get_queue (conv->ctx), k, 3,
      NULL, global, local, 0, NULL, NULL);
  if (ret != CL_SUCCESS)
    return clf_set_cl_error (err, ret,
        "multiplying by the kernel and edge spectra");
  return CLF_OK;
}

/* The frame alone's corners with clamped edges, added to the result in
 * the grid (clf-convolve2d-edges.h lays out the corner table) */
static ClfStatus
enqueue_corners (ClfConvolve2d * conv, Group * g, ClfError * err)
{
  const ClfEdgeReach *r = &g->reach;
  cl_kernel k = conv->add_corner;
  cl_int nx = (cl_int) g->nx, ny = (cl_int) g->ny;
  cl_uint batch = (cl_uint) g->batch;
  cl_int span = (cl_int) (r->left + r->right);
  cl_int w = (cl_int) g->width, h = (cl_int) g->height;
  cl_int ret;
  ClfStatus st = CLF_OK;

  SET_ARG (k, 0, g->grid, "grid");
  SET_ARG (k, 1, nx, "nx");
  SET_ARG (k, 2, ny, "ny");
  SET_ARG (k, 3, batch, "batch");
  SET_ARG (k, 4, g->corners, "corners");
  SET_ARG (k, 5, span, "span");
  SET_ARG (k, 8, g->edges, "edges");
  for (cl_int bottom = 0; bottom < 2 && st == CLF_OK; bottom++) {
    for (cl_int right = 0; right < 2 && st == CLF_OK; right++) {
      cl_int columns = (cl_int) (right ? r->right : r->left);
      cl_int rows = (cl_int) (bottom ? r->bottom : r->top);
      cl_int4 block = { {right ? (cl_int) r->left : 0,
              bottom ? (cl_int) r->top : 0, right ? w - columns : 0,
          bottom ? h - rows : 0}
      };
      cl_int sample_row = bottom ? h - 1 : 0;

      if (!columns || !rows)
        continue;
      SET_ARG (k, 6, block, "block");
      SET_ARG (k, 7, columns, "columns");
      SET_ARG (k, 9, right, "right");
      SET_ARG (k, 10, sample_row, "sample_row");
      st = clf_context_launch (conv->ctx, k, (size_t) columns,
          (size_t) rows, 64, 1, "adding the corners", err);
    }
  }
  return st;
}

/* A non-separable group: each channel into the grid, R2C, times the
 * kernel spectrum (and the edge terms), C2R, each channel back */
static ClfStatus
enqueue_grid (ClfConvolve2d * conv, const Work * w, Group * g, cl_int edge,
    ClfError * err)
{
  int alone = edges_as_sums (edge) && g->can_alone;
  /* clamped edges on the frame alone: the edge terms and corners */
  int edge_terms = alone && edge == CLF_EDGE_CLAMP;
  cl_kernel k = conv->multiply_spectrum;
  cl_uint count;
  cl_int ret;
  ClfStatus st;

  /* (no plans: an earlier switch failed) */
  if ((alone != g->alone || !g->fwd) &&
      (st = switch_group (conv, g, (unsigned) alone, err)) != CLF_OK)
    return st;
  count = (cl_uint) ((g->nx / 2 + 1) * g->ny);
  for (unsigned b = 0; b < g->batch; b++)
    if ((st = enqueue_channel (conv, w, g, b, 1, edge, err)) != CLF_OK)
      return st;
  /* out of place: the edge lines are gathered from the grid after it */
  st = clf_plan_enqueue (g->fwd_frame ? g->fwd_frame : g->fwd, g->grid,
      g->spec, err);
  if (st == CLF_OK && edge_terms) {
    st = enqueue_edge_multiply (conv, g, err);
  } else if (st == CLF_OK) {
    SET_ARG (k, 0, g->spec, "spec");
    SET_ARG (k, 1, g->kspec, "kspec");
    SET_ARG (k, 2, count, "count");
    st = enqueue_1d (conv, k, count, g->batch,
        "multiplying by the kernel spectrum", err);
  }
  if (st == CLF_OK)
    st = clf_plan_enqueue (g->inv, g->spec, g->grid, err);
  if (st == CLF_OK && edge_terms)
    st = enqueue_corners (conv, g, err);
  for (unsigned b = 0; b < g->batch && st == CLF_OK; b++)
    st = enqueue_channel (conv, w, g, b, 0, edge, err);
  return st;
}

/* Queues the convolution of every channel group of the working planes. */
static ClfStatus
enqueue_groups (ClfConvolve2d * conv, const Work * w, cl_int edge,
    ClfError * err)
{
  ClfStatus st = CLF_OK;

  for (unsigned i = 0; i < conv->n_groups && st == CLF_OK; i++) {
    Group *g = &conv->groups[i];

    if (g->separable)
      st = enqueue_separable (conv, w, g, edge, err);
    else
      st = enqueue_grid (conv, w, g, edge, err);
  }
  return st;
}

/* Queues one frame; *done receives an event that completes once dst
 * holds the result (and src is no longer read). */
static ClfStatus
enqueue_frame (ClfConvolve2d * conv, const ClfFrame2d * src,
    const ClfFrame2d * dst, cl_int edge, cl_event * done, ClfError * err)
{
  const ClfFrameLayout2d *l = &conv->layout;
  cl_command_queue queue = clf_context_get_queue (conv->ctx);
  cl_event uploaded = NULL, computed = NULL, after = NULL;
  unsigned s = conv->slot;
  Work w;
  cl_int ret;
  ClfStatus st;

  /* a device destination is worked on in place: the kernels unpack from
   * and pack into the frame there, so no copy back is needed */
  if (dst->mem) {
    w.mem = dst->mem;
    memcpy (w.offset, dst->offset, sizeof (w.offset));
    memcpy (w.stride, dst->stride, sizeof (w.stride));
  } else {
    /* the next frame to the host takes the other buffer */
    conv->slot = (s + 1) % conv->n_slots;
    w.mem = conv->raw[s];
    after = conv->raw_free[s];
    memcpy (w.offset, conv->plane_offset, sizeof (w.offset));
    memcpy (w.stride, l->row_bytes, sizeof (w.stride));
  }
  /* a device source is copied on the kernels' queue: the buffer's last
   * download must be done first */
  if (src->mem && after &&
      (ret = clEnqueueBarrierWithWaitList (queue, 1, &after,
              NULL)) != CL_SUCCESS)
    return clf_set_cl_error (err, ret, "clEnqueueBarrierWithWaitList");
  st = fill_work (conv, src, &w, dst->mem ? NULL : conv->up_queue, after,
      &uploaded, err);
  if (st == CLF_OK && uploaded &&
      (ret = clEnqueueBarrierWithWaitList (queue, 1, &uploaded,
              NULL)) != CL_SUCCESS)
    st = clf_set_cl_error (err, ret, "clEnqueueBarrierWithWaitList");
  if (uploaded)
    clReleaseEvent (uploaded);
  if (st != CLF_OK || (st = enqueue_groups (conv, &w, edge, err)) != CLF_OK)
    return st;

  if (dst->mem || conv->down_queue) {
    ret = clEnqueueMarkerWithWaitList (queue, 0, NULL,
        dst->mem ? done : &computed);
    if (ret != CL_SUCCESS)
      return clf_set_cl_error (err, ret, "clEnqueueMarkerWithWaitList");
    if (dst->mem)
      return CLF_OK;
  }
  for (unsigned p = 0; p < l->n_planes && st == CLF_OK; p++)
    st = clf_context_transfer_on (conv->ctx, conv->down_queue, 0, w.mem,
        w.offset[p], w.stride[p], dst->host[p], dst->stride[p],
        l->row_bytes[p], l->rows[p], p == 0 && computed ? 1 : 0, &computed,
        p + 1 == l->n_planes ? done : NULL, err);
  if (computed)
    clReleaseEvent (computed);
  if (st == CLF_OK && conv->down_queue) {
    if (conv->raw_free[s])
      clReleaseEvent (conv->raw_free[s]);
    clRetainEvent (*done);
    conv->raw_free[s] = *done;
  }
  return st;
}

/* A side of a frame fits the layout: host planes are given, device planes
 * lie inside the buffer and within the 32-bit offsets the kernels take. */
static ClfStatus
check_frame (ClfConvolve2d * conv, const ClfFrame2d * f, const char *what,
    ClfError * err)
{
  const ClfFrameLayout2d *l = &conv->layout;
  size_t size = 0;
  cl_int ret;

  if (f->mem) {
    ret = clGetMemObjectInfo (f->mem, CL_MEM_SIZE, sizeof (size), &size, NULL);
    if (ret != CL_SUCCESS)
      return clf_set_cl_error (err, ret, "clGetMemObjectInfo (frame)");
  }
  for (unsigned p = 0; p < l->n_planes; p++) {
    size_t end = f->offset[p] + (l->rows[p] - 1) * f->stride[p] +
        l->row_bytes[p];

    if (f->stride[p] < l->row_bytes[p] || (!f->mem && !f->host[p]) ||
        (f->mem && (end > size || end > UINT32_MAX)))
      return clf_set_error (err, CLF_ERROR_INVALID_ARG,
          "%s plane %u (%s, offset %zu, stride %zu) does not hold %zu rows "
          "of %zu bytes%s", what, p, f->mem ? "device" : "host",
          f->offset[p], f->stride[p], l->rows[p], l->row_bytes[p],
          f->mem ? " inside its buffer" : "");
  }
  return CLF_OK;
}

ClfStatus
clf_convolve2d_submit_frame (ClfConvolve2d * conv, const ClfFrame2d * src,
    const ClfFrame2d * dst, ClfEdgeMode edge, cl_event * done, ClfError * err)
{
  ClfStatus st;

  *done = NULL;
  if (!conv->configured)
    return clf_set_error (err, CLF_ERROR_INVALID_ARG,
        "clf_convolve2d_process before a successful configure");
  if (edge < CLF_EDGE_CLAMP || edge > CLF_EDGE_ZERO)
    return clf_set_error (err, CLF_ERROR_INVALID_ARG, "edge mode %d", edge);
  if ((st = check_frame (conv, src, "source", err)) != CLF_OK ||
      (st = check_frame (conv, dst, "destination", err)) != CLF_OK)
    return st;

  st = enqueue_frame (conv, src, dst, (cl_int) edge, done, err);
  if (st != CLF_OK) {
    /* queued transfers may still use the host planes */
    finish_frames (conv);
    if (*done)
      clReleaseEvent (*done);
    *done = NULL;
  }
  return st;
}

ClfStatus
clf_convolve2d_process_frame (ClfConvolve2d * conv, const ClfFrame2d * src,
    const ClfFrame2d * dst, ClfEdgeMode edge, ClfError * err)
{
  cl_event done = NULL;
  ClfStatus st;
  cl_int ret;

  /* waiting for this frame's event, not clFinish, keeps other elements'
   * work on the shared queue out of this frame's time */
  st = clf_convolve2d_submit_frame (conv, src, dst, edge, &done, err);
  if (st != CLF_OK)
    return st;
  ret = clWaitForEvents (1, &done);
  clReleaseEvent (done);
  if (ret != CL_SUCCESS)
    return clf_set_cl_error (err, ret, "clWaitForEvents");
  return CLF_OK;
}

ClfStatus
clf_convolve2d_process (ClfConvolve2d * conv, const void *const *src,
    const size_t *src_stride, void *const *dst, const size_t *dst_stride,
    ClfEdgeMode edge, ClfError * err)
{
  ClfFrame2d in, out;

  memset (&in, 0, sizeof (in));
  memset (&out, 0, sizeof (out));
  if (conv->configured) {
    for (unsigned p = 0; p < conv->layout.n_planes; p++) {
      in.host[p] = (void *) src[p];
      in.stride[p] = src_stride[p];
      out.host[p] = dst[p];
      out.stride[p] = dst_stride[p];
    }
  }
  return clf_convolve2d_process_frame (conv, &in, &out, edge, err);
}

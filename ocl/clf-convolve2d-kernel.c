/* clf-convolve2d-kernel.c: a 2D convolution group's kernel, as taps on the host and as spectra on the device. */
#include "clf-convolve2d-private.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int64_t
isqrt64 (int64_t v)
{
  int64_t r = (int64_t) sqrt ((double) v);

  while (r > 0 && r * r > v)
    r--;
  while ((r + 1) * (r + 1) <= v)
    r++;
  return r;
}

/* Taps of the disk dx^2 + dy^2 <= r2 with |dy| <= c: 2m + 1 in row dy,
 * m = isqrt (r2 - dy^2), as place_disk draws it */
static int64_t
disk_taps (int64_t r2, int64_t c)
{
  int64_t count = 0;

  for (int64_t dy = -c; dy <= c; dy++)
    if (r2 - dy * dy >= 0)
      count += 2 * isqrt64 (r2 - dy * dy) + 1;
  return count;
}

/* A small read-only buffer filled from host memory (blocking, so the host
 * array may be freed at once). */
static cl_mem
upload_floats (ClfConvolve2d * conv, const float *data, size_t count,
    ClfError * err)
{
  cl_mem mem = clf_context_alloc (conv->ctx, CL_MEM_READ_ONLY,
      count * sizeof (float), err);
  cl_int ret;

  if (!mem)
    return NULL;
  ret = clEnqueueWriteBuffer (clf_context_get_queue (conv->ctx), mem,
      CL_TRUE, 0, count * sizeof (float), data, 0, NULL, NULL);
  if (ret != CL_SUCCESS) {
    clf_set_cl_error (err, ret, "clEnqueueWriteBuffer (kernel taps)");
    clReleaseMemObject (mem);
    return NULL;
  }
  return mem;
}

/* The 1D profile of a separable kernel (gaussian, box), 2c+1 taps
 * normalised in double so that the 2D kernel, their product, sums to one;
 * NULL when out of memory. */
static double *
separable_profile (const ClfKernel2d * k, size_t c)
{
  size_t len = 2 * c + 1;
  double *p = malloc (len * sizeof (double)), sum = 0.0;

  if (!p)
    return NULL;
  for (size_t i = 0; i < len; i++) {
    double d = (double) i - (double) c, v = 1.0;
    if (k->shape == CLF_KERNEL_GAUSSIAN && k->radius > 0.0) {
      double sigma = k->radius / 3.0;
      v = exp (-d * d / (2.0 * sigma * sigma));
    }
    p[i] = v;
    sum += v;
  }
  for (size_t i = 0; i < len; i++)
    p[i] /= sum;
  return p;
}

/* Writes a 2D kernel (disk, taps) into plane 0 of g->grid, centred on the
 * grid origin. */
static ClfStatus
place_kernel (ClfConvolve2d * conv, Group * g, const ClfKernel2d * k,
    ClfError * err)
{
  cl_int nx = (cl_int) g->nx, ny = (cl_int) g->ny, c = (cl_int) g->cx;
  cl_kernel kern;
  cl_mem taps = NULL;
  cl_int ret;
  ClfStatus st;

  if (k->shape == CLF_KERNEL_DISK) {
    /* r^2 of a float radius is exact in double; floor makes the integer
     * test dx^2 + dy^2 <= r2 exact on the device too */
    cl_long r2 = (cl_long) floor (k->radius * k->radius);
    cl_float weight = (cl_float) (1.0 / (double) disk_taps (r2, c));

    kern = conv->place_disk;
    SET_ARG (kern, 0, g->grid, "grid");
    SET_ARG (kern, 1, nx, "nx");
    SET_ARG (kern, 2, ny, "ny");
    SET_ARG (kern, 3, c, "c");
    SET_ARG (kern, 4, r2, "r2");
    SET_ARG (kern, 5, weight, "weight");
  } else {
    /* custom taps: gaussian and box never get here, they run as lines */
    cl_int kw = (cl_int) g->kw, kh = (cl_int) g->kh;
    cl_int cx = (cl_int) g->cx, cy = (cl_int) g->cy;

    taps = upload_floats (conv, k->taps, k->width * k->height, err);
    if (!taps)
      return err ? err->code : CLF_ERROR_OUT_OF_MEMORY;
    kern = conv->place_taps;
    SET_ARG (kern, 0, g->grid, "grid");
    SET_ARG (kern, 1, nx, "nx");
    SET_ARG (kern, 2, ny, "ny");
    SET_ARG (kern, 3, taps, "taps");
    SET_ARG (kern, 4, kw, "kw");
    SET_ARG (kern, 5, kh, "kh");
    SET_ARG (kern, 6, cx, "cx");
    SET_ARG (kern, 7, cy, "cy");
  }
  st = enqueue_2d (conv, kern, g->nx, g->ny, "placing the kernel", err);
  /* released now, freed by OpenCL once the launch is done */
  if (taps)
    clReleaseMemObject (taps);
  return st;
}

int
clf_convolve2d_same_kernel (const Group * g, const ClfKernel2d * k)
{
  if (!g->kspec_valid || g->kshape != k->shape)
    return 0;
  if (k->shape != CLF_KERNEL_TAPS)
    return g->kradius == k->radius;
  return g->ktaps_w == k->width && g->ktaps_h == k->height &&
      memcmp (g->ktaps, k->taps, k->width * k->height * sizeof (float)) == 0;
}

/* A pass's kernel, for clamped lines of extent samples (0: padded) */
static ClfStatus
set_pass_kernel (ClfLinePass * lp, const double *taps, size_t n_taps,
    size_t centre, size_t clamp_extent, ClfError * err)
{
  if (clamp_extent)
    return clf_line_pass_set_clamped_kernel (lp, taps, n_taps, centre,
        clamp_extent, err);
  return clf_line_pass_set_kernel (lp, taps, n_taps, centre, err);
}

/* The row and column passes' kernel spectra (the same profile) */
static ClfStatus
set_separable_kernel (Group * g, const ClfKernel2d * k, ClfError * err)
{
  double *profile = separable_profile (k, g->cx);
  ClfStatus st;

  if (!profile)
    return clf_set_error (err, CLF_ERROR_OUT_OF_MEMORY,
        "out of host memory for a %zu-tap kernel profile", g->kw);
  st = set_pass_kernel (g->rows, profile, g->kw, g->cx,
      clamp_extent (g, CLF_LINES_ROWS), err);
  if (st == CLF_OK)
    st = set_pass_kernel (g->cols, profile, g->kh, g->cy,
        clamp_extent (g, CLF_LINES_COLUMNS), err);
  free (profile);
  return st;
}

/* kspec tables first .. first + n - 1 = R2C(planes 0 .. n - 1 of the
 * grid) / (nx ny). Uses the group's batched plan (planes past n hold
 * scratch): no extra plan. */
static ClfStatus
transform_tables (ClfConvolve2d * conv, Group * g, unsigned first,
    unsigned n, ClfError * err)
{
  cl_uint count = (cl_uint) ((g->nx / 2 + 1) * g->ny);
  cl_float scale = (cl_float) (1.0 / ((double) g->nx * (double) g->ny));
  cl_kernel kern = conv->scale_spectrum;
  cl_int ret;
  ClfStatus st;

  if ((st = clf_plan_enqueue (g->fwd, g->grid, g->spec, err)) != CLF_OK)
    return st;
  SET_ARG (kern, 0, g->spec, "in");
  SET_ARG (kern, 1, g->kspec, "out");
  SET_ARG (kern, 2, count, "count");
  SET_ARG (kern, 3, scale, "scale");
  for (cl_uint p = 0; p < n && st == CLF_OK; p++) {
    cl_uint table = first + p;

    SET_ARG (kern, 4, p, "plane");
    SET_ARG (kern, 5, table, "table");
    st = enqueue_1d (conv, kern, count, 1, "scaling the kernel spectrum", err);
  }
  return st;
}

/* A kernel's size and centre, as clf_kernel2d_extent gives them */
typedef struct
{
  size_t kw, kh, cx, cy;
} TapsShape;

/* Offset d of a tap, folded into [-before, after] */
static size_t
fold_index (int64_t d, size_t before, size_t after)
{
  if (d < -(int64_t) before)
    d = -(int64_t) before;
  if (d > (int64_t) after)
    d = (int64_t) after;
  return (size_t) (d + (int64_t) before);
}

/* Adds v to a folded row at each offset lo .. hi */
static void
add_run (double *row, int64_t lo, int64_t hi, size_t before, size_t after,
    double v)
{
  int64_t first = -(int64_t) before, last = (int64_t) after;

  if (lo > hi)
    return;
  if (lo <= first) {
    row[0] += v * (double) ((hi < first ? hi : first) - lo + 1);
    lo = first + 1;
  }
  if (hi >= last && hi >= lo) {
    row[before + after] += v * (double) (hi - (lo > last ? lo : last) + 1);
    hi = last - 1;
  }
  for (int64_t d = lo; d <= hi; d++)
    row[d + (int64_t) before] += v;
}

/* A 2D kernel's taps in double on the host (disk as place_disk draws it,
 * or the taps as given), folded for the group's frame: taps beyond the
 * group's reach (w columns or h rows from the centre at most) add into
 * the outermost column or row kept. The frame alone's tables sum taps
 * over single offsets within the frame's size and over ranges that end
 * within the reach or run on past the kernel's end, so the folded kernel
 * gives the same sums, and a disk of radius 100000 over a 64x48 frame
 * takes 129 x 97 values, not 200001 x 200001. Sets the folded shape;
 * NULL when out of memory. */
static double *
folded_taps (const ClfKernel2d * k, const Group * g, TapsShape * f)
{
  /* taps at dx > 0 reach past the left edge, at dx < 0 past the right */
  size_t left = g->reach.right, right = g->reach.left;
  size_t up = g->reach.bottom, down = g->reach.top;
  double *taps;
  int64_t r2 = (int64_t) floor (k->radius * k->radius);

  f->kw = left + right + 1;
  f->kh = up + down + 1;
  f->cx = left;
  f->cy = up;
  if (!(taps = calloc (f->kw * f->kh, sizeof (double))))
    return NULL;
  for (size_t j = 0; j < g->kh; j++) {
    int64_t dy = (int64_t) j - (int64_t) g->cy;
    double *row = taps + fold_index (dy, up, down) * f->kw;

    if (k->shape != CLF_KERNEL_DISK) {
      for (size_t i = 0; i < g->kw; i++)
        add_run (row, (int64_t) i - (int64_t) g->cx,
            (int64_t) i - (int64_t) g->cx, left, right,
            k->taps[j * g->kw + i]);
    } else if (r2 - dy * dy >= 0) {
      /* the disk's row: |dx| <= m, within the kernel's c */
      int64_t m = isqrt64 (r2 - dy * dy);

      add_run (row, -m, m, left, right, 1.0);
    }
  }
  if (k->shape == CLF_KERNEL_DISK) {
    double count = (double) disk_taps (r2, (int64_t) g->cy);

    for (size_t i = 0; i < f->kw * f->kh; i++)
      taps[i] /= count;
  }
  return taps;
}

/* The frame alone's kernel and edge table spectra, and its corner table
 * (clf-convolve2d-edges.h): the tables are made on the host in double,
 * uploaded into the planes of the grid and transformed there, as many at
 * once as the group has planes. */
static ClfStatus
compute_edge_spectra (ClfConvolve2d * conv, Group * g, const ClfKernel2d * k,
    ClfError * err)
{
  cl_command_queue queue = clf_context_get_queue (conv->ctx);
  TapsShape f;
  double *taps = folded_taps (k, g, &f);
  ClfEdgeSums *sums = taps ? clf_edge_sums_new (taps, f.kw, f.kh, f.cx,
      f.cy, g->width, g->height, g->nx, g->ny) : NULL;
  size_t plane_floats = g->nx * g->ny;
  size_t corner_floats = corner_bytes (g) / sizeof (float);
  float *plane = sums ? malloc ((plane_floats > corner_floats ?
          plane_floats : corner_floats) * sizeof (float)) : NULL;
  ClfStatus st = CLF_OK;
  cl_int ret = CL_SUCCESS;

  free (taps);
  if (!plane) {
    clf_edge_sums_free (sums);
    return clf_set_error (err, CLF_ERROR_OUT_OF_MEMORY,
        "out of host memory for the edge tables of a %zux%zu kernel on "
        "a %zux%zu grid", g->kw, g->kh, g->nx, g->ny);
  }
  /* as many tables a transform as the grid has planes */
  for (unsigned t = 0; t < CLF_EDGE_N_TABLES && st == CLF_OK; t++) {
    unsigned p = t % g->batch;

    clf_edge_sums_fill_table (sums, (ClfEdgeTable) t, plane);
    /* blocking: the host plane is refilled next */
    ret = clEnqueueWriteBuffer (queue, g->grid, CL_TRUE,
        p * plane_floats * sizeof (float), plane_floats * sizeof (float),
        plane, 0, NULL, NULL);
    if (ret != CL_SUCCESS)
      break;
    if (p + 1 == g->batch || t + 1 == CLF_EDGE_N_TABLES)
      st = transform_tables (conv, g, t - p, p + 1, err);
  }
  if (st == CLF_OK && ret == CL_SUCCESS) {
    memset (plane, 0, corner_floats * sizeof (float));
    clf_edge_sums_fill_corners (sums, plane);
    ret = clEnqueueWriteBuffer (queue, g->corners, CL_TRUE, 0,
        corner_floats * sizeof (float), plane, 0, NULL, NULL);
  }
  if (st == CLF_OK && ret != CL_SUCCESS)
    st = clf_set_cl_error (err, ret, "clEnqueueWriteBuffer (edge tables)");
  free (plane);
  clf_edge_sums_free (sums);
  return st;
}

ClfStatus
clf_convolve2d_compute_kernel_spectrum (ClfConvolve2d * conv, Group * g,
    const ClfKernel2d * k, ClfError * err)
{
  ClfStatus st;

  g->kspec_valid = 0;
  if (g->separable)
    st = set_separable_kernel (g, k, err);
  else if (g->alone)
    st = compute_edge_spectra (conv, g, k, err);
  else if ((st = place_kernel (conv, g, k, err)) == CLF_OK)
    st = transform_tables (conv, g, 0, 1, err);
  if (st != CLF_OK)
    return st;

  free (g->ktaps);
  g->ktaps = NULL;
  g->kshape = k->shape;
  g->kradius = k->radius;
  if (k->shape == CLF_KERNEL_TAPS) {
    g->ktaps = malloc (k->width * k->height * sizeof (float));
    if (!g->ktaps)
      return clf_set_error (err, CLF_ERROR_OUT_OF_MEMORY, "out of host memory");
    memcpy (g->ktaps, k->taps, k->width * k->height * sizeof (float));
    g->ktaps_w = k->width;
    g->ktaps_h = k->height;
  }
  g->kspec_valid = 1;
  return CLF_OK;
}

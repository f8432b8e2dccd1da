/* clf-convolve2d-private.h: a 2D convolution's channel groups, shared by clf-convolve2d.c and clf-convolve2d-kernel.c. */
#ifndef __CLF_CONVOLVE2D_PRIVATE_H__
#define __CLF_CONVOLVE2D_PRIVATE_H__

#include "clf-convolve2d.h"
#include "clf-convolve2d-edges.h"
#include "clf-convolve-lines.h"
#include "clf-private.h"

/* Channels that share a size and a kernel: one batched R2C/C2R pair, or
 * for separable kernels a row pass and a column pass over channel pairs. */
typedef struct
{
  size_t width, height;
  unsigned kernel;
  size_t kw, kh, cx, cy;        /* kernel extent and centre */
  size_t nx, ny;                /* padded grid, or line lengths */
  size_t batch;
  unsigned channels[CLF_CONVOLVE2D_MAX_CHANNELS];

  /* separable kernels (gaussian, box): rows then columns, each line
   * convolved in 1D, with the rows' results in lines between the passes */
  int separable;
  /* the axes (CLF_LINES_ROWS, CLF_LINES_COLUMNS bits) whose lines hold
   * the frame alone with the edges added through sums (clamp and zero
   * edges), the others padded with the edge extension (mirror, wrap) */
  unsigned clamped, can_clamp;
  ClfLinePass *rows, *cols;
  cl_mem lines;                 /* [pairs][width][height] complex */
  size_t line_bytes;            /* device bytes of the two passes and lines */

  ClfPlan *fwd, *inv;
  /* The frame alone on CPU devices: fwd over the frame's rows, the rest
   * taken as zeros (NULL: frames take fwd, which the kernel tables,
   * filling the grid, always take). Elsewhere the columns would spend a
   * pass of their own to read those rows as zeros. */
  ClfPlan *fwd_frame;
  cl_mem grid;                  /* [batch][ny][nx] real */
  cl_mem spec;                  /* [batch][ny][nx/2+1] complex */
  cl_mem kspec;                 /* [tables][ny][nx/2+1] complex, / (nx ny) */

  /* Other kernels: the grid holds the frame alone and zeros (clamp and
   * zero edges, where that grid is smaller than the padded frame), with
   * clamped edges added through the tables of clf-convolve2d-edges.h: the
   * kspec of each table, the edge lines (gather_edges) and their spectra,
   * the corner table. */
  int alone, can_alone;
  ClfPlan *edge_cols, *edge_rows;
  cl_mem edges, espec, corners;
  ClfEdgeReach reach;

  /* what kspec holds, to skip recomputing it */
  int kspec_valid;
  ClfKernelShape kshape;
  double kradius;
  float *ktaps;
  size_t ktaps_w, ktaps_h;
} Group;

#define MAX_SLOTS 2

struct _ClfConvolve2d
{
  ClfContext *ctx;
  cl_kernel unpack, pack, place_disk, place_taps, scale_spectrum,
      multiply_spectrum, gather_edges, multiply_edges, add_corner;

  int configured;
  ClfFrameLayout2d layout;
  size_t plane_offset[CLF_CONVOLVE2D_MAX_PLANES];
  size_t raw_bytes;
  /* The frame's planes, packed. On a GPU a host frame's upload, kernels
   * and download go to three queues, and two frame buffers let one
   * frame's copies over the bus run beside the next one's kernels. CPU
   * devices copy with the cores that compute: one buffer, one queue. */
  unsigned n_slots, slot;
  cl_mem raw[MAX_SLOTS];
  cl_event raw_free[MAX_SLOTS]; /* the last download from each */
  cl_command_queue up_queue, down_queue;        /* NULL: the context's */

  unsigned n_groups;
  Group groups[CLF_CONVOLVE2D_MAX_CHANNELS];

  size_t device_bytes;
  char description[512];
};

/* Kernel spectra a group keeps: the kernel's, and with the frame alone
 * each edge table's */
static inline size_t
kspec_tables (const Group * g)
{
  return g->alone ? CLF_EDGE_N_TABLES : 1;
}

/* The frame alone's edge lines (as gather_edges lays them out), and its
 * corner table (one float at least) */
static inline size_t
edge_lines_bytes (const Group * g)
{
  return 2 * g->batch * (g->nx + g->ny) * sizeof (cl_float2);
}

static inline size_t
corner_bytes (const Group * g)
{
  size_t n = (g->reach.top + g->reach.bottom) * (g->reach.left +
      g->reach.right);

  return (n ? n : 1) * sizeof (cl_float);
}

/* Frame samples along axis's lines where they hold the frame alone, 0
 * where they are padded */
static inline size_t
clamp_extent (const Group * g, ClfLineAxis axis)
{
  if (!(g->clamped & axis))
    return 0;
  return axis == CLF_LINES_ROWS ? g->width : g->height;
}

/* ---- launching ---------------------------------------------------------- */

#define SET_ARG(k, i, v, what) \
  if ((ret = clSetKernelArg (k, i, sizeof (v), &(v))) != CL_SUCCESS) \
    return clf_set_cl_error (err, ret, "clSetKernelArg (" what ")")

/* 16 x 16 work-groups keep rows coalesced on GPUs; the kernels bound-check
 * so the grid can be rounded up. */
static inline ClfStatus
enqueue_2d (ClfConvolve2d * conv, cl_kernel k, size_t gx, size_t gy,
    const char *what, ClfError * err)
{
  size_t side = clf_context_max_work_group (conv->ctx) < 256 ? 8 : 16;

  return clf_context_launch (conv->ctx, k, gx, gy, side, side, what, err);
}

/* rows of count work-items, 64 to a work-group */
static inline ClfStatus
enqueue_1d (ClfConvolve2d * conv, cl_kernel k, size_t count, size_t rows,
    const char *what, ClfError * err)
{
  return clf_context_launch (conv->ctx, k, count, rows, 64, 1, what, err);
}

/* ---- the kernel's taps and spectra (clf-convolve2d-kernel.c) ------------ */

/* Whether the group's spectra hold kernel k already */
int clf_convolve2d_same_kernel (const Group * g, const ClfKernel2d * k);

/* The group's kernel spectra: the line passes' for separable kernels,
 * else kspec (and the frame alone's edge tables). */
ClfStatus clf_convolve2d_compute_kernel_spectrum (ClfConvolve2d * conv,
    Group * g, const ClfKernel2d * k, ClfError * err);

#endif /* __CLF_CONVOLVE2D_PRIVATE_H__ */

/* clf-convolve2d-edges.h: the tables that let a 2D convolution with clamped edges transform the frame alone. */
#ifndef __CLF_CONVOLVE2D_EDGES_H__
#define __CLF_CONVOLVE2D_EDGES_H__

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A clamped frame of w x h samples is the frame itself plus what lies
 * outside it: four strips that repeat an edge line and four corners that
 * repeat a corner sample. Each adds a known function of that line or
 * sample to the result, so the grid needs to hold only the frame and
 * zeros (w + reach by h + reach, against w + 2 reach by h + 2 reach for
 * the padded frame):
 *
 *   out(x, y) = (k * frame)(x, y)
 *             + sum_v left(v) L(x, y - v) + sum_v right(v) R(x, y - v)
 *             + sum_u top(u) T(x - u, y) + sum_u bottom(u) B(x - u, y)
 *             + the four corner samples times C_tl(x, y) ... C_br(x, y)
 *
 * L(x, dy) sums the kernel's row dy over the taps that reach from x past
 * the left edge (dx > x), R over those past the right edge (dx <= x - w),
 * T and B likewise along columns, and each corner table the taps that
 * reach into that corner. The strips are convolutions along the edge, so
 * they run in the frequency domain: the 1D spectrum of each edge line
 * times the 2D spectrum of its table. The corners are per-pixel tables
 * added after the inverse transform. */
typedef enum
{
  CLF_EDGE_TABLE_KERNEL = 0,    /* the kernel itself, at (dx mod nx, dy mod ny) */
  CLF_EDGE_TABLE_LEFT,          /* L at (x, dy mod ny) */
  CLF_EDGE_TABLE_RIGHT,         /* R at (x, dy mod ny) */
  CLF_EDGE_TABLE_TOP,           /* T at (dx mod nx, y) */
  CLF_EDGE_TABLE_BOTTOM,        /* B at (dx mod nx, y) */
  CLF_EDGE_N_TABLES
} ClfEdgeTable;

/* Suffix sums of a kernel, for the tables of one frame size */
typedef struct _ClfEdgeSums ClfEdgeSums;

/* taps: kw * kh values, row-major; tap (i, j) at offset (i - cx, j - cy).
 * The grid is nx x ny with nx >= w + min (reach, w - 1) and likewise ny
 * (clf_convolve2d_padded_length). NULL when out of host memory. */
ClfEdgeSums *clf_edge_sums_new (const double *taps, size_t kw, size_t kh,
    size_t cx, size_t cy, size_t w, size_t h, size_t nx, size_t ny);
void clf_edge_sums_free (ClfEdgeSums * sums);

/* Writes table t into grid (nx * ny floats, row-major), zeros elsewhere. */
void clf_edge_sums_fill_table (const ClfEdgeSums * sums, ClfEdgeTable t,
    float *grid);

/* How far a kernel's taps reach past each edge of a w x h frame: columns
 * from the left edge whose taps reach past it and from the right one,
 * rows from the top and the bottom; the corner tables are their
 * products. */
typedef struct
{
  size_t left, right, top, bottom;
} ClfEdgeReach;

void clf_edge_reach (size_t kw, size_t kh, size_t cx, size_t cy, size_t w,
    size_t h, ClfEdgeReach * reach);

/* Writes the corner tables as one (top + bottom) x (left + right) table,
 * row-major: row j < top is the frame's row j, a later one row h - bottom
 * + (j - top); column i < left is the frame's column i, a later one
 * column w - right + (i - left). Where taps reach across the whole
 * frame a pixel lies in more than one corner, and each adds its part. */
void clf_edge_sums_fill_corners (const ClfEdgeSums * sums, float *out);

#ifdef __cplusplus
}
#endif
#endif /* __CLF_CONVOLVE2D_EDGES_H__ */

/* clf-convolve2d-edges.c: the tables that let a 2D convolution with clamped edges transform the frame alone. */
#include "clf-convolve2d-edges.h"

#include <stdlib.h>
#include <string.h>

struct _ClfEdgeSums
{
  size_t kw, kh, cx, cy, w, h, nx, ny;
  /* s[j * (kw + 1) + i]: the sum of taps (i', j') with i' >= i, j' >= j,
   * in double so that differences of them keep float precision */
  double *s;
};

ClfEdgeSums *
clf_edge_sums_new (const double *taps, size_t kw, size_t kh, size_t cx,
    size_t cy, size_t w, size_t h, size_t nx, size_t ny)
{
  ClfEdgeSums *sums = calloc (1, sizeof (ClfEdgeSums));
  size_t stride = kw + 1;

  if (!sums)
    return NULL;
  sums->s = calloc ((kw + 1) * (kh + 1), sizeof (double));
  if (!sums->s) {
    free (sums);
    return NULL;
  }
  sums->kw = kw;
  sums->kh = kh;
  sums->cx = cx;
  sums->cy = cy;
  sums->w = w;
  sums->h = h;
  sums->nx = nx;
  sums->ny = ny;
  /* each row's suffix sums, plus the row below's sums */
  for (size_t j = kh; j-- > 0;) {
    const double *t = taps + j * kw;
    double *row = sums->s + j * stride, *below = row + stride;
    double acc = 0.0;

    for (size_t i = kw; i-- > 0;) {
      acc += t[i];
      row[i] = acc + below[i];
    }
  }
  return sums;
}

void
clf_edge_sums_free (ClfEdgeSums * sums)
{
  if (!sums)
    return;
  free (sums->s);
  free (sums);
}

static size_t
min_size (size_t a, size_t b)
{
  return a < b ? a : b;
}

void
clf_edge_reach (size_t kw, size_t kh, size_t cx, size_t cy, size_t w,
    size_t h, ClfEdgeReach * reach)
{
  /* from column x, taps at dx > x reach past the left edge: x < kw-1-cx */
  reach->left = min_size (kw - 1 - cx, w);
  reach->right = min_size (cx, w);
  reach->top = min_size (kh - 1 - cy, h);
  reach->bottom = min_size (cy, h);
}

static void
sums_reach (const ClfEdgeSums * s, ClfEdgeReach * reach)
{
  clf_edge_reach (s->kw, s->kh, s->cx, s->cy, s->w, s->h, reach);
}

/* Position of offset d on a circular axis of n */
static size_t
wrap (long d, size_t n)
{
  return d < 0 ? (size_t) (d + (long) n) : (size_t) d;
}

/* Tap index range [first, last) whose offsets (index - c) lie within
 * (-extent, extent): only those meet a frame sample from another one */
static void
tap_range (size_t k, size_t c, size_t extent, long *first, long *last)
{
  *first = (long) c - (long) extent + 1;
  *last = (long) c + (long) extent;
  if (*first < 0)
    *first = 0;
  if (*last > (long) k)
    *last = (long) k;
}

/* The sum of the taps in columns i0 .. i1 - 1 of the rows from suffix-sum
 * row r0 up to r1 (indices inside the kernel: no bounds to check) */
static inline float
cell (const double *r0, const double *r1, long i0, long i1)
{
  return (float) (r0[i0] - r0[i1] - r1[i0] + r1[i1]);
}

void
clf_edge_sums_fill_table (const ClfEdgeSums * s, ClfEdgeTable t, float *grid)
{
  long cx = (long) s->cx, cy = (long) s->cy, w = (long) s->w, h = (long) s->h;
  long kw = (long) s->kw, nx = (long) s->nx;
  size_t stride = s->kw + 1;
  const double *top = s->s, *zero_row = s->s + s->kh * stride;
  long i0, i1, j0, j1;
  ClfEdgeReach r;

  memset (grid, 0, s->nx * s->ny * sizeof (float));
  sums_reach (s, &r);
  tap_range (s->kw, s->cx, s->w, &i0, &i1);
  tap_range (s->kh, s->cy, s->h, &j0, &j1);
  switch (t) {
    case CLF_EDGE_TABLE_KERNEL:
      /* taps left of the centre wrap to the end of the row */
      for (long j = j0; j < j1; j++) {
        const double *r0 = s->s + j * stride, *r1 = r0 + stride;
        float *row = grid + wrap (j - cy, s->ny) * s->nx;

        for (long i = i0; i < i1 && i < cx; i++)
          row[i - cx + nx] += cell (r0, r1, i, i + 1);
        for (long i = i0 > cx ? i0 : cx; i < i1; i++)
          row[i - cx] += cell (r0, r1, i, i + 1);
      }
      break;
    case CLF_EDGE_TABLE_LEFT:
    case CLF_EDGE_TABLE_RIGHT:
      for (long j = j0; j < j1; j++) {
        const double *r0 = s->s + j * stride, *r1 = r0 + stride;
        float *row = grid + wrap (j - cy, s->ny) * s->nx;

        if (t == CLF_EDGE_TABLE_LEFT)
          for (long x = 0; x < (long) r.left; x++)
            row[x] = cell (r0, r1, cx + x + 1, kw);
        else
          for (long x = w - (long) r.right; x < w; x++)
            row[x] = cell (r0, r1, 0, cx + x - w + 1);
      }
      break;
    case CLF_EDGE_TABLE_TOP:
      for (long y = 0; y < (long) r.top; y++) {
        const double *r0 = s->s + (cy + y + 1) * stride;
        float *row = grid + y * nx;

        for (long i = i0; i < i1; i++)
          row[wrap (i - cx, s->nx)] = cell (r0, zero_row, i, i + 1);
      }
      break;
    case CLF_EDGE_TABLE_BOTTOM:
      for (long y = h - (long) r.bottom; y < h; y++) {
        const double *r1 = s->s + (cy + y - h + 1) * stride;
        float *row = grid + y * nx;

        for (long i = i0; i < i1; i++)
          row[wrap (i - cx, s->nx)] = cell (top, r1, i, i + 1);
      }
      break;
    default:
      break;
  }
}

void
clf_edge_sums_fill_corners (const ClfEdgeSums * s, float *out)
{
  long cx = (long) s->cx, cy = (long) s->cy, w = (long) s->w, h = (long) s->h;
  long kw = (long) s->kw;
  size_t stride = s->kw + 1;
  const double *zero_row = s->s + s->kh * stride;
  ClfEdgeReach r;

  sums_reach (s, &r);
  /* rows above the frame (dy > y) and below it (dy <= y - h), columns
   * left of it (dx > x) and right of it (dx <= x - w) */
  for (long y = 0; y < (long) r.top + (long) r.bottom; y++) {
    int above = y < (long) r.top;
    const double *r0 = above ? s->s + (cy + y + 1) * stride : s->s;
    const double *r1 = above ? zero_row :
        s->s + (cy + (h - (long) r.bottom + y - (long) r.top) - h + 1) * stride;

    for (long x = 0; x < (long) r.left; x++)
      *out++ = cell (r0, r1, cx + x + 1, kw);
    for (long x = w - (long) r.right; x < w; x++)
      *out++ = cell (r0, r1, 0, cx + x - w + 1);
  }
}

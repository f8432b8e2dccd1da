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
  for (size_t j = kh; j-- > 0;)
    for (size_t i = kw; i-- > 0;)
      sums->s[j * stride + i] = taps[j * kw + i] + sums->s[j * stride + i +
          1] + sums->s[(j + 1) * stride + i] - sums->s[(j + 1) * stride + i +
          1];
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

static long
clamp_index (long v, size_t n)
{
  return v < 0 ? 0 : v > (long) n ? (long) n : v;
}

/* The sum of taps i in [i0, i1), j in [j0, j1), the bounds clamped to the
 * kernel */
static double
rect (const ClfEdgeSums * s, long i0, long i1, long j0, long j1)
{
  size_t stride = s->kw + 1;

  i0 = clamp_index (i0, s->kw);
  i1 = clamp_index (i1, s->kw);
  j0 = clamp_index (j0, s->kh);
  j1 = clamp_index (j1, s->kh);
  if (i0 >= i1 || j0 >= j1)
    return 0.0;
  return s->s[j0 * stride + i0] - s->s[j0 * stride + i1] -
      s->s[j1 * stride + i0] + s->s[j1 * stride + i1];
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

void
clf_edge_sums_fill_table (const ClfEdgeSums * s, ClfEdgeTable t, float *grid)
{
  long cx = (long) s->cx, cy = (long) s->cy, w = (long) s->w, h = (long) s->h;
  long i0, i1, j0, j1;
  ClfEdgeReach r;

  memset (grid, 0, s->nx * s->ny * sizeof (float));
  sums_reach (s, &r);
  tap_range (s->kw, s->cx, s->w, &i0, &i1);
  tap_range (s->kh, s->cy, s->h, &j0, &j1);
  switch (t) {
    case CLF_EDGE_TABLE_KERNEL:
      for (long j = j0; j < j1; j++)
        for (long i = i0; i < i1; i++)
          grid[wrap (j - cy, s->ny) * s->nx + wrap (i - cx, s->nx)] +=
              (float) rect (s, i, i + 1, j, j + 1);
      break;
    case CLF_EDGE_TABLE_LEFT:
      for (long j = j0; j < j1; j++)
        for (long x = 0; x < (long) r.left; x++)
          grid[wrap (j - cy, s->ny) * s->nx + x] =
              (float) rect (s, cx + x + 1, (long) s->kw, j, j + 1);
      break;
    case CLF_EDGE_TABLE_RIGHT:
      for (long j = j0; j < j1; j++)
        for (long x = w - (long) r.right; x < w; x++)
          grid[wrap (j - cy, s->ny) * s->nx + x] =
              (float) rect (s, 0, cx + x - w + 1, j, j + 1);
      break;
    case CLF_EDGE_TABLE_TOP:
      for (long y = 0; y < (long) r.top; y++)
        for (long i = i0; i < i1; i++)
          grid[y * s->nx + wrap (i - cx, s->nx)] =
              (float) rect (s, i, i + 1, cy + y + 1, (long) s->kh);
      break;
    case CLF_EDGE_TABLE_BOTTOM:
      for (long y = h - (long) r.bottom; y < h; y++)
        for (long i = i0; i < i1; i++)
          grid[y * s->nx + wrap (i - cx, s->nx)] =
              (float) rect (s, i, i + 1, 0, cy + y - h + 1);
      break;
    default:
      break;
  }
}

void
clf_edge_sums_fill_corners (const ClfEdgeSums * s, float *out)
{
  long cx = (long) s->cx, cy = (long) s->cy, w = (long) s->w, h = (long) s->h;
  long kw = (long) s->kw, kh = (long) s->kh;
  ClfEdgeReach r;

  sums_reach (s, &r);
  /* rows above the frame (dy > y) and below it (dy <= y - h), columns
   * left of it (dx > x) and right of it (dx <= x - w) */
  for (long y = 0; y < (long) r.top; y++) {
    for (long x = 0; x < (long) r.left; x++)
      *out++ = (float) rect (s, cx + x + 1, kw, cy + y + 1, kh);
    for (long x = w - (long) r.right; x < w; x++)
      *out++ = (float) rect (s, 0, cx + x - w + 1, cy + y + 1, kh);
  }
  for (long y = h - (long) r.bottom; y < h; y++) {
    for (long x = 0; x < (long) r.left; x++)
      *out++ = (float) rect (s, cx + x + 1, kw, 0, cy + y - h + 1);
    for (long x = w - (long) r.right; x < w; x++)
      *out++ = (float) rect (s, 0, cx + x - w + 1, 0, cy + y - h + 1);
  }
}

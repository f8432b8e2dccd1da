/* convolve2d.cl: pixel unpack/pack with edge padding, kernel placement and spectrum multiply for 2D convolution; the staged form of separable line convolution. */

/* line_store adds clamped edges to lines of the frame alone */
#define CLF_LINE_EDGES
#include "line-io.clh"

/* Reads one channel of a frame in the raw byte buffer (8 bits, or 16 bits
 * little endian) into plane `index` of the padded nx * ny float grids:
 * position (px, py) holds the frame sample (px - left, py - top), extended
 * by the edge mode. Samples stay in code values (0..255 or 0..65535).
 * Clamp and zero edges read the nearest frame sample, which zero drops:
 * no load under a condition, and one load for every edge mode. */
CLF_ALWAYS_INLINE void
unpack_sample (__global const uchar * raw, uint offset, uint pixel_stride,
    uint row_bytes, int width, int height, int bits16,
    __global float *grid, uint index, int nx, int ny, int left, int top,
    int edge, int px, int py)
{
  int x = px - left, y = py - top;
  __global float *plane = grid + (size_t) index * nx * ny;
  int sx, sy;
  float v;

  if (edge == EDGE_CLAMP || edge == EDGE_ZERO) {
    sx = clamp (x, 0, width - 1);
    sy = clamp (y, 0, height - 1);
  } else {
    sx = edge_index (x, width, edge);
    sy = edge_index (y, height, edge);
  }
  v = sample_read (raw + offset + (size_t) sy * row_bytes +
      (size_t) sx * pixel_stride, bits16);
  if (edge == EDGE_ZERO && (sx != x || sy != y))
    v = 0.0f;
  plane[(size_t) py * nx + px] = v;
}

/* GPUs: 16 x 16 tiles over the grid, rounded up */
__kernel void
unpack_channel (__global const uchar * raw, uint offset, uint pixel_stride,
    uint row_bytes, int width, int height, int bits16,
    __global float *grid, uint index, int nx, int ny, int left, int top,
    int edge)
{
  int px = get_global_id (0), py = get_global_id (1);

  if (px < nx && py < ny)
    unpack_sample (raw, offset, pixel_stride, row_bytes, width, height,
        bits16, grid, index, nx, ny, left, top, edge, px, py);
}

/* CPU devices: exactly nx x ny work-items, no bounds check. PoCL
 * vectorises the unpack across work-items only without one and with
 * unpack_sample inlined (3.0 ms a channel of a 4096x3136 grid on a
 * 2-core EPYC, 9.6 with it; 1.5 ms a channel of 2048x1120 on a 2-core
 * Xeon, 3.7 with it, 9.7 with the call left in place). */
__kernel void
unpack_channel_exact (__global const uchar * raw, uint offset,
    uint pixel_stride, uint row_bytes, int width, int height, int bits16,
    __global float *grid, uint index, int nx, int ny, int left, int top,
    int edge)
{
  unpack_sample (raw, offset, pixel_stride, row_bytes, width, height, bits16,
      grid, index, nx, ny, left, top, edge, get_global_id (0),
      get_global_id (1));
}

/* Writes the cropped result back over the channel's samples in the raw
 * buffer, rounded to nearest and saturated. Other bytes (padding "x"
 * bytes, other channels) are left alone. */
__kernel void
pack_channel (__global uchar * raw, uint offset, uint pixel_stride,
    uint row_bytes, int width, int height, int bits16,
    __global const float *grid, uint index, int nx, int ny, int left,
    int top)
{
  int x = get_global_id (0), y = get_global_id (1);
  __global const float *plane = grid + (size_t) index * nx * ny;

  if (x >= width || y >= height)
    return;
  sample_write (raw + offset + (size_t) y * row_bytes +
      (size_t) x * pixel_stride, bits16,
      plane[(size_t) (y + top) * nx + (x + left)]);
}

/* ---- the frame alone with clamped edges (clf-convolve2d-edges.h) ------- */

/* The edge lines of each channel's plane (the frame at the origin, zeros
 * after it) as complex lines for their 1D transforms: channel b's left
 * and right columns at lines 2b and 2b + 1 of ny, after all columns its
 * top and bottom rows at lines 2b and 2b + 1 of nx. */
__kernel void
gather_edges (__global const float *grid, int nx, int ny, int width,
    int height, uint batch, __global float2 * edges)
{
  int t = get_global_id (0), b = get_global_id (1);
  __global const float *plane = grid + (size_t) b * nx * ny;
  __global float2 *cols = edges + (size_t) 2 * b * ny;
  __global float2 *rows = edges + (size_t) 2 * batch * ny +
      (size_t) 2 * b * nx;

  if (t < height) {
    cols[t] = (float2) (plane[(size_t) t * nx], 0.0f);
    cols[ny + t] = (float2) (plane[(size_t) t * nx + width - 1], 0.0f);
  }
  if (t < width) {
    rows[t] = (float2) (plane[t], 0.0f);
    rows[nx + t] = (float2) (plane[(size_t) (height - 1) * nx + t], 0.0f);
  }
}

CLF_ALWAYS_INLINE float2
cmul (float2 a, float2 b)
{
  return (float2) (a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

/* a * b for four complex values, interleaved */
CLF_ALWAYS_INLINE float8
cmul4 (float8 a, float8 b)
{
  float4 re = a.even * b.even - a.odd * b.odd;
  float4 im = a.even * b.odd + a.odd * b.even;

  return (float8) (re.s0, im.s0, re.s1, im.s1, re.s2, im.s2, re.s3, im.s3);
}

#define LOAD4(p) vload8 (0, (__global const float *) (p))

/* Bins kx to kx + 3 of row ky of channel b (the launch's third axis): the
 * frame's spectrum times the kernel's, plus each edge line's 1D spectrum
 * (espec, laid out as gather_edges lays out the lines) times its table's
 * 2D spectrum (kspec: the five tables' spectra one after the other, in
 * the order of ClfEdgeTable). A work-group takes its bins in every
 * channel, so the tables come from memory once. Four bins a work-item in
 * float8: PoCL left the one-bin form unvectorised, at twice the time (a
 * 1080p RGBA frame's 3072x2240 grids on a 2-core EPYC: 19-24 ms against
 * 36-50). */
__kernel void
multiply_edges (__global float2 * restrict spec,
    __global const float2 * restrict kspec, uint bins_x, uint nx, uint ny,
    uint batch, __global const float2 * restrict espec)
{
  uint kx = 4 * get_global_id (0), ky = get_global_id (1);
  uint b = get_global_id (2);
  size_t count = (size_t) bins_x * ny, i = (size_t) ky * bins_x + kx;
  __global float2 *s = spec + b * count + i;
  __global const float2 *k = kspec + i;
  float2 left = espec[(size_t) 2 * b * ny + ky];
  float2 right = espec[(size_t) 2 * b * ny + ny + ky];
  __global const float2 *top = espec + (size_t) 2 * batch * ny +
      (size_t) 2 * b * nx + kx;
  __global const float2 *bottom = top + nx;

  if (kx + 4 <= bins_x) {
    float8 v = cmul4 (LOAD4 (s), LOAD4 (k)) +
        cmul4 ((float8) (left, left, left, left), LOAD4 (k + count)) +
        cmul4 ((float8) (right, right, right, right), LOAD4 (k + 2 * count)) +
        cmul4 (LOAD4 (top), LOAD4 (k + 3 * count)) +
        cmul4 (LOAD4 (bottom), LOAD4 (k + 4 * count));
    vstore8 (v, 0, (__global float *) s);
    return;
  }
  /* the last bins of the row */
  for (uint j = 0; kx + j < bins_x; j++)
    s[j] = cmul (s[j], k[j]) + cmul (left, k[count + j]) +
        cmul (right, k[2 * count + j]) + cmul (top[j], k[3 * count + j]) +
        cmul (bottom[j], k[4 * count + j]);
}

/* One corner of the frame alone with clamped edges, before pack_channel:
 * the corner sample (row 0 or height - 1 of the left or right column of
 * the gathered edge lines) times the corner table's block for that
 * corner, added to the result in every channel's plane. block = (first
 * table column, first table row, first frame column, first frame row),
 * the table's rows span apart. */
__kernel void
add_corner (__global float *grid, int nx, int ny, uint batch,
    __global const float *corners, int span, int4 block, int columns,
    __global const float2 * edges, int right, int sample_row)
{
  int i = get_global_id (0), j = get_global_id (1);
  size_t at = (size_t) (block.s3 + j) * nx + block.s2 + i;
  float t;

  if (i >= columns)
    return;
  t = corners[(size_t) (block.s1 + j) * span + block.s0 + i];
  for (uint b = 0; b < batch; b++)
    grid[b * (size_t) nx * ny + at] += t *
        edges[(size_t) (2 * b + right) * ny + sample_row].x;
}

/* Kernel tap offset d in [-before, after] lives at grid index d mod n, so
 * the convolution needs no shift. Returns the offset for grid index i, or
 * a value outside the range when i holds no tap (n > before + after). */
inline int
grid_offset (int i, int n, int after)
{
  return i <= after ? i : i - n;
}

/* The disk dx^2 + dy^2 <= r2 (r2 = floor(radius^2), exact in integers) with
 * every tap equal to weight, |dx|, |dy| <= c. */
__kernel void
place_disk (__global float *grid, int nx, int ny, int c, long r2,
    float weight)
{
  int px = get_global_id (0), py = get_global_id (1);
  int dx, dy;
  float v = 0.0f;

  if (px >= nx || py >= ny)
    return;
  dx = grid_offset (px, nx, c);
  dy = grid_offset (py, ny, c);
  if (dx >= -c && dy >= -c
      && (long) dx * dx + (long) dy * dy <= r2)
    v = weight;
  grid[(size_t) py * nx + px] = v;
}

/* A kw * kh tap array with its centre (cx, cy): tap (i, j) has offset
 * (i - cx, j - cy). */
__kernel void
place_taps (__global float *grid, int nx, int ny,
    __global const float *taps, int kw, int kh, int cx, int cy)
{
  int px = get_global_id (0), py = get_global_id (1);
  int i, j;
  float v = 0.0f;

  if (px >= nx || py >= ny)
    return;
  i = grid_offset (px, nx, kw - 1 - cx) + cx;
  j = grid_offset (py, ny, kh - 1 - cy) + cy;
  if (i >= 0 && j >= 0)
    v = taps[j * kw + i];
  grid[(size_t) py * nx + px] = v;
}

/* The kernel spectrum keeps the inverse transform's 1/(nx*ny), so the
 * per-frame path needs no separate scaling pass. With the frame alone
 * the edge tables' spectra follow it (table), several transformed at
 * once in the planes of the batch (plane). */
__kernel void
scale_spectrum (__global const float2 * in, __global float2 * out,
    uint count, float scale, uint plane, uint table)
{
  uint i = get_global_id (0);

  if (i < count)
    out[(size_t) table * count + i] = in[(size_t) plane * count + i] * scale;
}

/* Every transform of the batch times the one kernel spectrum. */
__kernel void
multiply_spectrum (__global float2 * spec, __global const float2 * kspec,
    uint count)
{
  uint i = get_global_id (0);
  __global float2 *s;

  if (i >= count)
    return;
  s = spec + (size_t) get_global_id (1) * count + i;
  *s = cmul (*s, kspec[i]);
}

/* The staged form of fft_convolve_line (fft.cl), for devices where plans
 * run faster than the fused kernel (PoCL): line b of the pass into row b
 * of buf (n wide), its first fill samples (the forward plan takes the
 * rest as zeros), and back out of it after the transforms. */
__kernel void
line_load (__global uchar * raw, __global float2 * lines, uint16 chan,
    int8 geo, __global float2 * buf, uint n, uint count, int pass, uint fill)
{
  uint j = get_global_id (0), b = get_global_id (1);

  if (j >= fill || b >= count)
    return;
  buf[(size_t) b * n + j] = pass == 1 ?
      line_load_rows (raw, lines, chan, geo, b, j) :
      line_load_columns (raw, lines, chan, geo, b, j);
}

/* Only the frame part of each line: extent elements from geo.s2 on;
 * sums: the clamp edges' taps (line_edges), when geo.s5 is set */
__kernel void
line_store (__global uchar * raw, __global float2 * lines, uint16 chan,
    int8 geo, __global const float2 * buf, uint n, uint count, int pass,
    uint extent, __global const float * sums)
{
  uint i = get_global_id (0), b = get_global_id (1), j = i + geo.s2;

  if (i >= extent || b >= count)
    return;
  if (pass == 1)
    line_store_rows (raw, lines, chan, geo, b, j, buf[(size_t) b * n + j],
        sums);
  else
    line_store_columns (raw, lines, chan, geo, b, j,
        buf[(size_t) b * n + j], sums);
}

/* line_load and line_store for CPU devices: a work-item per line and
 * its samples in a loop, with what depends on the line alone (its pair,
 * row or column, channel addresses, edge samples) computed once. PoCL
 * ran the per-sample forms above as calls of 100-150 instructions a
 * sample (a division, indexed private arrays and an emulated rounding,
 * those two since gone from line-io.clh): on a 2-core EPYC 1080p RGBA at
 * radius 4 spent 35 of its 108 ms storing the columns. */

/* The samples of pair p's two channels along one frame row (rows) or
 * column, at: sample k of channel i at at[i] + k * step[i] */
typedef struct
{
  __global uchar *at[2];
  uint step[2];
  int wide[2], two;
} PairLine;

inline PairLine
pair_line (__global uchar * raw, uint16 chan, int8 geo, uint p, int rows,
    uint at)
{
  PairLine l;

  l.two = 2 * p + 1 < (uint) geo.s4;
  for (int i = 0; i < 2; i++) {
    uint c = i && l.two ? 2 * p + 1 : 2 * p;
    l.at[i] = raw + chan_field (chan, 0, c) +
        (size_t) at * chan_field (chan, rows ? 2 : 1, c);
    l.step[i] = chan_field (chan, rows ? 1 : 2, c);
    l.wide[i] = chan_field (chan, 3, c) != 0;
  }
  return l;
}

/* The lines buffer of CPU devices is row-major: frame row y of every
 * line, count of them along a row (pair p's column x: line p * w + x),
 * at lines[y * count + line]. The row pass writes its rows into it whole
 * and the column pass transforms its columns in place (plans in column
 * order, a vector of neighbouring columns per stage), so neither pass
 * moves a sample across rows: the column-major lines of GPUs made the
 * row pass's store and the column pass's store walk the frame a line
 * per work-item at a stride of a row (1080p RGBA on a 2-core Xeon:
 * 10.3 and 8.7 ms of 73). */

/* count samples of a frame row into a line as floats: channel a's as
 * the real parts, channel b's (two) or zeros as the imaginary ones */
inline void
load_row (__global float *out, __global const uchar * a, uint step_a,
    __global const uchar * b, uint step_b, int two, int wide, uint count)
{
  const float keep = two ? 1.0f : 0.0f;

  /* sample_read with a constant depth in each loop */
  if (wide)
    for (size_t j = 0; j < count; j++) {
      out[2 * j] = sample_read (a + j * step_a, 1);
      out[2 * j + 1] = keep * sample_read (b + j * step_b, 1);
    }
  else
    for (size_t j = 0; j < count; j++) {
      out[2 * j] = sample_read (a + j * step_a, 0);
      out[2 * j + 1] = keep * sample_read (b + j * step_b, 0);
    }
}

/* row pass, pass 1: line b (b = p * h + y) of buf from frame row y of
 * pair p, a line per work-item. columns, pass 2 (padded lines, mirror or
 * wrap edges): buf row j from the lines buffer's row j - pad, extended by
 * the edge mode, a row per work-item; count is the number of column
 * lines. Only lines [range.s0, range.s0 + range.s1): a chunk of the
 * plans' (clf_plan_enqueue_pair), the row pass's work-items from its
 * first. */
__kernel void
line_load_each (__global uchar * raw, __global float2 * lines, uint16 chan,
    int8 geo, __global float2 * buf, uint n, uint count, int pass, uint fill,
    uint2 range)
{
  uint b = get_global_id (0) + (pass == 1 ? range.s0 : 0);
  int w = geo.s0, h = geo.s1;

  if (pass == 1) {
    __global float2 *out = buf + (size_t) b * n;

    if (b >= min (count, range.s0 + range.s1))
      return;
    PairLine row = pair_line (raw, chan, geo, b / h, 1, b % h);

    /* the frame alone (clamp and zero edges): sample j is frame column
     * j, read in a loop per depth that PoCL vectorises (the general loop
     * below tests the edge and both depths per sample) */
    if (geo.s2 == 0 && fill <= (uint) w &&
        (!row.two || row.wide[1] == row.wide[0])) {
      load_row ((__global float *) out, row.at[0], row.step[0],
          row.two ? row.at[1] : row.at[0], row.step[row.two], row.two,
          row.wide[0], fill);
      return;
    }
    for (uint j = 0; j < fill; j++) {
      int sx = edge_index ((int) j - geo.s2, w, geo.s3);
      float2 v = (float2) (0.0f, 0.0f);
      if (sx >= 0) {
        v.x = sample_read (row.at[0] + (size_t) sx * row.step[0],
            row.wide[0]);
        if (row.two)
          v.y = sample_read (row.at[1] + (size_t) sx * row.step[1],
              row.wide[1]);
      }
      out[j] = v;
    }
  } else {
    /* as floats: PoCL vectorises no loop over float2 */
    __global float *out = (__global float *) (buf + (size_t) b * count);
    int sy = edge_index ((int) b - geo.s2, h, geo.s3);
    __global const float *from = (__global const float *) (lines +
        (size_t) (sy >= 0 ? sy : 0) * count);

    size_t i0 = 2 * (size_t) range.s0, i1 = 2 * (size_t) min (count,
        range.s0 + range.s1);

    if (b >= fill)
      return;
    if (sy >= 0)
      for (size_t i = i0; i < i1; i++)
        out[i] = from[i];
    else
      for (size_t i = i0; i < i1; i++)
        out[i] = 0.0f;
  }
}

/* Samples [from, to) of a line, which the clamp edges' taps reach
 * (line_edges): v + first * before[i] + last * after[i], as floats */
inline void
store_edges (__global float *out, __global const float *in, size_t from,
    size_t to, float2 first, float2 last, __global const float *before,
    __global const float *after)
{
  for (size_t i = from; i < to; i++) {
    out[2 * i] = in[2 * i] + first.x * before[i] + last.x * after[i];
    out[2 * i + 1] = in[2 * i + 1] + first.y * before[i] + last.y * after[i];
  }
}

/* Samples of pair p of frame row y into the frame, from v (as floats);
 * 8 or 16 bits chosen outside the loop, which a select per sample would
 * make PoCL store both ways */
inline void
store_row (__global uchar * at, uint step, int wide, __global const float *v,
    uint w)
{
  /* sample_write with a constant depth in each loop */
  if (wide)
    for (uint x = 0; x < w; x++)
      sample_write (at + (size_t) x * step, 1, v[2 * x]);
  else
    for (uint x = 0; x < w; x++)
      sample_write (at + (size_t) x * step, 0, v[2 * x]);
}

/* row pass, pass 1: line b's frame part into the lines buffer's row y,
 * a line per work-item. columns, pass 2: frame row y (< extent) from
 * buf's row y + pad, a row per work-item, every pair. With geo.s5 the
 * clamp edges' taps add the end samples within reach of either end.
 * Only lines [range.s0, range.s0 + range.s1), as line_load_each. */
__kernel void
line_store_each (__global uchar * raw, __global float2 * lines, uint16 chan,
    int8 geo, __global float2 * buf, uint n, uint count, int pass,
    uint extent, __global const float * sums, uint2 range)
{
  uint b = get_global_id (0) + (pass == 1 ? range.s0 : 0);
  uint end = min (count, range.s0 + range.s1);
  int w = geo.s0, h = geo.s1, reach = geo.s5 ? geo.s6 : 0;

  if (pass == 1) {
    uint p = b / h, y = b % h, pairs = count / h;
    __global const float *in = (__global const float *) (buf +
        (size_t) b * n + geo.s2);
    __global float *out = (__global float *) (lines +
        ((size_t) y * pairs + p) * w);
    /* [0, e0) and [e1, w) within reach of an end */
    size_t e0 = min (reach, w), e1 = max ((int) e0, w - reach);

    if (b >= end)
      return;
    for (size_t i = 2 * e0; i < 2 * e1; i++)
      out[i] = in[i];
    if (reach) {
      float2 first = line_load_rows (raw, lines, chan, geo, b, geo.s2);
      float2 last = line_load_rows (raw, lines, chan, geo, b,
          geo.s2 + w - 1);

      store_edges (out, in, 0, e0, first, last, sums, sums + w);
      store_edges (out, in, e1, w, first, last, sums, sums + w);
    }
  } else {
    uint y = b, lines_per_row = count;
    __global float *row = (__global float *) (buf +
        (size_t) (y + geo.s2) * lines_per_row);

    if (y >= extent)
      return;
    if (reach && ((int) y < reach || (int) y >= h - reach)) {
      /* the edge terms, in place (buf's row is this work-item's alone):
       * each column's first and last frame samples, as the row pass left
       * them, times this row's sums */
      const float before = sums[y], after = sums[h + y];
      __global const float *first = (__global const float *) lines;
      __global const float *last = (__global const float *) (lines +
          (size_t) (h - 1) * lines_per_row);

      for (size_t i = 2 * (size_t) range.s0; i < 2 * (size_t) end; i++)
        row[i] += first[i] * before + last[i] * after;
    }
    /* each pair's columns within the range */
    for (uint p = 0; 2 * p < (uint) geo.s4; p++) {
      uint c0 = max (range.s0, p * w), c1 = min (end, (p + 1) * w);
      /* the first of them as a frame column */
      uint x0 = c0 - p * w;
      PairLine r;
      __global const float *v = row + 2 * (size_t) c0;

      if (c0 >= c1)
        continue;
      r = pair_line (raw, chan, geo, p, 1, y);
      store_row (r.at[0] + (size_t) x0 * r.step[0], r.step[0], r.wide[0], v,
          c1 - c0);
      if (r.two)
        store_row (r.at[1] + (size_t) x0 * r.step[1], r.step[1], r.wide[1],
            v + 1, c1 - c0);
    }
  }
}

/* convolve2d.cl: pixel unpack/pack with edge padding, kernel placement and spectrum multiply for 2D convolution. */

/* Edge modes, mirrored in ocl/clf-convolve2d.h (ClfEdgeMode) */
#define EDGE_CLAMP  0
#define EDGE_MIRROR 1
#define EDGE_WRAP   2
#define EDGE_ZERO   3

/* Maps a coordinate outside [0, n) back inside for the edge mode; -1 means
 * "zero". Mirror and wrap are periodic so that a kernel wider than the
 * frame still sees a well-defined extension. */
inline int
edge_index (int i, int n, int mode)
{
  if (i >= 0 && i < n)
    return i;
  if (mode == EDGE_CLAMP)
    return clamp (i, 0, n - 1);
  if (mode == EDGE_WRAP) {
    int r = i % n;
    return r < 0 ? r + n : r;
  }
  if (mode == EDGE_MIRROR) {
    /* whole-sample symmetric: ... c b | a b c d | c b a ..., period 2(n-1) */
    int p = 2 * (n - 1), r;
    if (p == 0)
      return 0;
    r = i % p;
    if (r < 0)
      r += p;
    return r < n ? r : p - r;
  }
  return -1;
}

/* Reads one channel of a frame in the raw byte buffer (8 bits, or 16 bits
 * little endian) into plane `index` of the padded nx * ny float grids:
 * position (px, py) holds the frame sample (px - left, py - top), extended
 * by the edge mode. Samples stay in code values (0..255 or 0..65535). */
__kernel void
unpack_channel (__global const uchar * raw, uint offset, uint pixel_stride,
    uint row_bytes, int width, int height, int bits16,
    __global float *grid, uint index, int nx, int ny, int left, int top,
    int edge)
{
  int px = get_global_id (0), py = get_global_id (1);
  __global float *plane = grid + (size_t) index * nx * ny;
  int sx, sy;
  float v = 0.0f;

  if (px >= nx || py >= ny)
    return;
  sx = edge_index (px - left, width, edge);
  sy = edge_index (py - top, height, edge);
  if (sx >= 0 && sy >= 0) {
    __global const uchar *p = raw + offset + (size_t) sy * row_bytes +
        (size_t) sx * pixel_stride;
    v = bits16 ? (float) (p[0] | (p[1] << 8)) : (float) p[0];
  }
  plane[(size_t) py * nx + px] = v;
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
  float v;
  __global uchar *p;

  if (x >= width || y >= height)
    return;
  v = plane[(size_t) (y + top) * nx + (x + left)];
  p = raw + offset + (size_t) y * row_bytes + (size_t) x * pixel_stride;
  if (bits16) {
    ushort u = convert_ushort_sat_rte (v);
    p[0] = (uchar) (u & 0xff);
    p[1] = (uchar) (u >> 8);
  } else {
    p[0] = convert_uchar_sat_rte (v);
  }
}

/* Kernel tap offset d in [-before, after] lives at grid index d mod n, so
 * the convolution needs no shift. Returns the offset for grid index i, or
 * a value outside the range when i holds no tap (n > before + after). */
inline int
grid_offset (int i, int n, int after)
{
  return i <= after ? i : i - n;
}

/* A separable kernel profile[dx + c] * profile[dy + c] for |dx|, |dy| <= c
 * (gaussian and box), placed around the origin of an nx * ny grid. */
__kernel void
place_separable (__global float *grid, int nx, int ny,
    __global const float *profile, int c)
{
  int px = get_global_id (0), py = get_global_id (1);
  int dx, dy;
  float v = 0.0f;

  if (px >= nx || py >= ny)
    return;
  dx = grid_offset (px, nx, c);
  dy = grid_offset (py, ny, c);
  if (dx >= -c && dy >= -c)
    v = profile[dx + c] * profile[dy + c];
  grid[(size_t) py * nx + px] = v;
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
 * per-frame path needs no separate scaling pass. */
__kernel void
scale_spectrum (__global const float2 * in, __global float2 * out,
    uint count, float scale)
{
  uint i = get_global_id (0);

  if (i < count)
    out[i] = in[i] * scale;
}

/* Every transform of the batch times the one kernel spectrum. */
__kernel void
multiply_spectrum (__global float2 * spec, __global const float2 * kspec,
    uint count)
{
  uint i = get_global_id (0);
  __global float2 *s;
  float2 a, k;

  if (i >= count)
    return;
  s = spec + (size_t) get_global_id (1) * count + i;
  a = *s;
  k = kspec[i];
  *s = (float2) (a.x * k.x - a.y * k.y, a.x * k.y + a.y * k.x);
}

/* convolve1d.cl: frequency-domain multiply-accumulate of uniformly partitioned overlap-save convolution. */

/* Two real channels travel in one complex FFT of n = 2B points (channel a
 * in the real part, b in the imaginary part): half the transforms of one
 * real FFT per channel. This kernel separates the two spectra, keeps them
 * in the delay line, multiplies-accumulates them against the response's
 * partition spectra, and packs the two results back into one complex
 * spectrum whose inverse FFT has y_a in the real and y_b in the imaginary
 * part.
 *
 * Spectra are interleaved re,im floats; a half spectrum line holds nbp
 * bins (the B+1 meaningful ones, padded to a multiple of 4 so that one work
 * item handles 4 bins with 32-byte loads: explicit SIMD on CPU devices,
 * wide loads on GPUs).
 *
 * fresh: [pairs][n]               FFT of the newest windows, two channels each
 * ring:  [parts][channels][nbp]   delay line of half spectra; slot head
 *                                 receives the newest, slot head-p the one of
 *                                 p blocks ago
 * spec:  [parts][ir_lines][nbp]   response partition spectra, ir_lines 1
 *                                 (shared) or channels
 * packed:[pairs][n]               sum over p of ring[head-p] * spec[p],
 *                                 repacked for the inverse FFT
 *
 * One launch per block covers every channel and partition; each work item
 * reads and writes only its own bins (and their mirrors n-k), so no
 * synchronisation is needed. */

/* Z = A + iB for real signals a, b: A[k] = (Z[k] + conj Z[n-k]) / 2,
 * B[k] = (Z[k] - conj Z[n-k]) / 2i. */
inline void
split_pair (float2 z, float2 zm, float2 * a, float2 * b)
{
  *a = (float2) (0.5f * (z.x + zm.x), 0.5f * (z.y - zm.y));
  *b = (float2) (0.5f * (z.y + zm.y), 0.5f * (zm.x - z.x));
}

/* re + i im += x * h for 4 complex bins (interleaved in float8) */
inline void
cmac4 (float8 x, float8 h, float4 * re, float4 * im)
{
  *re = mad (x.even, h.even, *re);
  *re = mad (-x.odd, h.odd, *re);
  *im = mad (x.even, h.odd, *im);
  *im = mad (x.odd, h.even, *im);
}

/* Output spectra of channels a and b of a pair, 4 bins */
typedef struct
{
  float4 ra, ia, rb, ib;
} Acc;

/* Partitions slice, slice + slices, ... of the sum for bins 4q .. 4q+3 of
 * one pair. Slice 0 also splits the newest spectra into the delay line and
 * takes partition 0 from them (that slot is not read by other slices). */
inline Acc
accumulate (__global const float2 * fresh, __global float *ring,
    __global const float *spec, uint n, uint nbp, uint channels,
    uint ir_lines, uint parts, uint head, uint q, uint pair, uint slice,
    uint slices)
{
  const uint ca = 2 * pair;
  const int has_b = ca + 1 < channels;
  /* offsets in float8 units (4 complex bins) */
  const size_t slot_stride = ((size_t) channels * nbp) / 4;
  const size_t line_a = ((size_t) ca * nbp) / 4 + q;
  const size_t line_b = has_b ? line_a + nbp / 4 : line_a;
  const size_t ir_stride = ((size_t) ir_lines * nbp) / 4;
  const size_t ir_a = ir_lines == 1 ? q : line_a;
  const size_t ir_b = ir_lines == 1 ? q : line_b;
  Acc acc;
  float8 va, vb, h;
  uint p = slice;

  acc.ra = acc.ia = acc.rb = acc.ib = (float4) (0.0f);
  if (slice == 0) {
    __global const float2 *z = fresh + (size_t) pair * n;
    float xa[8], xb[8];

    for (uint j = 0; j < 4; j++) {
      uint k = 4 * q + j;
      float2 a = (float2) (0.0f), b = (float2) (0.0f);
      if (k <= n / 2)
        split_pair (z[k], z[k == 0 ? 0 : n - k], &a, &b);
      xa[2 * j] = a.x;
      xa[2 * j + 1] = a.y;
      xb[2 * j] = b.x;
      xb[2 * j + 1] = b.y;
    }
    va = vload8 (0, xa);
    vb = vload8 (0, xb);
    vstore8 (va, head * slot_stride + line_a, ring);
    h = vload8 (ir_a, spec);
    cmac4 (va, h, &acc.ra, &acc.ia);
    if (has_b) {
      vstore8 (vb, head * slot_stride + line_b, ring);
      if (ir_lines != 1)
        h = vload8 (ir_b, spec);
      cmac4 (vb, h, &acc.rb, &acc.ib);
    }
    p = slices;
  }

  for (; p < parts; p += slices) {
    uint slot = head >= p ? head - p : head + parts - p;
    h = vload8 (p * ir_stride + ir_a, spec);
    va = vload8 (slot * slot_stride + line_a, ring);
    cmac4 (va, h, &acc.ra, &acc.ia);
    if (has_b) {
      if (ir_lines != 1)
        h = vload8 (p * ir_stride + ir_b, spec);
      vb = vload8 (slot * slot_stride + line_b, ring);
      cmac4 (vb, h, &acc.rb, &acc.ib);
    }
  }
  return acc;
}

/* W = Ya + i Yb, both Hermitian: W[k] = Ya[k] + i Yb[k] and
 * W[n-k] = conj Ya[k] + i conj Yb[k] */
inline void
store_packed (__global float2 * packed, uint n, uint q, uint pair, Acc acc)
{
  float ya_re[4], ya_im[4], yb_re[4], yb_im[4];
  __global float2 *w = packed + (size_t) pair * n;

  vstore4 (acc.ra, 0, ya_re);
  vstore4 (acc.ia, 0, ya_im);
  vstore4 (acc.rb, 0, yb_re);
  vstore4 (acc.ib, 0, yb_im);
  for (uint j = 0; j < 4; j++) {
    uint k = 4 * q + j;
    if (k > n / 2)
      break;
    w[k] = (float2) (ya_re[j] - yb_im[j], ya_im[j] + yb_re[j]);
    if (k != 0 && k != n / 2)
      w[n - k] = (float2) (ya_re[j] + yb_im[j], yb_re[j] - ya_im[j]);
  }
}

/* One work item per 4 bins of a pair, all partitions in turn: the shape
 * for CPU devices, where work items of a group become SIMD lanes and the
 * delay line streams through the cache once. global (nbp/4, pairs). */
__kernel void
convolve1d_mac (__global const float2 * fresh, __global float *ring,
    __global const float *spec, __global float2 * packed, const uint n,
    const uint nbp, const uint channels, const uint ir_lines,
    const uint parts, const uint head)
{
  const uint q = get_global_id (0);
  const uint pair = get_global_id (1);

  if (q >= nbp / 4 || 2 * pair >= channels)
    return;
  store_packed (packed, n, q, pair, accumulate (fresh, ring, spec, n, nbp,
          channels, ir_lines, parts, head, q, pair, 0, 1));
}

/* The same sum split over the get_local_size(0) work items of a group,
 * reduced in local memory: with small blocks and long responses a GPU
 * would otherwise run a few hundred work items through thousands of
 * partitions each. global (slices, nbp/4, pairs), local (slices, 1, 1),
 * slices a power of two; scratch holds 4 float4 per slice. */
__kernel void
convolve1d_mac_split (__global const float2 * fresh, __global float *ring,
    __global const float *spec, __global float2 * packed, const uint n,
    const uint nbp, const uint channels, const uint ir_lines,
    const uint parts, const uint head, __local float4 * scratch)
{
  const uint s = get_local_id (0), slices = get_local_size (0);
  const uint q = get_global_id (1);
  const uint pair = get_global_id (2);
  const int active = q < nbp / 4 && 2 * pair < channels;
  Acc acc;

  acc.ra = acc.ia = acc.rb = acc.ib = (float4) (0.0f);
  if (active)
    acc = accumulate (fresh, ring, spec, n, nbp, channels, ir_lines, parts,
        head, q, pair, s, slices);
  scratch[4 * s] = acc.ra;
  scratch[4 * s + 1] = acc.ia;
  scratch[4 * s + 2] = acc.rb;
  scratch[4 * s + 3] = acc.ib;
  barrier (CLK_LOCAL_MEM_FENCE);
  for (uint stride = slices / 2; stride > 0; stride /= 2) {
    if (s < stride)
      for (uint j = 0; j < 4; j++)
        scratch[4 * s + j] += scratch[4 * (s + stride) + j];
    barrier (CLK_LOCAL_MEM_FENCE);
  }
  if (active && s == 0) {
    acc.ra = scratch[0];
    acc.ia = scratch[1];
    acc.rb = scratch[2];
    acc.ib = scratch[3];
    store_packed (packed, n, q, pair, acc);
  }
}

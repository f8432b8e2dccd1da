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

__kernel void
convolve1d_mac (__global const float2 * fresh, __global float *ring,
    __global const float *spec, __global float2 * packed, const uint n,
    const uint nbp, const uint channels, const uint ir_lines,
    const uint parts, const uint head)
{
  const uint q = get_global_id (0);     /* group of 4 bins */
  const uint pair = get_global_id (1);
  const uint nhalf = n / 2;
  const uint ca = 2 * pair, cb = 2 * pair + 1;
  const int has_b = cb < channels;

  if (q >= nbp / 4 || ca >= channels)
    return;

  /* offsets in float8 units (4 complex bins) */
  const size_t slot_stride = ((size_t) channels * nbp) / 4;
  const size_t line_a = ((size_t) ca * nbp) / 4 + q;
  const size_t line_b = has_b ? line_a + nbp / 4 : line_a;
  const size_t ir_stride = ((size_t) ir_lines * nbp) / 4;
  const size_t ir_a = ir_lines == 1 ? q : line_a;
  const size_t ir_b = ir_lines == 1 ? q : line_b;
  __global const float2 *z = fresh + (size_t) pair * n;

  /* the newest spectra, split per channel, into the delay line */
  float xa[8], xb[8];
  for (uint j = 0; j < 4; j++) {
    uint k = 4 * q + j;
    float2 a = (float2) (0.0f), b = (float2) (0.0f);
    if (k <= nhalf)
      split_pair (z[k], z[k == 0 ? 0 : n - k], &a, &b);
    xa[2 * j] = a.x;
    xa[2 * j + 1] = a.y;
    xb[2 * j] = b.x;
    xb[2 * j + 1] = b.y;
  }
  float8 va = vload8 (0, xa), vb = vload8 (0, xb);
  vstore8 (va, head * slot_stride + line_a, ring);
  if (has_b)
    vstore8 (vb, head * slot_stride + line_b, ring);

  float8 h = vload8 (ir_a, spec);
  float4 ra = va.even * h.even - va.odd * h.odd;
  float4 ia = va.even * h.odd + va.odd * h.even;
  if (ir_lines != 1)
    h = vload8 (ir_b, spec);
  float4 rb = vb.even * h.even - vb.odd * h.odd;
  float4 ib = vb.even * h.odd + vb.odd * h.even;

  uint slot = head;
  for (uint p = 1; p < parts; p++) {
    slot = (slot == 0 ? parts : slot) - 1;
    h = vload8 (p * ir_stride + ir_a, spec);
    va = vload8 (slot * slot_stride + line_a, ring);
    ra = mad (va.even, h.even, ra);
    ra = mad (-va.odd, h.odd, ra);
    ia = mad (va.even, h.odd, ia);
    ia = mad (va.odd, h.even, ia);
    if (has_b) {
      if (ir_lines != 1)
        h = vload8 (p * ir_stride + ir_b, spec);
      vb = vload8 (slot * slot_stride + line_b, ring);
      rb = mad (vb.even, h.even, rb);
      rb = mad (-vb.odd, h.odd, rb);
      ib = mad (vb.even, h.odd, ib);
      ib = mad (vb.odd, h.even, ib);
    }
  }
  if (!has_b)
    rb = ib = (float4) (0.0f);

  /* W = Ya + i Yb, both Hermitian: W[k] = Ya[k] + i Yb[k] and
   * W[n-k] = conj Ya[k] + i conj Yb[k] */
  float ya_re[4], ya_im[4], yb_re[4], yb_im[4];
  vstore4 (ra, 0, ya_re);
  vstore4 (ia, 0, ya_im);
  vstore4 (rb, 0, yb_re);
  vstore4 (ib, 0, yb_im);
  __global float2 *w = packed + (size_t) pair * n;
  for (uint j = 0; j < 4; j++) {
    uint k = 4 * q + j;
    if (k > nhalf)
      break;
    w[k] = (float2) (ya_re[j] - yb_im[j], ya_im[j] + yb_re[j]);
    if (k != 0 && k != nhalf)
      w[n - k] = (float2) (ya_re[j] + yb_im[j], yb_re[j] - ya_im[j]);
  }
}

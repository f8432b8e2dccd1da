/* fft_real.cl: a real transform of even length n as a complex one of
 * length m = n/2 (the CPU path, ocl/clf-plan-cpu.c), half the butterflies
 * of a complex transform of the real samples.
 *
 * The samples taken in pairs, z[j] = x[2j] + i x[2j+1], have the spectrum
 * Z = E + iO, where E and O are the spectra of the even and the odd
 * samples. Both are spectra of real sequences, so with w = exp(-2 pi i/n)
 *   X[k] = E[k] + w^k O[k],  E[k] = (Z[k] + conj Z[m-k]) / 2,
 *                            O[k] = (Z[k] - conj Z[m-k]) / 2i
 * (indices mod m): real_split. Backwards, the forward transform y of a
 * half spectrum U (the real output of C2R, which conjugates nothing but
 * its input) is the transform z of
 *   Z[k] = A[k] + i B[k],  A[k] = U[k] + conj U[m-k],
 *                          B[k] = w^k (U[k] - conj U[m-k]),
 * read as y[2j] + i y[2j+1]: real_merge.
 *
 * Addressing as in fft_cpu.cl (cpu-addr.clh), in complex values. The
 * transforms of a launch are those of one chunk, from transform base.s1
 * on: get_global_id (1) is the transform's row in the chunk-sized
 * scratch buffer (base, as in fft_cpu.cl). tw holds w^j for j = 0..m/2, the
 * pairs' first bins. UNIT_STRIDE: the spectrum's values are adjacent
 * (s1 = 1), a constant that lets PoCL load and store them as vectors. */

#include "inline.clh"
#include "cpu-addr.clh"

#ifdef UNIT_STRIDE
#define SPECTRUM_STRIDE(a) 1u
#else
#define SPECTRUM_STRIDE(a) (a).s1
#endif

/* Work-item j takes the pair of bins j and m - j, j = 0..m/2, from Z[j]
 * and Z[m - j] and one twiddle: with E and D = (Z[j] - conj Z[m-j]) / 2
 * for bin j, bin m - j has conj E and -conj D, and w^(m-j) = -conj w^j.
 * Z is in rows of m + 1 values (the last one unused): the loads of every
 * work-item stay in its row, and j = 0 (bins 0 and m, both from Z[0])
 * chooses among loaded values, not addresses, so that PoCL keeps the
 * loads vectors. X times scale, its imaginary parts times sign_out. */
__kernel void
real_split (__global const float *restrict src, __global float *restrict dst,
    clf_addr out, uint m, __global const float *restrict tw, float scale,
    float sign_out, uint2 base)
{
  /* j as size_t and bin m - j through a pointer that steps down: in uint
   * arithmetic, which may wrap, the vectoriser gathered those loads */
  const size_t j = get_global_id (0);
  const uint row = get_global_id (1);
  const uint b = row + base.s1;
  const size_t s = 2 * (size_t) SPECTRUM_STRIDE (out);
  __global const float *z = src + 2 * (size_t) row * (m + 1);
  __global const float *zj = z + 2 * j, *zmj = z + 2 * (size_t) m - 2 * j;
  __global float *x = dst + 2 * ((size_t) out.s0 + batch_offset (out,
          b));
  __global float *xj = x + j * s, *xmj = x + (size_t) m * s - j * s;
  float ar = zj[0], ai = zj[1], br = zmj[0], bi = zmj[1];
  float wr = tw[2 * j], wi = tw[2 * j + 1];
  float er, ei, dr, di, tr, ti, si = sign_out * scale;

  br = j == 0 ? ar : br;
  bi = j == 0 ? ai : bi;
  /* E = (a + conj b) / 2, D = (a - conj b) / 2, t = w^j D:
   * X[j] = E - i t, X[m - j] = conj E - i conj t */
  er = 0.5f * (ar + br);
  ei = 0.5f * (ai - bi);
  dr = 0.5f * (ar - br);
  di = 0.5f * (ai + bi);
  tr = dr * wr - di * wi;
  ti = dr * wi + di * wr;
  /* imaginary parts through fma, real ones through a product: not an
   * isomorphic pair for clang's SLP vectoriser (see ldc in fft_cpu.cl) */
  xj[0] = scale * (er + ti);
  xj[1] = fma (ei - tr, si, 0.0f);
  xmj[0] = scale * (er - ti);
  xmj[1] = fma (-ei - tr, si, 0.0f);
}

/* The half spectrum U = X (its imaginary parts times sign_in; those of
 * X[0] and X[m] are left out, as a real output drops them) into Z in rows
 * of m + 1 values, work-item j writing Z[j] and Z[m - j] (j = 0 writes
 * the unused last value): with A and B those of bin j, bin m - j has
 * conj A and conj B. */
__kernel void
real_merge (__global const float *restrict src, __global float *restrict dst,
    clf_addr in, uint m, __global const float *restrict tw, float sign_in,
    uint2 base)
{
  const size_t j = get_global_id (0);
  const uint row = get_global_id (1);
  const uint b = row + base.s1;
  const size_t s = 2 * (size_t) SPECTRUM_STRIDE (in);
  __global const float *x = src + 2 * ((size_t) in.s0 +
      batch_offset (in, b));
  __global const float *xj = x + j * s, *xmj = x + (size_t) m * s - j * s;
  __global float *z = dst + 2 * (size_t) row * (m + 1);
  __global float *zj = z + 2 * j, *zmj = z + 2 * (size_t) m - 2 * j;
  float ur = xj[0], ui = sign_in * xj[1];
  float vr = xmj[0], vi = sign_in * xmj[1];
  float wr = tw[2 * j], wi = tw[2 * j + 1];
  float ar, ai, br, bi, dr, di;

  ui = j == 0 ? 0.0f : ui;
  vi = j == 0 ? 0.0f : vi;
  /* A = u + conj v, B = w^j (u - conj v): Z[j] = A + iB,
   * Z[m - j] = conj A + i conj B */
  ar = ur + vr;
  ai = ui - vi;
  dr = ur - vr;
  di = ui + vi;
  br = dr * wr - di * wi;
  bi = dr * wi + di * wr;
  zj[0] = ar - bi;
  zj[1] = fma (ai + br, 1.0f, 0.0f);
  zmj[0] = ar + bi;
  zmj[1] = fma (br - ai, 1.0f, 0.0f);
}

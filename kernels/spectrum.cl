/* spectrum.cl: clfftspectrum kernels: audio windows and band levels, video spectrum images. */

#include "inline.clh"

/* ------------------------------------------------------------------------
 * Audio
 *
 * The host converts samples to float (as GstSpectrum does) into a stream
 * of interleaved frames that starts with the nfft frames before the chunk,
 * and lists the FFTs the interval logic asks for as "events": offsets[e]
 * is the first frame of event e's window. One chunk is one batched R2C
 * transform of events * channels windows.
 * ---------------------------------------------------------------------- */

/* out[(e * channels + c) * nfft + i] = stream[offsets[e] + i][c] * w[i] */
__kernel void
spectrum_window (__global const float *stream, __global const uint *offsets,
    __global const float *window, __global float *out, const uint nfft,
    const uint channels, const uint nffts)
{
  const uint i = get_global_id (0);
  const uint j = get_global_id (1);

  if (i >= nfft || j >= nffts)
    return;

  /* mono, channels mixed as by default: loads in a row (the strided ones
   * below gathered on PoCL, 13 against 3-5 us for two 2046-point windows) */
  if (channels == 1) {
    out[(size_t) j * nfft + i] = stream[(size_t) offsets[j] + i] * window[i];
    return;
  }

  const uint e = j / channels;
  const uint c = j - e * channels;
  const size_t frame = (size_t) offsets[e] + i;

  out[(size_t) j * nfft + i] = stream[frame * channels + c] * window[i];
}

/* 10 log10 (x) for a normal float x, in arithmetic alone: PoCL's log10
 * took as long as the FFT, and its native_log2 still most of
 * spectrum_accumulate's time under perf (bands=1024). x = m 2^e with m
 * in [sqrt(1/2), sqrt(2)), ln m = 2 atanh (s) with s = (m - 1) / (m + 1),
 * |s| < 0.172: the series to s^9 leaves 4e-10, far below float rounding
 * (about 1e-6 dB). */
inline float
level_db (const float x)
{
  const int bits = as_int (x);
  float m = as_float ((bits & 0x007fffff) | 0x3f800000);
  int e = ((bits >> 23) & 0xff) - 127;
  const int high = m > 1.41421356f;

  m = high ? 0.5f * m : m;
  e += high;
  const float s = (m - 1.0f) / (m + 1.0f), s2 = s * s;
  const float ln_m = 2.0f * s * (1.0f + s2 * (1.0f / 3.0f + s2 * (1.0f / 5.0f
              + s2 * (1.0f / 7.0f + s2 * (1.0f / 9.0f)))));
  return 3.01029995664f * (float) e + 4.34294481903f * ln_m;
}

/* 10 log10 (x) for any x >= 0: level_db, with subnormal powers scaled
 * into the normal range first (exactly, by 2^24), and zero, infinity and
 * NaN as log10 gives them. No call to log10: a call keeps PoCL from
 * vectorising the loops around it. */
inline float
power_db (const float x)
{
  const int tiny = x < FLT_MIN;
  const float db = level_db (tiny ? x * 16777216.0f : x) -
      (tiny ? 72.2471989594f : 0.0f);

  /* (bit tests: isnan and isinf are calls too) */
  return x == 0.0f ? -INFINITY :
      (as_uint (x) & 0x7fffffffu) >= 0x7f800000u ? x : db;
}

/* Per band and channel, the sums over each segment of events (the FFTs
 * between two messages) of the level in dB, clamped to threshold, and of
 * the phase: GstSpectrum accumulates exactly these per FFT and divides by
 * the FFT count when it posts.
 *
 * A band's power is sum_t weight[t] * |X[bin[t]]|^2 over
 * t in [band_first[b], band_first[b + 1]); the linear scale (flags & 4)
 * is bin b for band b, read directly; the log scale spreads bins over
 * bands. phase_bin[b] is the bin whose phase the band reports.
 *
 * Each work item sums run consecutive bands: on a CPU device a run of
 * linear bands is an inner loop without branches that PoCL vectorises
 * (one band per work item ran scalar, as the loop over events enclosed
 * it); a GPU takes runs of one, its work items reading adjacent bins.
 *
 * spec: [events * channels][nbins] float2, seg_first: [nseg + 1] from
 * index[seg_at] (after the events' offsets, uploaded with them),
 * sums: [nseg * channels][bands]. flags: 1 = magnitude, 2 = phase,
 * 4 = linear bands. */
__kernel void
spectrum_accumulate (__global const float2 *spec, const uint nbins,
    __global const uint *index, const uint nseg, const uint channels,
    const uint bands, __global const uint *band_first,
    __global const uint *band_bin, __global const float *band_weight,
    __global const uint *phase_bin, const float inv_n2,
    const float threshold, const uint flags, __global float *mag_sum,
    __global float *phase_sum, const uint seg_at, const uint run)
{
  __global const uint *seg_first = index + seg_at;
  const uint b0 = get_global_id (0) * run;
  const uint sc = get_global_id (1);

  if (b0 >= bands || sc >= nseg * channels)
    return;

  const uint s = sc / channels;
  const uint c = sc - s * channels;
  const uint b1 = min (b0 + run, bands);
  __global float *m = mag_sum + (size_t) sc * bands;
  __global float *p = phase_sum + (size_t) sc * bands;

  for (uint b = b0; b < b1; b++)
    m[b] = p[b] = 0.0f;

  for (uint e = seg_first[s]; e < seg_first[s + 1]; e++) {
    __global const float2 *x = spec + ((size_t) e * channels + c) * nbins;
    /* bins as floats: the vectoriser takes no float2 loads */
    __global const float *xs = (__global const float *) x;

    /* (flags in the loop conditions would hide the trip count from the
     * vectoriser) */
    if ((flags & 5) == 5) {
      for (uint b = b0; b < b1; b++) {
        const float re = xs[2 * b], im = xs[2 * b + 1];
        /* log10 (0) = -inf, clamped like any level below the threshold */
        const float db = power_db ((re * re + im * im) * inv_n2);
        m[b] += db < threshold ? threshold : db;
      }
    } else if (flags & 1) {
      for (uint b = b0; b < b1; b++) {
        const uint t1 = band_first[b + 1];
        float power = 0.0f;

        for (uint t = band_first[b]; t < t1; t++) {
          const float2 v = x[band_bin[t]];
          power = mad (band_weight[t], v.x * v.x + v.y * v.y, power);
        }
        const float db = power_db (power * inv_n2);
        m[b] += db < threshold ? threshold : db;
      }
    }
    if (flags & 2) {
      for (uint b = b0; b < b1; b++) {
        const float2 v = x[phase_bin[b]];
        p[b] += atan2 (v.y, v.x);
      }
    }
  }
}

/* ------------------------------------------------------------------------
 * Video
 * ---------------------------------------------------------------------- */

/* Luma of pixel (x, y) as float in [0, 1]. mode 0: one 8-bit component at
 * byte off0, 1: one 16-bit little-endian component, 2: k0 R + k1 G + k2 B
 * of 8-bit components at bytes off0..2. dst is the FFT input: packed
 * real, or complex with a zero imaginary part. */
__kernel void
spectrum_video_luma (__global const uchar *src, const uint src_stride,
    const uint mode, const uint pstride, const uint off0, const uint off1,
    const uint off2, const float k0, const float k1, const float k2,
    const uint width, const uint height, __global float *dst,
    const uint dst_complex)
{
  const uint x = get_global_id (0);
  const uint y = get_global_id (1);

  if (x >= width || y >= height)
    return;

  __global const uchar *px = src + (size_t) y * src_stride + x * pstride;
  float v;

  if (mode == 0)
    v = px[off0] * (1.0f / 255.0f);
  else if (mode == 1)
    v = (px[off0] | (px[off0 + 1] << 8)) * (1.0f / 65535.0f);
  else
    v = (k0 * px[off0] + k1 * px[off1] + k2 * px[off2]) * (1.0f / 255.0f);

  const size_t i = (size_t) y * width + x;
  if (dst_complex)
    vstore2 ((float2) (v, 0.0f), i, dst);
  else
    dst[i] = v;
}

/* spectrum_video_luma of pixels of four bytes into packed real, on CPU
 * devices: each pixel read as a little-endian word (base and src_stride
 * are multiples of 4; off0..2 are the components' bytes in the pixel), its
 * components taken out by shifts, the mode chosen by selects. The general
 * kernel's choice of mode made PoCL gather every byte of every mode (an
 * RGBA 1080p frame: 2.8-3.2 ms on a 2-core Xeon, 0.8 ms so). Launched on
 * exactly width x height work-items. */
__kernel void
spectrum_video_luma_words (__global const uchar *src, const uint base,
    const uint src_stride, const uint mode, const uint off0, const uint off1,
    const uint off2, const float k0, const float k1, const float k2,
    const uint width, __global float *dst)
{
  const size_t x = get_global_id (0), y = get_global_id (1);
  const uint p = ((__global const uint *) (src + base + y * src_stride))[x];
  const uint c0 = p >> (8 * off0);
  const float rgb = k0 * (c0 & 0xff) + k1 * ((p >> (8 * off1)) & 0xff) +
      k2 * ((p >> (8 * off2)) & 0xff);

  dst[y * width + x] = mode == 0 ? (c0 & 0xff) * (1.0f / 255.0f) :
      mode == 1 ? (c0 & 0xffff) * (1.0f / 65535.0f) : rgb * (1.0f / 255.0f);
}

/* The bin that output coordinate i of n shows, DC at n / 2: (i - n / 2)
 * mod n, without a division (PoCL's took most of spectrum_video_map's
 * time) */
inline uint
centred_bin (const uint i, const uint n)
{
  const uint k = i + n - n / 2;

  return k >= n ? k - n : k;
}

/* |X|^2 of bin i of a spectrum, read as two floats: PoCL vectorises no
 * work-item loop with a float2 load */
CLF_ALWAYS_INLINE float
power_at (__global const float2 * spec, size_t i)
{
  const float re = ((__global const float *) spec)[2 * i];
  const float im = ((__global const float *) spec)[2 * i + 1];

  return re * re + im * im;
}

/* |X[kx, ky]|^2 of the full spectrum; a half (R2C) spectrum holds
 * kx <= width / 2 and the rest follows from |X[-k]| = |X[k]|. (Selects
 * in place of the branches ran spectrum_video_map 1.4x slower on PoCL.) */
inline float
bin_power (__global const float2 * spec, uint kx, uint ky, uint width,
    uint height, uint is_half)
{
  const uint row = width / 2 + 1;

  if (!is_half)
    return power_at (spec, (size_t) ky * width + kx);
  if (kx < row)
    return power_at (spec, (size_t) ky * row + kx);
  return power_at (spec, (size_t) (ky ? height - ky : 0) * row + (width - kx));
}

/* The largest |X|^2 of the frame, into *peak as the bits of a
 * non-negative float: their order as uint is their order as float. Each
 * work-group (a power of two, at most 256 work-items) reduces its
 * strided share in local memory and makes one atomic: 4096 work-items
 * with an atomic each left a GPU mostly idle (1080p: 54 us of an H200's
 * ~180 us frame). */
__kernel void
spectrum_video_peak (__global const float2 *spec, const uint count,
    __global uint *peak)
{
  __local float best[256];
  const uint l = get_local_id (0), group = get_local_size (0);
  float m = 0.0f;

  for (uint i = get_global_id (0); i < count; i += get_global_size (0)) {
    const float2 v = spec[i];
    m = fmax (m, v.x * v.x + v.y * v.y);
  }
  best[l] = m;
  for (uint step = group / 2; step > 0; step /= 2) {
    barrier (CLK_LOCAL_MEM_FENCE);
    if (l < step)
      best[l] = fmax (best[l], best[l + step]);
  }
  if (l == 0)
    atomic_max (peak, as_uint (best[0]));
}

/* spectrum_video_peak on CPU devices: work-item i takes the chunk bins
 * from i chunk in a row, and keeps the largest power as its bits, whose
 * maximum LLVM vectorises (NaN, which fmax passes over, counts as 0) */
__kernel void
spectrum_video_peak_rows (__global const float2 *spec, const uint count,
    const uint chunk, __global uint *peak)
{
  const size_t start = get_global_id (0) * (size_t) chunk;
  const size_t end = min ((size_t) count, start + chunk);
  uint m = 0;

  for (size_t i = start; i < end; i++) {
    const float p = power_at (spec, i);

    m = max (m, p == p ? as_uint (p) : 0u);
  }
  atomic_max (peak, m);
}

/* Writes pixel (x, y) of the spectrum image for power |X|^2: black at
 * threshold dB, white at the frame's peak (as the bits of a float in
 * *peak). Rows of the output start dst_stride bytes apart from byte
 * dst_offset. peak is restrict so that its level is worked out once.
 * word_store (a constant per kernel) writes 16-bit pixels as one ushort,
 * for even dst_offset and dst_stride: PoCL vectorises that store, where
 * it stored the two bytes lane by lane (even for 8-bit output: 1.6 against
 * 1.0 ms for half a 1080p frame on a 2-core Xeon). */
CLF_ALWAYS_INLINE void
map_pixel (float power, __global const uint * restrict peak,
    const float inv_n2, const float threshold, __global uchar * dst,
    const uint bpp, const uint dst_offset, const uint dst_stride, size_t x,
    size_t y, const int word_store)
{
  const float peak_db = power_db (as_float (*peak) * inv_n2);
  const float range = peak_db - threshold;
  float level = 0.0f;

  if (range > 0.0f) {
    const float db = power_db (power * inv_n2);
    level = clamp ((db - threshold) / range, 0.0f, 1.0f);
  }

  __global uchar *row = dst + dst_offset + y * dst_stride;
  if (bpp == 2) {
    const uint q = (uint) (level * 65535.0f + 0.5f);

    if (word_store) {
      *(__global ushort *) (row + 2 * x) = (ushort) q;
    } else {
      row[2 * x] = q & 0xff;
      row[2 * x + 1] = q >> 8;
    }
  } else {
    row[x] = (uchar) (level * 255.0f + 0.5f);
  }
}

/* Output pixel (x, y) shows bin ((x - width / 2) mod width,
 * (y - height / 2) mod height): DC at the centre, as numpy's fftshift.
 * Launched with exactly width x height work-items and no bounds check:
 * PoCL (2-core EPYC) mapped a 1080p frame in 5.8 ms, 8.9 with a bounds
 * check, 33 with log10 for power_db. */
__kernel void
spectrum_video_map (__global const float2 *spec, const uint width,
    const uint height, const uint is_half, __global const uint * restrict peak,
    const float inv_n2, const float threshold, __global uchar *dst,
    const uint bpp, const uint dst_offset, const uint dst_stride)
{
  const uint x = get_global_id (0);
  const uint y = get_global_id (1);

  map_pixel (bin_power (spec, centred_bin (x, width), centred_bin (y, height),
          width, height, is_half), peak, inv_n2, threshold, dst, bpp,
      dst_offset, dst_stride, x, y, 0);
}

/* spectrum_video_map of a half spectrum on CPU devices, in two launches
 * whose bins each run in a row, which PoCL loads as vectors: the general
 * kernel's choice between a bin and its mirror gathered every load (a
 * 1080p frame: 5.0-6.3 ms on a 2-core Xeon against 1.1-1.3 for half of
 * it in a row). They write 16-bit pixels as words, so take an even
 * dst_offset and dst_stride. _right takes x from width / 2 (its global
 * offset) on, bins kx = x - width / 2 of row ky. */
__kernel void
spectrum_video_map_right (__global const float2 *spec, const uint width,
    const uint height, const uint is_half,
    __global const uint * restrict peak, const float inv_n2,
    const float threshold, __global uchar *dst, const uint bpp,
    const uint dst_offset, const uint dst_stride)
{
  const size_t x = get_global_id (0), y = get_global_id (1);
  const size_t i = (size_t) centred_bin ((uint) y, height) *
      (width / 2 + 1) + (x - width / 2);

  map_pixel (power_at (spec, i), peak, inv_n2, threshold, dst, bpp,
      dst_offset, dst_stride, x, y, 1);
}

/* _left takes x below width / 2, bins kx = x + width - width / 2, read
 * as their mirrors (|X[-k]| = |X[k]|): row (height - ky) mod height,
 * column width - kx = width / 2 - x, which falls as x grows */
__kernel void
spectrum_video_map_left (__global const float2 *spec, const uint width,
    const uint height, const uint is_half,
    __global const uint * restrict peak, const float inv_n2,
    const float threshold, __global uchar *dst, const uint bpp,
    const uint dst_offset, const uint dst_stride)
{
  const size_t x = get_global_id (0), y = get_global_id (1);
  const uint ky = centred_bin ((uint) y, height);
  const size_t i = (size_t) (ky ? height - ky : 0) * (width / 2 + 1) +
      (width / 2 - x);

  map_pixel (power_at (spec, i), peak, inv_n2, threshold, dst, bpp,
      dst_offset, dst_stride, x, y, 1);
}

/* float atomic add through compare-and-swap (OpenCL 1.2 has none) */
static void
atomic_add_float (volatile __global float *p, float v)
{
  volatile __global uint *u = (volatile __global uint *) p;
  uint old = *u, prev;

  do {
    prev = old;
    old = atomic_cmpxchg (u, prev, as_uint (as_float (prev) + v));
  } while (old != prev);
}

/* The radial average. Band b is centred on radius b / (2 (bands - 1))
 * cycles per pixel, so the last band is at Nyquist; corners beyond it are
 * left out. A pixel's band depends on its distance from DC in columns u
 * and rows v alone and grows with both, so rows height / 2 +- v and both
 * halves of each share their runs of equal band, whose ends come from a
 * few tests of the band function, and the bins of a run are summed in a
 * row without a test per pixel. Two kernels split the work two ways. */

/* Band of the bin k / n cycles per pixel along one axis and k2 / n2 along
 * the other, for scale = 2 (bands - 1). Uncontracted, so that both axes'
 * forms of a bin give the same band. */
CLF_ALWAYS_INLINE uint
radial_band (const uint k, const float n, const uint k2, const float n2,
    const float scale)
{
#pragma OPENCL FP_CONTRACT OFF
  const float f = (float) k / n, f2 = (float) k2 / n2;

  return (uint) (sqrt (f * f + f2 * f2) * scale + 0.5f);
}

/* The first k in [0, end] whose band is at least b (bands grow with k):
 * an estimate from the band's inner radius, corrected by the test itself */
CLF_ALWAYS_INLINE uint
radial_first (const uint b, const uint end, const float n, const uint k2,
    const float n2, const float scale)
{
  if (b == 0)
    return 0;

  const float t = ((float) b - 0.5f) / scale, f2 = (float) k2 / n2;
  uint k = (uint) fmin (ceil (sqrt (fmax (t * t - f2 * f2, 0.0f)) * n),
      (float) end);

  while (k > 0 && radial_band (k - 1, n, k2, n2, scale) >= b)
    k--;
  while (k < end && radial_band (k, n, k2, n2, scale) < b)
    k++;
  return k;
}

/* Sum of |X|^2 over count bins from start; four sums so that the adds
 * need not wait on each other */
CLF_ALWAYS_INLINE float
run_power (__global const float2 *spec, const size_t start, const uint count)
{
  float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
  uint i = 0;

  for (; i + 4 <= count; i += 4) {
    s0 += power_at (spec, start + i);
    s1 += power_at (spec, start + i + 1);
    s2 += power_at (spec, start + i + 2);
    s3 += power_at (spec, start + i + 3);
  }
  for (; i < count; i++)
    s0 += power_at (spec, start + i);
  return (s0 + s1) + (s2 + s3);
}

/* The power of band b in row ky, whose bins u columns from DC (u in
 * [u0, u1)) have that band: the right half's bins are u, the left half's
 * -u, which a half spectrum holds as the mirror row's u. */
CLF_ALWAYS_INLINE float
radial_row_power (__global const float2 *spec, const uint width,
    const uint height, const uint is_half, const uint ky, const uint u0,
    const uint u1, uint * count)
{
  const uint right_end = min (u1, width - width / 2);
  const uint left_start = max (u0, 1u);
  const size_t row = is_half ? width / 2 + 1 : width;
  float sum = 0.0f;

  if (u0 < right_end) {
    sum += run_power (spec, ky * row + u0, right_end - u0);
    *count += right_end - u0;
  }
  if (left_start < u1) {
    const size_t start = is_half ? (ky ? height - ky : 0) * row + left_start :
        ky * row + (width - (u1 - 1));

    sum += run_power (spec, start, u1 - left_start);
    *count += u1 - left_start;
  }
  return sum;
}

/* The same over rows height / 2 + v and height / 2 - v (bins v and -v),
 * which share their runs */
CLF_ALWAYS_INLINE float
radial_pair_power (__global const float2 *spec, const uint width,
    const uint height, const uint is_half, const uint v, const uint u0,
    const uint u1, uint * count)
{
  float sum = 0.0f;

  if (v < height - height / 2)
    sum += radial_row_power (spec, width, height, is_half, v, u0, u1, count);
  if (v >= 1)
    sum += radial_row_power (spec, width, height, is_half, height - v, u0,
        u1, count);
  return sum;
}

/* Radially averaged power, for fewer bands than about twice the width
 * (the work grows with bands times rows): work-item (b, j) sums band b
 * over every slices-th of the rows it reaches, with one atomic add at the
 * end. The rows where band b lies (v in [v0, v1)) and each row's run of
 * it (u in [u0, u1)) come from a few tests of the band function. (As
 * (j, b), neighbouring work-items on rows of one band, it took an H200
 * 4.6 times as long.) */
__kernel void
spectrum_video_radial_bands (__global const float2 *spec, const uint width,
    const uint height, const uint is_half, const float inv_n2, const uint bands,
    const uint slices, volatile __global float *sums,
    volatile __global uint *counts)
{
  const uint b = get_global_id (0), j = get_global_id (1);

  if (b >= bands || j >= slices)
    return;

  const float scale = 2.0f * (float) (bands - 1);
  const float w = (float) width, h = (float) height;
  /* distances from DC: u in [0, u_end) columns, v in [0, v_end) rows */
  const uint u_end = width / 2 + 1, v_end = height / 2 + 1;
  /* rows whose farthest bin (u = width / 2) reaches band b, up to those
   * whose nearest one (u = 0) is already beyond it */
  const uint v0 = radial_first (b, v_end, h, u_end - 1, w, scale);
  const uint v1 = radial_first (b + 1, v_end, h, 0, w, scale);
  float sum = 0.0f;
  uint count = 0;

  for (uint v = v0 + j; v < v1; v += slices) {
    const uint u0 = radial_first (b, u_end, w, v, h, scale);
    const uint u1 = radial_first (b + 1, u_end, w, v, h, scale);

    if (u0 < u1)
      sum += radial_pair_power (spec, width, height, is_half, v, u0, u1,
          &count);
  }
  if (count) {
    atomic_add_float (&sums[b], sum * inv_n2);
    atomic_add (&counts[b], count);
  }
}

/* Radially averaged power, for more bands (the work grows with the runs,
 * at most the pixels, but takes an atomic add per run): work-item j walks
 * rows height / 2 +- v for v = j, j + slices, ... from DC outwards in
 * runs of equal band. */
__kernel void
spectrum_video_radial_rows (__global const float2 *spec, const uint width,
    const uint height, const uint is_half, const float inv_n2, const uint bands,
    const uint slices, volatile __global float *sums,
    volatile __global uint *counts)
{
  const float scale = 2.0f * (float) (bands - 1);
  const float w = (float) width, h = (float) height;
  /* distances from DC: u in [0, u_end) columns, v in [0, v_end) rows */
  const uint u_end = width / 2 + 1, v_end = height / 2 + 1;

  for (uint v = get_global_id (0); v < v_end; v += slices) {
    uint u = 0;

    while (u < u_end) {
      const uint b = radial_band (u, w, v, h, scale);

      if (b >= bands)
        break;

      const uint u1 = radial_first (b + 1, u_end, w, v, h, scale);
      uint count = 0;
      const float sum = radial_pair_power (spec, width, height, is_half, v,
          u, u1, &count);

      if (count) {
        atomic_add_float (&sums[b], sum * inv_n2);
        atomic_add (&counts[b], count);
      }
      u = u1;
    }
  }
}

/* Mean power of each radius band in dB, clamped to threshold (also for
 * bands no pixel falls in). */
__kernel void
spectrum_video_radial_db (__global const float *sums,
    __global const uint *counts, const uint bands, const float threshold,
    __global float *out)
{
  const uint b = get_global_id (0);

  if (b >= bands)
    return;

  float db = threshold;
  if (counts[b]) {
    db = 10.0f * log10 (sums[b] / (float) counts[b]);
    if (!(db >= threshold))
      db = threshold;
  }
  out[b] = db;
}

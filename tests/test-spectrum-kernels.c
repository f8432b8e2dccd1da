/* test-spectrum-kernels.c: clfftspectrum's band sums (spectrum_accumulate)
 * against double precision, over the whole range of float powers, and
 * the video mode's radial sums (spectrum_video_radial_bands and _rows)
 * against a sum over every pixel in double. */
#include "core-harness.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/* One launch: events x channels spectra of bands linear bands (band b
 * is bin b), summed as one segment */
typedef struct
{
  size_t events, channels, bands;
  unsigned run;                 /* bands per work item */
  float threshold;
  int with_phase;
} Case;

static uint32_t
next_random (uint32_t * state)
{
  *state = *state * 1664525u + 1013904223u;
  return *state;
}

/* Bin b of event e, channel c: mostly +-2^k with k spanning float's
 * range, whose power and level are known exactly (powers from 2^-148,
 * subnormal, up to overflow), and zeros, infinities, NaNs and random
 * values of any sign and size. */
static void
make_bin (size_t e, size_t c, size_t b, uint32_t * state, float *re, float *im)
{
  uint32_t r = next_random (state);
  int kind = (int) ((e * 7 + c * 3 + b) % 16);

  if (kind == 0) {
    *re = 0.0f;
    *im = 0.0f;
  } else if (kind == 1) {
    *re = INFINITY;
    *im = 1.0f;
  } else if (kind == 2 && b % 5 == 0) {
    *re = NAN;
    *im = 0.0f;
  } else if (kind < 10) {
    /* |X|^2 = 2^(2k) times inv_n2 = 2^-20: levels of 2^-149 to 2^127 */
    int k = (int) (r % 146) - 64;
    *re = ldexpf ((r & 1) ? 1.0f : -1.0f, k);
    *im = 0.0f;
  } else {
    *re = ldexpf ((float) (r % 20001) / 10000.0f - 1.0f, (int) (r % 60) - 30);
    *im = ldexpf ((float) (next_random (state) % 20001) / 10000.0f - 1.0f,
        (int) (r % 60) - 30);
  }
}

/* Level in dB of a power computed in float as the kernel does, and how
 * far the kernel may be from it: the power's rounding (3 ulp, and more in
 * the subnormal range, where float holds fewer bits) and the level's
 * (float arithmetic on a value up to ~450 dB, 8 ulp of it). */
static double
level_of (float re, float im, float inv_n2, double *tolerance)
{
  float power = (re * re + im * im) * inv_n2;
  double p = power, bound;

  if (isnan (p) || p == 0.0 || isinf (p)) {
    *tolerance = 0.0;
    return p == 0.0 ? -INFINITY : p;
  }
  /* relative error of the power: 3 roundings, or an absolute 2^-149
   * each where it is subnormal */
  bound = 3.0 * FLT_EPSILON + 3.0 * ldexp (1.0, -149) / p;
  *tolerance = 10.0 / log (10.0) * bound + 8.0 * FLT_EPSILON * fabs (10.0 *
      log10 (p)) + 1e-6;
  return 10.0 * log10 (p);
}

static void
run_case (const Case * t)
{
  ClfContext *ctx = harness_context ();
  ClfError err = { CLF_OK, "" };
  cl_kernel k = clf_context_create_kernel (ctx, "spectrum",
      "spectrum_accumulate", &err);
  size_t nbins = t->bands, nseg = 1, sums = t->channels * t->bands;
  size_t spec_floats = 2 * t->events * t->channels * nbins;
  float *spec = malloc (spec_floats * sizeof (float));
  float *mag = malloc (sums * sizeof (float));
  float *phase = malloc (sums * sizeof (float));
  double *want_mag = calloc (sums, sizeof (double));
  double *want_phase = calloc (sums, sizeof (double));
  double *tol = calloc (sums, sizeof (double));
  cl_uint *first = malloc ((t->bands + 1) * sizeof (cl_uint));
  cl_uint *bin = malloc (t->bands * sizeof (cl_uint));
  float *weight = malloc (t->bands * sizeof (float));
  const float inv_n2 = ldexpf (1.0f, -20);
  uint32_t state = (uint32_t) (t->bands * 31 + t->events);
  /* no event offsets are read: seg_first = {0, events} at seg_at 0 */
  const cl_uint index[2] = { 0, (cl_uint) t->events };
  size_t bad = 0, worst_i = 0;
  double worst = 0.0;

  CHECK (k != NULL, "spectrum_accumulate: %s", err.message);
  if (!k)
    goto out;

  /* linear bands: band b is bin b (the tables are there for the log
   * scale; flags 4 tells the kernel to read bin b directly) */
  for (size_t b = 0; b < t->bands; b++) {
    first[b] = (cl_uint) b;
    bin[b] = (cl_uint) b;
    weight[b] = 1.0f;
  }
  first[t->bands] = (cl_uint) t->bands;

  for (size_t e = 0; e < t->events; e++)
    for (size_t c = 0; c < t->channels; c++)
      for (size_t b = 0; b < nbins; b++) {
        size_t at = 2 * ((e * t->channels + c) * nbins + b);
        size_t s = c * t->bands + b;
        double tl, db;

        make_bin (e, c, b, &state, &spec[at], &spec[at + 1]);
        db = level_of (spec[at], spec[at + 1], inv_n2, &tl);
        /* as spectrum: clamped to the threshold (-inf too, NaN not) */
        want_mag[s] += db < t->threshold ? t->threshold : db;
        tol[s] += tl;
        want_phase[s] += atan2 (spec[at + 1], spec[at]);
      }

  {
    cl_mem d_spec = harness_buffer (spec_floats * sizeof (float), spec);
    cl_mem d_index = harness_buffer (sizeof (index), index);
    cl_mem d_first = harness_buffer ((t->bands + 1) * sizeof (cl_uint),
        first);
    cl_mem d_bin = harness_buffer (t->bands * sizeof (cl_uint), bin);
    cl_mem d_weight = harness_buffer (t->bands * sizeof (float), weight);
    cl_mem d_mag = harness_buffer (sums * sizeof (float), NULL);
    cl_mem d_phase = harness_buffer (sums * sizeof (float), NULL);
    cl_uint a_nbins = (cl_uint) nbins, a_nseg = (cl_uint) nseg;
    cl_uint a_channels = (cl_uint) t->channels, a_bands = (cl_uint) t->bands;
    cl_uint flags = 1 | 4 | (t->with_phase ? 2 : 0), seg_at = 0;
    cl_uint run = t->run;
    float thr = t->threshold;
    size_t gs[2] = { (t->bands + run - 1) / run, nseg * t->channels };
    cl_int st = CL_SUCCESS;
    int i = 0;

    st |= clSetKernelArg (k, i++, sizeof (cl_mem), &d_spec);
    st |= clSetKernelArg (k, i++, sizeof (cl_uint), &a_nbins);
    st |= clSetKernelArg (k, i++, sizeof (cl_mem), &d_index);
    st |= clSetKernelArg (k, i++, sizeof (cl_uint), &a_nseg);
    st |= clSetKernelArg (k, i++, sizeof (cl_uint), &a_channels);
    st |= clSetKernelArg (k, i++, sizeof (cl_uint), &a_bands);
    st |= clSetKernelArg (k, i++, sizeof (cl_mem), &d_first);
    st |= clSetKernelArg (k, i++, sizeof (cl_mem), &d_bin);
    st |= clSetKernelArg (k, i++, sizeof (cl_mem), &d_weight);
    st |= clSetKernelArg (k, i++, sizeof (cl_mem), &d_bin);     /* phase bins */
    st |= clSetKernelArg (k, i++, sizeof (float), &inv_n2);
    st |= clSetKernelArg (k, i++, sizeof (float), &thr);
    st |= clSetKernelArg (k, i++, sizeof (cl_uint), &flags);
    st |= clSetKernelArg (k, i++, sizeof (cl_mem), &d_mag);
    st |= clSetKernelArg (k, i++, sizeof (cl_mem), &d_phase);
    st |= clSetKernelArg (k, i++, sizeof (cl_uint), &seg_at);
    st |= clSetKernelArg (k, i++, sizeof (cl_uint), &run);
    if (st == CL_SUCCESS)
      st = clEnqueueNDRangeKernel (clf_context_get_queue (ctx), k, 2, NULL,
          gs, NULL, 0, NULL, NULL);
    CHECK (st == CL_SUCCESS, "launching spectrum_accumulate: %d", st);
    harness_read (d_mag, sums * sizeof (float), mag);
    harness_read (d_phase, sums * sizeof (float), phase);
    clReleaseMemObject (d_spec);
    clReleaseMemObject (d_index);
    clReleaseMemObject (d_first);
    clReleaseMemObject (d_bin);
    clReleaseMemObject (d_weight);
    clReleaseMemObject (d_mag);
    clReleaseMemObject (d_phase);
  }

  for (size_t s = 0; s < sums; s++) {
    double want = want_mag[s], got = mag[s], miss;

    if (isnan (want) || isinf (want)) {
      /* NaN stays NaN; +inf stays +inf */
      if (!(isnan (want) ? isnan (got) : got == want))
        bad++;
      continue;
    }
    /* each event's level rounds to float on the way into the sum */
    miss = fabs (got - want);
    if (miss > tol[s] + (double) t->events * FLT_EPSILON * fabs (want)) {
      if (miss > worst) {
        worst = miss;
        worst_i = s;
      }
      bad++;
    }
    if (t->with_phase && !isnan (want_phase[s]) &&
        fabs (phase[s] - want_phase[s]) > 4.0 * t->events * FLT_EPSILON *
        M_PI + 1e-6)
      bad++;
  }
  CHECK (bad == 0, "%zu events, %zu channel(s), %zu bands, runs of %u: %zu "
      "sums off, worst %.3g dB at %zu (%.9g, want %.9g)", t->events,
      t->channels, t->bands, t->run, bad, worst, worst_i, mag[worst_i],
      want_mag[worst_i]);

out:
  if (k)
    clReleaseKernel (k);
  free (spec);
  free (mag);
  free (phase);
  free (want_mag);
  free (want_phase);
  free (tol);
  free (first);
  free (bin);
  free (weight);
}

/* Runs of one band (GPUs), of 64 (CPU devices) and of an odd length,
 * whose last run is partial */
static void
test_linear_levels (void)
{
  static const Case cases[] = {
    {3, 1, 1024, 64, -1000.0f, 0},
    {3, 1, 1024, 1, -1000.0f, 0},
    {2, 2, 1000, 7, -1000.0f, 1},
    {5, 1, 129, 64, -1000.0f, 1},
  };

  for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++)
    run_case (&cases[i]);
}

/* Levels below the threshold, -inf among them, read as the threshold */
static void
test_threshold (void)
{
  static const Case cases[] = {
    {4, 1, 300, 64, -60.0f, 0},
    {4, 2, 300, 1, 0.0f, 0},
  };

  for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++)
    run_case (&cases[i]);
}

/* One radial launch: a width x height spectrum, half (R2C) or full, into
 * bands radius bands by one of the two kernels */
typedef struct
{
  unsigned width, height, bands;
  int is_half;
  const char *kernel;
  unsigned slices;
} RadialCase;

static unsigned
centred (unsigned i, unsigned n)
{
  return (i + n - n / 2) % n;
}

static void
run_radial_case (const RadialCase * t)
{
  ClfContext *ctx = harness_context ();
  ClfError err = { CLF_OK, "" };
  cl_kernel k = clf_context_create_kernel (ctx, "spectrum", t->kernel, &err);
  const unsigned w = t->width, h = t->height, bands = t->bands;
  const size_t row = t->is_half ? w / 2 + 1 : w, nbins = row * h;
  float *spec = malloc (2 * nbins * sizeof (float));
  float *sums = malloc (bands * sizeof (float));
  cl_uint *counts = malloc (bands * sizeof (cl_uint));
  double *want = calloc (bands, sizeof (double));
  unsigned *want_count = calloc (bands, sizeof (unsigned));
  char *unsure = calloc (bands + 1, 1);
  const float inv_n2 = (float) (1.0 / ((double) w * h * (double) w * h));
  uint32_t state = w * 131u + h * 7u + bands;
  size_t bad = 0, compared = 0;

  CHECK (k != NULL, "%s: %s", t->kernel, err.message);
  if (!k)
    goto out;

  /* random bins of powers over six decades; a half spectrum's columns 0
   * and width / 2 (even widths) hold both bins k and -k, which a real
   * frame's spectrum makes conjugates, so the kernels may read either */
  for (size_t i = 0; i < 2 * nbins; i++)
    spec[i] = ldexpf ((float) (next_random (&state) % 20001) / 10000.0f -
        1.0f, (int) (next_random (&state) % 20) - 10);
  if (t->is_half)
    for (unsigned ky = 1; ky < h; ky++)
      for (unsigned kx = 0; kx < row; kx += (w % 2 == 0 ? w / 2 : row)) {
        const size_t a = 2 * ((size_t) ky * row + kx);
        const size_t m = 2 * ((size_t) (h - ky) * row + kx);

        spec[a] = spec[m];
        spec[a + 1] = -spec[m + 1];
        if (w / 2 == 0)
          break;
      }

  /* every pixel's band in double, as the reference of the element test */
  for (unsigned y = 0; y < h; y++)
    for (unsigned x = 0; x < w; x++) {
      const double fx = ((double) x - w / 2) / w, fy = ((double) y - h / 2) / h;
      const double r = sqrt (fx * fx + fy * fy) * 2.0 * (bands - 1) + 0.5;
      const unsigned b = (unsigned) floor (r), e = (unsigned) floor (r + 0.5);
      unsigned kx = centred (x, w), ky = centred (y, h);
      size_t at;
      double re, im;

      if (fabs (r - e) < 1e-4) {
        /* on a band edge: float may put it either side */
        if (e <= bands)
          unsure[e] = 1;
        if (e > 0 && e - 1 < bands)
          unsure[e - 1] = 1;
      }
      if (b >= bands)
        continue;
      if (t->is_half && kx >= row) {
        kx = w - kx;
        ky = ky ? h - ky : 0;
      }
      at = 2 * ((size_t) ky * row + kx);
      re = spec[at];
      im = spec[at + 1];
      want[b] += (re * re + im * im) * inv_n2;
      want_count[b]++;
    }

  {
    cl_mem d_spec = harness_buffer (2 * nbins * sizeof (float), spec);
    cl_mem d_sums = harness_buffer (bands * sizeof (float), NULL);
    cl_mem d_counts = harness_buffer (bands * sizeof (cl_uint), NULL);
    cl_command_queue q = clf_context_get_queue (ctx);
    const cl_uint zero = 0, half = t->is_half, slices = t->slices;
    const int by_band = strcmp (t->kernel, "spectrum_video_radial_bands") == 0;
    size_t gs[2] = { by_band ? bands : slices, slices };
    cl_int st;
    int i = 0;

    st = clEnqueueFillBuffer (q, d_sums, &zero, sizeof (zero), 0,
        bands * sizeof (float), 0, NULL, NULL);
    st |= clEnqueueFillBuffer (q, d_counts, &zero, sizeof (zero), 0,
        bands * sizeof (cl_uint), 0, NULL, NULL);
    st |= clSetKernelArg (k, i++, sizeof (cl_mem), &d_spec);
    st |= clSetKernelArg (k, i++, sizeof (cl_uint), &w);
    st |= clSetKernelArg (k, i++, sizeof (cl_uint), &h);
    st |= clSetKernelArg (k, i++, sizeof (cl_uint), &half);
    st |= clSetKernelArg (k, i++, sizeof (float), &inv_n2);
    st |= clSetKernelArg (k, i++, sizeof (cl_uint), &bands);
    st |= clSetKernelArg (k, i++, sizeof (cl_uint), &slices);
    st |= clSetKernelArg (k, i++, sizeof (cl_mem), &d_sums);
    st |= clSetKernelArg (k, i++, sizeof (cl_mem), &d_counts);
    if (st == CL_SUCCESS)
      st = clEnqueueNDRangeKernel (q, k, by_band ? 2 : 1, NULL, gs, NULL, 0,
          NULL, NULL);
    CHECK (st == CL_SUCCESS, "launching %s: %d", t->kernel, st);
    harness_read (d_sums, bands * sizeof (float), sums);
    harness_read (d_counts, bands * sizeof (cl_uint), counts);
    clReleaseMemObject (d_spec);
    clReleaseMemObject (d_sums);
    clReleaseMemObject (d_counts);
  }

  for (unsigned b = 0; b < bands; b++) {
    /* each power rounds three times, a sum of n positive terms in float
     * is within n - 1 roundings of the exact one, and inv_n2 once more */
    const double tol = (want_count[b] + 4.0) * FLT_EPSILON * want[b];

    if (unsure[b])
      continue;
    compared++;
    if (counts[b] != want_count[b] || fabs (sums[b] - want[b]) > tol) {
      if (bad++ < 3)
        fprintf (stderr, "  band %u: %u pixels, sum %.9g; want %u, %.9g\n",
            b, counts[b], sums[b], want_count[b], want[b]);
    }
  }
  CHECK (bad == 0 && compared * 2 >= bands, "%s, %ux%u %s spectrum, %u "
      "bands, %u slices: %zu of %zu bands off", t->kernel, w, h,
      t->is_half ? "half" : "full", bands, t->slices, bad, compared);

out:
  if (k)
    clReleaseKernel (k);
  free (spec);
  free (sums);
  free (counts);
  free (want);
  free (want_count);
  free (unsure);
}

/* Both kernels, both layouts, odd and even sides, one and many slices
 * of the rows, and frames one pixel wide or high */
static void
test_radial_sums (void)
{
  static const RadialCase cases[] = {
    {60, 45, 17, 1, "spectrum_video_radial_bands", 1},
    {60, 45, 17, 1, "spectrum_video_radial_bands", 5},
    {61, 44, 23, 1, "spectrum_video_radial_bands", 3},
    {61, 44, 23, 0, "spectrum_video_radial_bands", 1},
    {62, 46, 2, 1, "spectrum_video_radial_bands", 25},
    {1, 9, 4, 1, "spectrum_video_radial_bands", 1},
    {9, 1, 4, 0, "spectrum_video_radial_bands", 1},
    {20, 15, 100, 1, "spectrum_video_radial_rows", 8},
    {21, 16, 100, 0, "spectrum_video_radial_rows", 3},
    {60, 45, 17, 1, "spectrum_video_radial_rows", 23},
  };

  for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++)
    run_radial_case (&cases[i]);
}

int
main (void)
{
  harness_run ("linear levels over float's range", test_linear_levels);
  harness_run ("threshold", test_threshold);
  harness_run ("radial sums", test_radial_sums);
  return harness_finish ();
}

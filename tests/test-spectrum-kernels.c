/* test-spectrum-kernels.c: clfftspectrum's band sums (spectrum_accumulate)
 * against double precision, over the whole range of float powers. */
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

int
main (void)
{
  harness_run ("linear levels over float's range", test_linear_levels);
  harness_run ("threshold", test_threshold);
  return harness_finish ();
}

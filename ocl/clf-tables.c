/* clf-tables.c: twiddle, chirp, Bluestein filter and kernel spectrum tables, in double on the host. */
#include "clf-tables.h"

#include <complex.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* exp(-2 pi i m / n) with the angle reduced exactly first */
static void
unit_root (size_t m, size_t n, float *out)
{
  double a = -2.0 * M_PI * (double) (m % n) / (double) n;
  out[0] = (float) cos (a);
  out[1] = (float) sin (a);
}

float *
clf_stage_twiddle_table (size_t n, const unsigned *radices, int nstages)
{
  float *t = malloc (2 * sizeof (float) * 2 * (n ? n : 1));
  size_t to = 0, span = 1;

  if (!t)
    return NULL;
  for (size_t m = 0; m < n; m++)
    unit_root (m, n, t + 2 * m);
  for (int s = 0; s < nstages; s++) {
    size_t radix = radices[s];
    for (size_t r = 1; r < radix; r++)
      for (size_t k = 0; k < span; k++)
        unit_root (r * k, span * radix, t + 2 * (n + to + (r - 1) * span + k));
    to += (radix - 1) * span;
    span *= radix;
  }
  /* the stages' entries add up to n - 1 when their radices multiply to
   * n; the rest (all of it without stages) is left at 1 */
  for (size_t i = n + to; i < 2 * (n ? n : 1); i++)
    unit_root (0, 1, t + 2 * i);
  return t;
}

float *
clf_split_twiddle_table (size_t n, unsigned *shift, size_t *entries)
{
  unsigned s = 0;
  size_t lo, hi;
  float *t;

  while (((size_t) 1 << (2 * s)) < n)
    s++;
  lo = (size_t) 1 << s;
  hi = ((n - 1) >> s) + 1;
  t = malloc (2 * sizeof (float) * (lo + hi));
  if (!t)
    return NULL;
  for (size_t i = 0; i < lo; i++)
    unit_root (i, n, t + 2 * i);
  for (size_t h = 0; h < hi; h++)
    unit_root (h * lo, n, t + 2 * (lo + h));
  *shift = s;
  *entries = lo + hi;
  return t;
}

/* In-place forward DFT of smooth length n in double (recursive mixed
 * radix, decimation in time); scratch holds n values. */
static void
host_fft (double complex * x, double complex * scratch, size_t n,
    const double complex * root, size_t root_n)
{
  size_t p = 0, m;
  static const size_t primes[] = { 4, 2, 3, 5, 7, 11, 13 };

  if (n <= 1)
    return;
  for (size_t i = 0; i < sizeof (primes) / sizeof (primes[0]); i++)
    if (n % primes[i] == 0) {
      p = primes[i];
      break;
    }
  if (!p)
    p = n;                      /* not reached for smooth n */
  m = n / p;
  /* gather the p decimated subsequences, transform each */
  for (size_t r = 0; r < p; r++)
    for (size_t j = 0; j < m; j++)
      scratch[r * m + j] = x[j * p + r];
  for (size_t r = 0; r < p; r++)
    host_fft (scratch + r * m, x, m, root, root_n);
  for (size_t k = 0; k < n; k++) {
    double complex acc = 0;
    for (size_t r = 0; r < p; r++) {
      size_t e = (r * k) % n;
      acc += scratch[r * m + (k % m)] * root[e * (root_n / n)];
    }
    x[k] = acc;
  }
}

int
clf_bluestein_tables (size_t n, size_t m, float **chirp_out,
    float **filter_out)
{
  float *chirp = malloc (2 * sizeof (float) * n);
  float *filter = malloc (2 * sizeof (float) * m);
  double complex *b = calloc (m, sizeof (double complex));
  double complex *scratch = malloc (m * sizeof (double complex));
  double complex *c = malloc (n * sizeof (double complex));
  double complex *root = malloc (m * sizeof (double complex));

  if (!chirp || !filter || !b || !scratch || !c || !root) {
    free (root);
    free (chirp);
    free (filter);
    free (b);
    free (scratch);
    free (c);
    return -1;
  }
  for (size_t j = 0; j < n; j++) {
    /* exp(-i pi j^2 / n), j^2 reduced mod 2n in integers */
    uint64_t r = (uint64_t) ((unsigned __int128) j * j % (2 * (uint64_t) n));
    double a = -M_PI * (double) r / (double) n;
    c[j] = cos (a) + I * sin (a);
    chirp[2 * j] = (float) creal (c[j]);
    chirp[2 * j + 1] = (float) cimag (c[j]);
  }
  b[0] = conj (c[0]);
  for (size_t j = 1; j < n; j++)
    b[j] = b[m - j] = conj (c[j]);
  for (size_t k = 0; k < m; k++) {
    double a = -2.0 * M_PI * (double) k / (double) m;
    root[k] = cos (a) + I * sin (a);
  }
  host_fft (b, scratch, m, root, m);
  free (root);
  for (size_t k = 0; k < m; k++) {
    filter[2 * k] = (float) (creal (b[k]) / (double) m);
    filter[2 * k + 1] = (float) (cimag (b[k]) / (double) m);
  }
  free (b);
  free (scratch);
  free (c);
  *chirp_out = chirp;
  *filter_out = filter;
  return 0;
}

float *
clf_kernel_spectrum (const double *taps, size_t n_taps, size_t centre,
    size_t n, double scale)
{
  float *spec = malloc (2 * sizeof (float) * n);
  double complex *x = calloc (n, sizeof (double complex));
  double complex *scratch = malloc (n * sizeof (double complex));
  double complex *root = malloc (n * sizeof (double complex));

  if (!spec || !x || !scratch || !root) {
    free (spec);
    free (x);
    free (scratch);
    free (root);
    return NULL;
  }
  /* taps reaching around the line add up: the circular kernel */
  for (size_t i = 0; i < n_taps; i++)
    x[(i % n + n - centre % n) % n] += taps[i];
  for (size_t k = 0; k < n; k++) {
    double a = -2.0 * M_PI * (double) k / (double) n;
    root[k] = cos (a) + I * sin (a);
  }
  host_fft (x, scratch, n, root, n);
  for (size_t k = 0; k < n; k++) {
    spec[2 * k] = (float) (creal (x[k]) * scale);
    spec[2 * k + 1] = (float) (cimag (x[k]) * scale);
  }
  free (x);
  free (scratch);
  free (root);
  return spec;
}

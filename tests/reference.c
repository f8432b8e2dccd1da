/* reference.c: naive DFT and FFTW double references for the tests. */
#include "reference.h"

#include <fftw3.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

void
ref_dft (const double *in, double *out, size_t n, int sign)
{
  for (size_t k = 0; k < n; k++) {
    long double re = 0, im = 0;
    for (size_t j = 0; j < n; j++) {
      /* reduce j*k mod n exactly before the angle to keep double accuracy */
      size_t m = (size_t) (((unsigned __int128) j * k) % n);
      long double a = sign * 2.0L * M_PI * (long double) m / (long double) n;
      long double c = cosl (a), s = sinl (a);
      re += in[2 * j] * c - in[2 * j + 1] * s;
      im += in[2 * j] * s + in[2 * j + 1] * c;
    }
    out[2 * k] = (double) re;
    out[2 * k + 1] = (double) im;
  }
}

void
ref_fft (const double *in, double *out, size_t nx, size_t ny, int sign)
{
  size_t total = nx * ny;
  fftw_complex *a = fftw_malloc (sizeof (fftw_complex) * total);
  fftw_plan p;

  memcpy (a, in, sizeof (fftw_complex) * total);
  if (ny <= 1)
    p = fftw_plan_dft_1d ((int) nx, a, a, sign, FFTW_ESTIMATE);
  else
    p = fftw_plan_dft_2d ((int) ny, (int) nx, a, a, sign, FFTW_ESTIMATE);
  fftw_execute (p);
  memcpy (out, a, sizeof (fftw_complex) * total);
  fftw_destroy_plan (p);
  fftw_free (a);
}

double
ref_rel_rms_err (const float *got, const double *ref, size_t n)
{
  return ref_rel_rms_err_real (got, ref, 2 * n);
}

double
ref_rel_rms_err_real (const float *got, const double *ref, size_t n)
{
  double num = 0, den = 0;
  for (size_t i = 0; i < n; i++) {
    double d = (double) got[i] - ref[i];
    num += d * d;
    den += ref[i] * ref[i];
  }
  if (den == 0)
    return sqrt (num);
  return sqrt (num / den);
}

void
ref_fill_random (float *data, size_t count, unsigned seed)
{
  uint64_t s = 0x9E3779B97F4A7C15ull ^ ((uint64_t) seed * 0xBF58476D1CE4E5B9ull);
  for (size_t i = 0; i < count; i++) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    data[i] = (float) ((double) (s >> 11) / 4503599627370496.0 - 1.0);
  }
}

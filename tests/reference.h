/* reference.h: double-precision references the tests compare against. */
#ifndef __CLF_TEST_REFERENCE_H__
#define __CLF_TEST_REFERENCE_H__

#include <stddef.h>

/* Complex data is interleaved re,im doubles. sign: -1 forward, +1 inverse
 * (unscaled). Naive O(n^2) DFT, independent of FFTW: for small n. */
void ref_dft (const double *in, double *out, size_t n, int sign);

/* The same through FFTW double precision (any n, 1D or 2D row-major with
 * ny rows of nx; ny = 1 for 1D). */
void ref_fft (const double *in, double *out, size_t nx, size_t ny, int sign);

/* sqrt(sum |got-ref|^2 / sum |ref|^2) over n complex values (got float). */
double ref_rel_rms_err (const float *got, const double *ref, size_t n);
/* The same for real values. */
double ref_rel_rms_err_real (const float *got, const double *ref, size_t n);

/* Deterministic pseudo-random values in [-1, 1) (xorshift). */
void ref_fill_random (float *data, size_t count, unsigned seed);

#endif

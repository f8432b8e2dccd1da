/* clf-tables.h: host-side tables (float2 arrays computed in double). */
#ifndef __CLF_TABLES_H__
#define __CLF_TABLES_H__

#include <stddef.h>

/* 2n entries: the natural table exp(-2 pi i m/n), m < n, then the stage
 * tables of a transform whose stages have these radices (fft.cl's
 * CLF_STAGE_TW): stage s, after the stages of span Ns before it, holds
 * exp(-2 pi i r k/(Ns R)) for r = 1..R-1, k < Ns at (r-1)*Ns + k.
 * Entries the stages leave are 1. NULL on OOM. */
float *clf_stage_twiddle_table (size_t n, const unsigned *radices, int nstages);

/* Two-level table for m < n: entries [0, L) = exp(-2 pi i l/n) and
 * [L, L+H) = exp(-2 pi i h L/n), L = 2^shift ~ sqrt(n). */
float *clf_split_twiddle_table (size_t n, unsigned *shift, size_t *entries);

/* Bluestein: chirp[j] = exp(-i pi j^2/n) (n entries) and the length-m
 * spectrum of the conjugate chirp filter divided by m. 0 or -1 (OOM). */
int clf_bluestein_tables (size_t n, size_t m, float **chirp,
    float **filter);

/* scale * DFT (length n) of a 1D kernel whose tap i sits at offset
 * i - centre, i.e. at index (i - centre) mod n: 2n floats (malloc), NULL
 * on OOM. n must be 7-smooth (O(n log n) then). */
float *clf_kernel_spectrum (const double *taps, size_t n_taps,
    size_t centre, size_t n, double scale);

#endif

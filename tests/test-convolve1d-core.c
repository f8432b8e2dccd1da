/* test-convolve1d-core.c: partitioned device convolution against a double-precision direct convolution. */
#include "clf-convolve1d.h"
#include "core-harness.h"
#include "reference.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The accuracy bound. float32 rounding (eps 6e-8) through a
 * 2B-point FFT pair and a sum over the partitions stays near 1e-6 for
 * these sizes, so this leaves margin without hiding a wrong bin or a
 * misplaced partition (either gives errors of order 1). */
#define MAX_REL_RMS 1e-5

/* y[i*C+c] = sum_k ir[k][c or 0] * x[(i-k)*C+c] for i < out_frames;
 * x holds in_frames frames and is zero outside them. */
static void
direct_convolution (const float *x, size_t in_frames, size_t channels,
    const double *ir, size_t ir_frames, size_t ir_channels, double *y,
    size_t out_frames)
{
  for (size_t i = 0; i < out_frames; i++) {
    size_t k0 = i >= in_frames ? i - in_frames + 1 : 0;
    size_t k1 = i < ir_frames - 1 ? i : ir_frames - 1;
    for (size_t c = 0; c < channels; c++) {
      size_t hc = ir_channels == 1 ? 0 : c;
      double acc = 0.0;
      for (size_t k = k0; k <= k1; k++)
        acc += ir[k * ir_channels + hc] * (double) x[(i - k) * channels + c];
      y[i * channels + c] = acc;
    }
  }
}

/* A reverb-like response: noise under an exponential decay, so late
 * partitions are small but must still land in the right place. */
static double *
make_ir (size_t frames, size_t channels, unsigned seed)
{
  double *ir = malloc (frames * channels * sizeof (double));
  float *noise = malloc (frames * channels * sizeof (float));

  ref_fill_random (noise, frames * channels, seed);
  for (size_t k = 0; k < frames; k++)
    for (size_t c = 0; c < channels; c++)
      ir[k * channels + c] = noise[k * channels + c] *
          exp (-3.0 * (double) k / (double) frames);
  free (noise);
  return ir;
}

/* Feeds in_frames of random input (then zeros) through a fresh object in
 * calls of `chunk_blocks` blocks, and compares all in_frames + ir_frames - 1
 * outputs with the direct convolution. Returns the error. */
static double
run_case (size_t channels, size_t block, size_t ir_frames,
    size_t ir_channels, size_t in_frames, size_t chunk_blocks)
{
  ClfError err = { CLF_OK, "" };
  ClfConvolve1d *conv;
  size_t out_frames = in_frames + ir_frames - 1;
  size_t n_blocks = (out_frames + block - 1) / block;
  size_t padded = n_blocks * block;
  double *ir = make_ir (ir_frames, ir_channels, 7 + (unsigned) ir_frames);
  float *x = calloc (padded * channels, sizeof (float));
  float *y = calloc (padded * channels, sizeof (float));
  double *ref = malloc (out_frames * channels * sizeof (double));
  double rel = INFINITY;

  ref_fill_random (x, in_frames * channels, 1234 + (unsigned) block);
  direct_convolution (x, in_frames, channels, ir, ir_frames, ir_channels,
      ref, out_frames);

  conv = clf_convolve1d_new (harness_context (), channels, block, ir, ir_frames,
      ir_channels, &err);
  CHECK (conv != NULL, "new(C=%zu B=%zu L=%zu): %s", channels, block,
      ir_frames, err.message);
  if (conv) {
    CHECK (clf_convolve1d_get_partitions (conv) ==
        (ir_frames + block - 1) / block, "partition count");
    for (size_t b = 0; b < n_blocks; b += chunk_blocks) {
      size_t n = n_blocks - b < chunk_blocks ? n_blocks - b : chunk_blocks;
      ClfStatus st = clf_convolve1d_process (conv, x + b * block * channels,
          y + b * block * channels, n, &err);
      CHECK (st == CLF_OK, "process: %s", err.message);
      if (st != CLF_OK)
        break;
    }
    rel = ref_rel_rms_err_real (y, ref, out_frames * channels);
    CHECK (rel <= MAX_REL_RMS, "C=%zu B=%zu L=%zu irC=%zu in=%zu: relative "
        "RMS error %.3g > %.1g", channels, block, ir_frames, ir_channels,
        in_frames, rel, MAX_REL_RMS);
    printf ("  C=%zu B=%-5zu L=%-7zu irC=%zu in=%-6zu chunk=%-3zu P=%-4zu "
        "slices=%-2zu rel RMS %.3g\n", channels, block, ir_frames,
        ir_channels, in_frames, chunk_blocks,
        clf_convolve1d_get_partitions (conv),
        clf_convolve1d_get_slices (conv), rel);
    clf_convolve1d_free (conv);
  }
  free (ir);
  free (x);
  free (y);
  free (ref);
  return rel;
}

/* After reset the object must behave as new: no trace of earlier input. */
static void
test_reset (void)
{
  const size_t C = 2, B = 64, L = 300, M = 500;
  size_t n_blocks = (M + L - 1 + B - 1) / B;
  ClfError err = { CLF_OK, "" };
  double *ir = make_ir (L, 1, 3);
  float *noise = malloc (n_blocks * B * C * sizeof (float));
  float *x = calloc (n_blocks * B * C, sizeof (float));
  float *y = malloc (n_blocks * B * C * sizeof (float));
  double *ref = malloc ((M + L - 1) * C * sizeof (double));
  ClfConvolve1d *conv =
      clf_convolve1d_new (harness_context (), C, B, ir, L, 1, &err);

  CHECK (conv != NULL, "new: %s", err.message);
  if (!conv)
    goto out;
  /* loud history that must be forgotten */
  ref_fill_random (noise, n_blocks * B * C, 99);
  for (size_t i = 0; i < n_blocks * B * C; i++)
    noise[i] *= 1000.0f;
  CHECK (clf_convolve1d_process (conv, noise, y, n_blocks, &err) == CLF_OK,
      "process: %s", err.message);
  CHECK (clf_convolve1d_reset (conv, &err) == CLF_OK, "reset: %s", err.message);

  ref_fill_random (x, M * C, 5);
  direct_convolution (x, M, C, ir, L, 1, ref, M + L - 1);
  CHECK (clf_convolve1d_process (conv, x, y, n_blocks, &err) == CLF_OK,
      "process: %s", err.message);
  {
    double rel = ref_rel_rms_err_real (y, ref, (M + L - 1) * C);
    CHECK (rel <= MAX_REL_RMS, "after reset: relative RMS error %.3g", rel);
    printf ("  reset: rel RMS %.3g\n", rel);
  }
  clf_convolve1d_free (conv);
out:
  free (ir);
  free (noise);
  free (x);
  free (y);
  free (ref);
}

/* An impulse at frame 0 must reproduce the response exactly where it is,
 * per channel, including the per-channel responses' order. */
static void
test_impulse_per_channel (void)
{
  const size_t C = 3, B = 128, L = 1000;
  size_t n_blocks = (L + B - 1) / B;
  ClfError err = { CLF_OK, "" };
  double *ir = make_ir (L, C, 11);
  float *x = calloc (n_blocks * B * C, sizeof (float));
  float *y = malloc (n_blocks * B * C * sizeof (float));
  ClfConvolve1d *conv =
      clf_convolve1d_new (harness_context (), C, B, ir, L, C, &err);
  double max_err = 0.0, max_ref = 0.0;

  CHECK (conv != NULL, "new: %s", err.message);
  if (!conv)
    goto out;
  for (size_t c = 0; c < C; c++)
    x[c] = 1.0f;
  CHECK (clf_convolve1d_process (conv, x, y, n_blocks, &err) == CLF_OK,
      "process: %s", err.message);
  for (size_t i = 0; i < n_blocks * B; i++)
    for (size_t c = 0; c < C; c++) {
      double want = i < L ? ir[i * C + c] : 0.0;
      max_err = fmax (max_err, fabs (y[i * C + c] - want));
      max_ref = fmax (max_ref, fabs (want));
    }
  /* each output is one tap through two float FFTs of 256 points */
  CHECK (max_err <= 1e-5 * max_ref, "impulse: max error %.3g (peak %.3g)",
      max_err, max_ref);
  printf ("  impulse per channel: max error %.3g of %.3g\n", max_err, max_ref);
  clf_convolve1d_free (conv);
out:
  free (ir);
  free (x);
  free (y);
}

static void
test_errors (void)
{
  ClfError err = { CLF_OK, "" };
  double ir[4] = { 1, 2, 3, 4 };
  ClfConvolve1d *conv;

  conv = clf_convolve1d_new (harness_context (), 2, 64, ir, 0, 1, &err);
  CHECK (!conv && err.code == CLF_ERROR_INVALID_ARG, "empty IR accepted");
  conv = clf_convolve1d_new (harness_context (), 3, 64, ir, 2, 2, &err);
  CHECK (!conv && err.code == CLF_ERROR_INVALID_ARG,
      "2 IR channels for 3 audio channels accepted");
  conv = clf_convolve1d_new (harness_context (), 1, 1, ir, 4, 1, &err);
  CHECK (!conv && err.code == CLF_ERROR_INVALID_ARG, "block 1 accepted");

  /* every device allocation of a new object failing in turn: a clean
   * error each time, never a crash or a leak of half-built state */
  for (int n = 0; n < 8; n++) {
    err.code = CLF_OK;
    clf_debug_fail_alloc_after (n);
    conv = clf_convolve1d_new (harness_context (), 2, 64, ir, 4, 1, &err);
    clf_debug_fail_alloc_after (-1);
    if (conv) {
      clf_convolve1d_free (conv);
      break;                    /* n is past the allocations it makes */
    }
    CHECK (err.code == CLF_ERROR_OUT_OF_MEMORY, "alloc failure %d gave %s: "
        "%s", n, clf_status_name (err.code), err.message);
  }
}

static void
test_block_edges (void)
{
  const size_t blocks[] = { 16, 64, 256, 1024 };

  for (size_t i = 0; i < sizeof (blocks) / sizeof (blocks[0]); i++) {
    size_t B = blocks[i];
    const size_t lens[] = { 1, B / 2 + 1, B - 1, B, B + 1, 7 * B + 3 };
    for (size_t j = 0; j < sizeof (lens) / sizeof (lens[0]); j++)
      run_case (1 + (j & 1), B, lens[j], 1, 3 * B + 17, 1);
  }
}

static void
test_odd_shapes (void)
{
  /* non-power-of-two blocks, odd channel counts (one channel alone in
   * its complex pair), per-channel responses */
  run_case (3, 96, 1000, 3, 777, 2);
  run_case (5, 120, 257, 1, 500, 4);
  run_case (6, 256, 2000, 6, 1500, 3);
}

static void
test_chunking (void)
{
  double a = run_case (2, 64, 2500, 2, 3000, 1);
  double b = run_case (2, 64, 2500, 2, 3000, 37);

  CHECK (a == b, "blocks per call changed the result: %.3g vs %.3g", a, b);
}

static void
test_long_responses (void)
{
  run_case (2, 256, 100000, 1, 2000, 16);
  run_case (1, 1024, 200000, 1, 3000, 16);
}

/* The GPU shape of the multiply-accumulate (partition sum split over a
 * work-group and reduced in local memory), forced so that CPU CI runs it:
 * more slices than partitions, fewer, odd channel counts, per-channel. */
static void
test_split_sum (void)
{
  const int slices[] = { 2, 8, 64 };

  for (size_t i = 0; i < sizeof (slices) / sizeof (slices[0]); i++) {
    clf_convolve1d_debug_force_slices (slices[i]);
    run_case (1, 64, 150, 1, 700, 3);
    run_case (3, 32, 5000, 3, 400, 8);
    run_case (2, 256, 20000, 1, 1000, 16);
  }
  clf_convolve1d_debug_force_slices (-1);
}

static void
test_ten_seconds (void)
{
  /* 10 s at 48 kHz, per-channel, default block: every output sample of
   * the signal and its whole tail */
  run_case (2, clf_convolve1d_default_block (480000), 480000, 2, 2400, 16);
}

int
main (void)
{
  harness_run ("IR lengths around a block", test_block_edges);
  harness_run ("odd blocks and channel counts", test_odd_shapes);
  harness_run ("blocks per call", test_chunking);
  harness_run ("IR much longer than a block", test_long_responses);
  harness_run ("partition sum split over work items", test_split_sum);
  harness_run ("10 s IR at 48 kHz", test_ten_seconds);
  harness_run ("reset", test_reset);
  harness_run ("impulse, per-channel IR", test_impulse_per_channel);
  harness_run ("errors", test_errors);
  return harness_finish ();
}

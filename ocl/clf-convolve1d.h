/* clf-convolve1d.h: uniformly partitioned overlap-save convolution of multi-channel audio on the device. */
#ifndef __CLF_CONVOLVE1D_H__
#define __CLF_CONVOLVE1D_H__

#include "clf.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Convolves each of `channels` interleaved float channels with a long
 * impulse response. The response is cut into partitions of `block` samples
 * whose spectra (2*block-point real FFTs) stay on the device; every block
 * of input costs one batched forward FFT, one multiply-accumulate launch
 * over all channels and partitions, and one batched inverse FFT, so the
 * cost per sample grows with ir_frames/block, and the latency is one block
 * whatever the response length. */
typedef struct _ClfConvolve1d ClfConvolve1d;

/* ir: ir_frames * ir_channels doubles, interleaved; ir_channels is 1 (the
 * same response for every channel) or channels. block: samples per
 * partition, >= 2 and a length the core's real FFT of 2*block supports
 * (powers of two are fastest). Returns NULL with err set on failure. */
ClfConvolve1d *clf_convolve1d_new (ClfContext * ctx, size_t channels,
    size_t block, const double *ir, size_t ir_frames, size_t ir_channels,
    ClfError * err);
void clf_convolve1d_free (ClfConvolve1d * conv);

size_t clf_convolve1d_get_block (ClfConvolve1d * conv);
size_t clf_convolve1d_get_partitions (ClfConvolve1d * conv);
/* Device memory held, in bytes (for logs). */
size_t clf_convolve1d_get_device_bytes (ClfConvolve1d * conv);

/* Consumes n_blocks * block interleaved frames of in and writes as many to
 * out: output frame i is sum_k ir[k] * input[i - k] over everything fed
 * since creation or the last reset (earlier input counts as zero). All
 * blocks are queued before one wait. One thread at a time per object. */
ClfStatus clf_convolve1d_process (ClfConvolve1d * conv, const float *in,
    float *out, size_t n_blocks, ClfError * err);

/* Forgets all input history (as if freshly created). */
ClfStatus clf_convolve1d_reset (ClfConvolve1d * conv, ClfError * err);

/* Default block for a response of ir_frames: the smallest power of two
 * that cuts it into at most 64 partitions, within 512 .. 16384: latency
 * grows with the block, the multiply-accumulate work per sample with the
 * partition count (measured with tests/bench/bench-convolve-audio.c). */
size_t clf_convolve1d_default_block (size_t ir_frames);

/* Work items the multiply-accumulate splits each bin group's partition
 * sum over (1 on CPUs; more on GPUs with small blocks). */
size_t clf_convolve1d_get_slices (ClfConvolve1d * conv);

/* Test hook: objects created from now on split the partition sum over
 * this many work items (rounded down to a power of two, at most 64);
 * -1 restores the automatic choice. Process-wide. */
void clf_convolve1d_debug_force_slices (int slices);

#ifdef __cplusplus
}
#endif
#endif /* __CLF_CONVOLVE1D_H__ */

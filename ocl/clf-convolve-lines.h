/* clf-convolve-lines.h: one axis of a separable 2D convolution: every line
 * of a frame convolved with a 1D kernel in the frequency domain. */
#ifndef __CLF_CONVOLVE_LINES_H__
#define __CLF_CONVOLVE_LINES_H__

#include "clf.h"

/* The two passes, in the order they run (CLF_LINE_PASS in fft.cl, pass
 * in convolve2d.cl): frame rows into the lines buffer, its lines back
 * into frame columns. The layouts are in kernels/line-io.clh, and for
 * CPU devices' staged passes in kernels/convolve2d.cl (line_load_each). */
typedef enum
{
  CLF_LINES_ROWS = 1,
  CLF_LINES_COLUMNS = 2
} ClfLineAxis;

typedef struct _ClfLinePass ClfLinePass;

/* count lines padded to length n. On GPUs one fused kernel per pass
 * (load, transform, multiply, transform back, store) when a line fits a
 * work-group's local memory; else line_load, two plans, the multiply and
 * line_store, which PoCL runs faster. frame: the lines will hold that
 * many frame samples alone, zeros after them
 * (clf_line_pass_set_clamped_kernel), so a fused kernel adds the clamped
 * edges too and the plans skip the zeros; 0: padded lines. */
ClfLinePass *clf_line_pass_new (ClfContext * ctx, ClfLineAxis axis,
    size_t n, size_t count, size_t frame, ClfError * err);
void clf_line_pass_free (ClfLinePass * lp);

/* The 1D kernel: taps values, tap i at offset i - centre (a true
 * convolution, as in clf-convolve2d.h). Its spectrum, scaled by 1/n, is
 * computed on the host in double precision. */
ClfStatus clf_line_pass_set_kernel (ClfLinePass * lp, const double *taps,
    size_t n_taps, size_t centre, ClfError * err);

/* The same for lines that hold the extent frame samples alone, zeros
 * after them (line-io.clh, geo.s5): taps reaching past either end of the
 * frame act on the clamped edge sample through per-sample sums instead,
 * so a line needs extent + min (reach, extent - 1) samples rather than
 * extent + 2 reach. */
ClfStatus clf_line_pass_set_clamped_kernel (ClfLinePass * lp,
    const double *taps, size_t n_taps, size_t centre, size_t extent,
    ClfError * err);

/* Queues the pass over the frame bytes raw and the lines buffer (see
 * line-io.clh for chan and geo); extent: frame samples along a line. */
ClfStatus clf_line_pass_enqueue (ClfLinePass * lp, cl_mem raw, cl_mem lines,
    const cl_uint16 * chan, const cl_int8 * geo, size_t extent, ClfError * err);

size_t clf_line_pass_device_bytes (size_t n, size_t count, int fused,
    size_t clamp_extent);
/* Bytes the lines buffer needs past the frame's lines for a pass over
 * count lines of n samples (frame as for clf_line_pass_new) */
size_t clf_line_pass_lines_slack (ClfContext * ctx, ClfLineAxis axis,
    size_t n, size_t count, size_t frame);
int clf_line_pass_is_fused (ClfLinePass * lp);
/* Whether clf_line_pass_new would fuse on this device */
int clf_line_pass_would_fuse (ClfContext * ctx, size_t n);
/* The same for lines no longer than the power-of-two limit of plans
 * (4096 points in NVIDIA's 48 KiB of local memory), which run faster */
int clf_line_pass_fuses_within_limit (ClfContext * ctx, size_t n);

#endif /* __CLF_CONVOLVE_LINES_H__ */

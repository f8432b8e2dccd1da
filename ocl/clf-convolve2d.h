/* clf-convolve2d.h: frequency-domain 2D convolution of 8/16-bit image frames on the device. */
#ifndef __CLF_CONVOLVE2D_H__
#define __CLF_CONVOLVE2D_H__

#include "clf.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How samples outside the frame are made up (values match convolve2d.cl).
 * For x outside [0, w): clamp repeats the edge sample, mirror reflects
 * without repeating it (... c b | a b c d | c b a ..., period 2(w-1)),
 * wrap repeats the frame (period w), zero uses 0. */
typedef enum
{
  CLF_EDGE_CLAMP = 0,
  CLF_EDGE_MIRROR,
  CLF_EDGE_WRAP,
  CLF_EDGE_ZERO
} ClfEdgeMode;

/* Kernels, sampled on the integer grid (dx, dy):
 * - GAUSSIAN: exp(-(dx^2+dy^2) / (2 sigma^2)), sigma = radius / 3, for
 *   |dx|, |dy| <= ceil(radius); radius 0 is the identity.
 * - BOX: 1 for |dx|, |dy| <= radius.
 * - DISK: 1 for dx^2 + dy^2 <= radius^2.
 * These three are normalised to unit sum.
 * - TAPS: width * height values, row-major, used as given (normalise them
 *   first if wanted); tap (i, j) sits at offset (i - width/2, j - height/2).
 * The result is a true convolution: out(x, y) = sum k(dx, dy) in(x - dx,
 * y - dy), so a single bright pixel reproduces the kernel unflipped. */
typedef enum
{
  CLF_KERNEL_GAUSSIAN = 0,
  CLF_KERNEL_BOX,
  CLF_KERNEL_DISK,
  CLF_KERNEL_TAPS
} ClfKernelShape;

typedef struct
{
  ClfKernelShape shape;
  double radius;                /* GAUSSIAN, BOX, DISK: >= 0, in samples */
  const float *taps;            /* TAPS: width * height values */
  size_t width, height;         /* TAPS */
} ClfKernel2d;

/* Kernel size and centre: taps reach from -cx to width-1-cx. */
void clf_kernel2d_extent (const ClfKernel2d * kernel, size_t * width,
    size_t * height, size_t * cx, size_t * cy);

#define CLF_CONVOLVE2D_MAX_PLANES 4
#define CLF_CONVOLVE2D_MAX_CHANNELS 4

/* One channel (colour component) of a frame: sample (x, y) is at byte
 * offset + y * row_bytes[plane] + x * pixel_stride of its plane. */
typedef struct
{
  unsigned plane;
  size_t offset;
  size_t pixel_stride;
  size_t width, height;
  unsigned bits;                /* 8, or 16 little endian */
  unsigned kernel;              /* index into the kernels of configure */
} ClfChannel2d;

/* A frame: planes of rows * row_bytes bytes, and the channels to convolve.
 * Bytes that belong to no channel (padding "x" bytes) pass unchanged. */
typedef struct
{
  unsigned n_planes;
  size_t row_bytes[CLF_CONVOLVE2D_MAX_PLANES];
  size_t rows[CLF_CONVOLVE2D_MAX_PLANES];
  unsigned n_channels;
  ClfChannel2d channels[CLF_CONVOLVE2D_MAX_CHANNELS];
  /* the edge mode frames will use: groups are set up for it, and switch
   * when a frame asks for another (0, clamp, where unset) */
  ClfEdgeMode edge;
} ClfFrameLayout2d;

/* Separable kernels (gaussian, box) convolve rows, then columns: each line
 * padded for the kernel and the edge mode to a length >= frame + kernel
 * - 1 (a product of 2, 3, 5 and 7), two channels per complex line. On a
 * GPU the padded line lives only in local memory, so the cost barely
 * grows with the radius. Other kernels pad each channel to an nx * ny
 * grid the same way; channels of the same size and kernel share one
 * batched real FFT, so the cost depends on the frame plus the kernel
 * extent, not on the number of taps, and a radius of 1000 on 1920x1080
 * needs about 4000 x 3100 per channel. Frame
 * and kernel spectra stay on the device; one frame from and to the host
 * is one upload and one download per plane, none for a frame that is
 * already on the device (clf_convolve2d_process_frame). */
typedef struct _ClfConvolve2d ClfConvolve2d;

ClfConvolve2d *clf_convolve2d_new (ClfContext * ctx, ClfError * err);
void clf_convolve2d_free (ClfConvolve2d * conv);

/* Sets the frame layout and the kernels the channels refer to. Plans and
 * buffers are kept where the padded sizes stay the same, and a kernel
 * spectrum is recomputed only when its kernel or its grid changed. Fails
 * with CLF_ERROR_OUT_OF_MEMORY, naming the padded sizes and bytes, when
 * the device cannot hold the grids. On failure the object needs a
 * successful configure before process. */
ClfStatus clf_convolve2d_configure (ClfConvolve2d * conv,
    const ClfFrameLayout2d * layout, const ClfKernel2d * kernels,
    unsigned n_kernels, ClfError * err);

/* Convolves one frame: src[p] / src_stride[p] for each plane in, dst[p] /
 * dst_stride[p] out (may equal src). Waits for the result. The host case
 * of clf_convolve2d_process_frame. */
ClfStatus clf_convolve2d_process (ClfConvolve2d * conv,
    const void *const *src, const size_t * src_stride, void *const *dst,
    const size_t * dst_stride, ClfEdgeMode edge, ClfError * err);

/* One side of a frame for clf_convolve2d_process_frame: planes on the
 * host (mem NULL: plane p at host[p], rows stride[p] bytes apart) or in a
 * device buffer of the context (plane p at byte offset[p] of mem, rows
 * stride[p] bytes apart; offsets below 4 GiB), e.g. a frame another
 * element left there. Strides are at least the layout's row_bytes. */
typedef struct
{
  cl_mem mem;
  void *host[CLF_CONVOLVE2D_MAX_PLANES];
  size_t offset[CLF_CONVOLVE2D_MAX_PLANES];
  size_t stride[CLF_CONVOLVE2D_MAX_PLANES];
} ClfFrame2d;

/* Convolves one frame from src into dst, each on the host or the device:
 * a host side is one upload or download per plane; a device source is
 * read where it is (copied into a device destination first, unless it is
 * that same buffer and layout: in place); a device destination is worked
 * on in place and never downloaded. Bytes that belong to no channel get
 * src's; the padding between dst's rows and planes is left as it was.
 * Waits until dst holds the result. */
ClfStatus clf_convolve2d_process_frame (ClfConvolve2d * conv,
    const ClfFrame2d * src, const ClfFrame2d * dst, ClfEdgeMode edge,
    ClfError * err);

/* Queues one frame as clf_convolve2d_process_frame does, without waiting:
 * *done (release it with clReleaseEvent) completes once dst holds the
 * result and src is no longer read, so host planes must stay valid until
 * then. On a GPU the next frame's upload runs beside this one's kernels,
 * and its download beside the next one's, so a caller that submits frame
 * n + 1 before waiting for frame n keeps the bus and the device busy. */
ClfStatus clf_convolve2d_submit_frame (ClfConvolve2d * conv,
    const ClfFrame2d * src, const ClfFrame2d * dst, ClfEdgeMode edge,
    cl_event * done, ClfError * err);

/* The FFT length for frame + kernel - 1 samples (even if even_only): a
 * 2^a 3^b 5^c 7^d with b + c + d <= 3, or a power of two within 10% of it. */
size_t clf_convolve2d_padded_length (size_t frame, size_t kernel,
    int even_only);

/* Device memory held, and a summary of the channel groups (for logs). */
size_t clf_convolve2d_get_device_bytes (ClfConvolve2d * conv);
const char *clf_convolve2d_describe (ClfConvolve2d * conv);

#ifdef __cplusplus
}
#endif
#endif /* __CLF_CONVOLVE2D_H__ */

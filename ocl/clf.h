/* clf.h: public API of the gst-clfft OpenCL FFT core (no GStreamer types). */
#ifndef __CLF_H__
#define __CLF_H__

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum
{
  CLF_OK = 0,
  CLF_ERROR_NO_PLATFORM,        /* no OpenCL platform / ICD installed */
  CLF_ERROR_NO_DEVICE,          /* no device matches the request */
  CLF_ERROR_BUILD,              /* kernel build failed; message holds the log */
  CLF_ERROR_OUT_OF_MEMORY,      /* device or host allocation failed */
  CLF_ERROR_INVALID_ARG,        /* bad length, stride, batch, NULL buffer ... */
  CLF_ERROR_UNSUPPORTED,        /* valid request the core cannot do */
  CLF_ERROR_OPENCL              /* any other OpenCL failure; message names the call */
} ClfStatus;

typedef struct
{
  ClfStatus code;
  char message[2048];
} ClfError;

const char *clf_status_name (ClfStatus code);
/* Sets err (if non-NULL) from a failed OpenCL call `what`, as the core
 * reports its own: CLF_ERROR_OUT_OF_MEMORY for the allocation failures,
 * CLF_ERROR_OPENCL for the rest, the error's name in the message.
 * Returns the code. */
ClfStatus clf_set_cl_error (ClfError * err, cl_int clerr, const char *what);

/* ---- Context: one device, one in-order queue, cached programs ---------- */

typedef struct _ClfContext ClfContext;

/* device_spec: NULL or "" = $CLFFT_DEVICE if set, else the first GPU, else
 * the first device of any kind. Otherwise "gpu", "cpu", "P:D" (platform and
 * device indices as listed by clf_list_devices), or a case-insensitive
 * substring of "platform name / device name". */
ClfContext *clf_context_new (const char *device_spec, ClfError * err);
ClfContext *clf_context_ref (ClfContext * ctx);
void clf_context_unref (ClfContext * ctx);

cl_context clf_context_get_cl_context (ClfContext * ctx);
cl_command_queue clf_context_get_queue (ClfContext * ctx);
cl_device_id clf_context_get_device (ClfContext * ctx);
const char *clf_context_get_device_name (ClfContext * ctx);
const char *clf_context_get_platform_name (ClfContext * ctx);
/* "platform name / device name (P:D)", for messages */
const char *clf_context_describe (ClfContext * ctx);
/* CPU devices (PoCL) vectorise across work-items and want more of them;
 * some kernels have forms of their own there */
int clf_context_is_cpu (ClfContext * ctx);

/* Program for one of the embedded kernels/NAME.cl files (e.g. "fft"),
 * built once per context and cached on disk. Owned by the context. */
cl_program clf_context_get_program (ClfContext * ctx, const char *name,
    ClfError * err);
/* A new kernel object from that program (caller releases it). */
cl_kernel clf_context_create_kernel (ClfContext * ctx, const char *program,
    const char *kernel_name, ClfError * err);
/* clCreateBuffer with errors mapped to ClfStatus (and the test hook). */
cl_mem clf_context_alloc (ClfContext * ctx, cl_mem_flags flags, size_t size,
    ClfError * err);

/* Host <-> device copies of frame bytes on the context's queue: rows rows
 * of row_bytes bytes, stride bytes apart in buf from offset and
 * host_stride bytes apart at host. One clEnqueueWriteBuffer /
 * clEnqueueReadBuffer (the Rect variant when either side pads its rows);
 * blocking and done (may be NULL) as in those calls. Frames cross between
 * host and device through these two only, so clf_debug_get_transfers
 * counts them. */
ClfStatus clf_context_upload (ClfContext * ctx, cl_mem buf, size_t offset,
    size_t stride, const void *host, size_t host_stride, size_t row_bytes,
    size_t rows, int blocking, cl_event * done, ClfError * err);
ClfStatus clf_context_download (ClfContext * ctx, cl_mem buf, size_t offset,
    size_t stride, void *host, size_t host_stride, size_t row_bytes,
    size_t rows, int blocking, cl_event * done, ClfError * err);

/* Waits until the work queued so far on the context's queue has run (a
 * marker and its event; the queue is in order). */
ClfStatus clf_context_wait (ClfContext * ctx, ClfError * err);

/* Lists every platform/device as lines "P:D  type  platform / device\n".
 * Returns a malloc'ed string (free it), or NULL with err set. */
char *clf_list_devices (ClfError * err);

/* ---- Plans ------------------------------------------------------------- */

typedef enum
{
  CLF_C2C = 0,                  /* complex -> complex, either direction */
  CLF_R2C,                      /* real -> half spectrum (n[0]/2+1 bins), forward */
  CLF_C2R                       /* half spectrum -> real, inverse */
} ClfTransformKind;

typedef enum
{
  CLF_FORWARD = 0,              /* exp(-2 pi i jk/N) */
  CLF_INVERSE = 1               /* exp(+2 pi i jk/N), unscaled unless normalize */
} ClfDirection;

/* Layout of one side (input or output). Units are elements of that side:
 * float2 for complex data, float for real data. A zero stride/dist means
 * "packed": stride[0] = 1, stride[1] = row length (n[0], or n[0]/2+1 for a
 * half spectrum), dist = one whole transform. */
typedef struct
{
  size_t offset;
  size_t stride[2];             /* [0] along x, [1] along y (2D only) */
  size_t dist;                  /* between transforms of a batch */
} ClfLayout;

typedef struct
{
  ClfTransformKind kind;
  ClfDirection direction;       /* C2C only; R2C is forward, C2R inverse */
  unsigned dim;                 /* 1 or 2 */
  size_t n[2];                  /* n[0] = x (contiguous) length, n[1] = y */
  size_t batch;                 /* >= 1 */
  ClfLayout in, out;
  int normalize;                /* multiply by 1/(n[0]*n[1]) */

  /* 1D C2C, each optional (0 or NULL: off). Element j of every
   * input is taken as zero for j >= in_extent, whatever the buffer holds
   * there, and as x[j] * in_multiplier[j] (n[0] complex values, which the
   * plan keeps a reference to) where a multiplier is given: the pointwise
   * product of a convolution, done as the transform reads its input.
   * Outputs at k >= out_extent may be left unwritten. Plans on CPU devices
   * take all three into their first and last stages (writing no more
   * than out_extent outputs); elsewhere a pass before the transform
   * applies the first two.
   * 2D (any kind; no multiplier, and no input extent for C2R): the same
   * for rows, y >= in_extent of the input taken as zero and y >=
   * out_extent of the output left unwritten. Row passes skip those rows
   * (a frame at the top of a zero-padded grid: half its row work or
   * more); column passes take them as above. */
  size_t in_extent, out_extent;
  cl_mem in_multiplier;
} ClfPlanDesc;

typedef struct _ClfPlan ClfPlan;

/* Fills desc with a packed 1D/2D plan description (dim from ny: 0 = 1D). */
void clf_plan_desc_init (ClfPlanDesc * desc, ClfTransformKind kind,
    ClfDirection direction, size_t nx, size_t ny, size_t batch);

ClfPlan *clf_plan_new (ClfContext * ctx, const ClfPlanDesc * desc,
    ClfError * err);
void clf_plan_free (ClfPlan * plan);

/* Enqueues the transform on the context queue; in == out is in place.
 * Does not wait: use clFinish or a blocking read. One thread at a time
 * per plan. */
ClfStatus clf_plan_enqueue (ClfPlan * plan, cl_mem in, cl_mem out,
    ClfError * err);

/* The caller's work on transforms [from, from + count) of a batch */
typedef ClfStatus (*ClfChunkFunc) (size_t from, size_t count, void *data,
    ClfError * err);

/* Enqueues before, first (in1 to out1), second (in2 to out2) and after
 * (either function may be NULL), each for the whole batch. Where both
 * plans run their batch in the same chunks of transforms (CPU devices'
 * plans of one axis and the same geometry), chunk by chunk instead:
 * before, first, second and after on each chunk's transforms in turn,
 * while what the one before left there is still in the caches. So each
 * may touch, of the others' data, only the transforms it is given: a
 * forward and an inverse transform of the same lines, what loads them
 * and what stores them. */
ClfStatus clf_plan_enqueue_pair (ClfPlan * first, cl_mem in1, cl_mem out1,
    ClfPlan * second, cl_mem in2, cl_mem out2, ClfChunkFunc before,
    ClfChunkFunc after, void *data, ClfError * err);

/* Human-readable summary: algorithm, radices, passes (for logs). */
const char *clf_plan_describe (ClfPlan * plan);

/* Bytes each side of the plan touches, for allocating buffers. */
size_t clf_plan_input_size (ClfPlan * plan);
size_t clf_plan_output_size (ClfPlan * plan);

/* ---- Test hooks -------------------------------------------------------- */

/* Make the n-th following device allocation (0 = the next) fail with
 * CLF_ERROR_OUT_OF_MEMORY; -1 disables. Process-wide. */
void clf_debug_fail_alloc_after (int n);

/* Run column transforms as two passes of short columns on every device
 * (GPUs do so for long columns), so CPU test runs cover that path. */
void clf_debug_force_column_split (int on);

/* Run every smooth length that splits into three factors as three
 * passes (GPUs do so for lengths too long for two), so CPU test runs
 * cover that path. */
void clf_debug_force_three_step (int on);

/* Run separable 2D convolutions with the fused line kernel on every
 * device (GPUs do; PoCL runs staged plans faster) for lines of at most
 * longest points, staged ones beyond, so CPU test runs cover that kernel
 * and the choice between the two; 0 leaves the choice to the device. */
void clf_debug_force_fused_lines (size_t longest);

/* Round CPU work-group sizes up to powers of two: PoCL compiles a kernel
 * once per work-group size, so sweeps over many lengths compile far less
 * (the transforms run somewhat slower). */
void clf_debug_round_work_groups (int on);

/* Treat programs built for one length as if the device allowed them at
 * most this many threads per work-group (0: what it reports), so CPU test
 * runs cover the rebuilds a GPU's register limits cause. */
void clf_debug_cap_work_group (size_t threads);

/* Plan as if the device had at most this many bytes of local memory (0:
 * what it reports), so CPU test runs, whose local memory is large, take
 * the forms GPUs choose past their local memory's limits. */
void clf_debug_cap_local_memory (size_t bytes);

/* The launches a plan enqueues, and a window of them to run alone
 * (count 0: all), for benchmarks that time each pass. The results of a
 * window alone are not the transform's. */
int clf_debug_plan_passes (ClfPlan * plan);
void clf_debug_plan_run_passes (ClfPlan * plan, int first, int count);

/* Whether clf_plan_enqueue_pair runs the two plans chunk by chunk (1)
 * rather than one after the other (0) */
int clf_debug_plans_pair (ClfPlan * first, ClfPlan * second);

/* Transforms one work-group of a plan's pass runs (fft_local passes; 0
 * for others), for tests of how passes are shaped. */
size_t clf_debug_plan_pass_transforms (ClfPlan * plan, int pass);
/* The work-group size the device allows that pass's kernel */
size_t clf_debug_plan_pass_thread_limit (ClfPlan * plan, int pass);

/* Frame copies between host and device (clf_context_upload and
 * clf_context_download calls, and their bytes) since the last reset.
 * Process-wide, for tests that check how often frames cross. */
typedef struct
{
  unsigned long uploads, downloads;
  unsigned long long upload_bytes, download_bytes;
} ClfTransferCounts;

void clf_debug_get_transfers (ClfTransferCounts * counts);
void clf_debug_reset_transfers (void);

#ifdef __cplusplus
}
#endif
#endif /* __CLF_H__ */

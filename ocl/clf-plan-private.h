/* clf-plan-private.h: what clf-plan.c shares with the planners of other
 * files (clf-plan-cpu.c): flags, layouts, axis transforms, plan access. */
#ifndef __CLF_PLAN_PRIVATE_H__
#define __CLF_PLAN_PRIVATE_H__

#include "clf-private.h"

/* Pass flags, mirrored in kernels/fft.cl */
#define CONJ_IN        (1u << 0)
#define CONJ_OUT       (1u << 1)
#define LOAD_BFAST     (1u << 2)
#define STORE_BFAST    (1u << 3)
#define POST_TWIDDLE   (1u << 4)
#define IN_REAL        (1u << 5)
#define IN_HERMITIAN   (1u << 6)
#define OUT_REAL       (1u << 7)
#define BLOCK_IO       (1u << 8)
/* host-only: built with CLF_PLANAR_EXCHANGE (kernels/fft.cl) */
#define PLANAR         (1u << 9)
/* four-step twiddle on the input (CLF_PRE_TWIDDLE) */
#define PRE_TWIDDLE    (1u << 10)
/* host-only: the generic program, not one built for the length (a
 * fallback where the device allows that one too few threads) */
#define GENERIC        (1u << 11)
/* host-only: Bluestein's one pass, two transforms in one program, whose
 * speed its compute sets rather than its memory traffic */
#define BLUESTEIN_PASS (1u << 12)
#define IN_FLAGS  (CONJ_IN | IN_REAL | IN_HERMITIAN)
#define OUT_FLAGS (CONJ_OUT | OUT_REAL)

#define ALL_ELEMENTS 0xffffffffu

/* Transform b, element j at off + j*stride + (b % nb0)*d0
 * + ((b / nb0) % nb1)*d1 + (b / (nb0*nb1))*d2, as the kernels read it. */
typedef struct
{
  cl_uint off, stride, d0, d1, d2, nb0, nb1;
} Addr;

/* What one axis transform reads and writes */
typedef struct
{
  size_t n, batch;
  Addr in, out;
  int src, dst;
  cl_uint flags;                /* IN_FLAGS and OUT_FLAGS */
  cl_uint count;                /* outputs kept (R2C), ALL_ELEMENTS = n */
  float scale;
  /* ClfPlanDesc's input extent and multiplier (0, NULL: none) and output
   * extent (0: n), which only CPU passes honour themselves */
  cl_uint in_extent, out_extent;
  cl_mem multiplier;
  /* Bluestein's one pass (fft_local, add_bluestein_one_pass; 0: not
   * one): the length of the transform it stands for, and its table (the
   * two chirps and the filter, kernels/fft.cl's CLF_BLUESTEIN_N) */
  cl_uint bluestein_n;
  cl_mem table;
} Axis;

static inline cl_uint8
addr_to_cl (Addr a)
{
  cl_uint8 v = { {a.off, a.stride, a.d0, a.d1, a.d2, a.nb0, a.nb1, 0} };
  return v;
}

/* ---- provided by clf-plan.c for fused kernels of fft.cl ------------- */

/* A kernel of the fft program that runs length-n transforms in local
 * memory, T threads each, G per work-group, ls float2 apart there: the
 * shape and build fft_local gets for batch transforms on this device
 * (specialised per length where the platform allows), with flags
 * (CLF_FLAGS) and extra -D defines. */
typedef struct
{
  cl_kernel kernel;
  size_t T, G, ls;
  int nstages;
  unsigned radices[CLF_MAX_STAGES];
  cl_ulong codes;               /* 4 bits per stage, as fft.cl reads them */
  cl_uint flags;                /* as built: BLOCK_IO kept only where it pays */
  int one_thread;               /* each transform in one thread's registers */
} ClfLocalKernel;

ClfStatus clf_local_kernel_new (ClfContext * ctx, size_t n, size_t batch,
    cl_uint flags, int pad, const char *defines, const char *name,
    ClfLocalKernel * lk, ClfError * err);

/* Whether one work-group of such a kernel holds a length-n transform
 * (with local-memory padding where the device wants it), up to the
 * power-of-two limit that plans keep to (clf_context_local_fft_limit) */
int clf_fits_local (ClfContext * ctx, size_t n);
/* The same up to what local memory holds (5120 points in NVIDIA's 48 KiB) */
int clf_fits_local_memory (ClfContext * ctx, size_t n);
/* Whether the device wants that padding (CLF_LDS_PAD) for length n */
int clf_local_pad (ClfContext * ctx, size_t n);

/* ---- provided by clf-plan.c for the CPU planner ---------------------- */

ClfContext *clf_plan_get_context (ClfPlan * plan);
/* A launch of kernel (the plan keeps a reference) over a 2D range, at a
 * global work offset unless offset is NULL; args 0 and 1 are bound to
 * buffers src and dst at enqueue, and unless base is NULL the last, a
 * uint2, to base (where a chunk starts: as a global work offset it would
 * make PoCL compile the kernel a second time); the others are the
 * caller's. */
ClfStatus clf_plan_add_launch (ClfPlan * plan, cl_kernel kernel, int src,
    int dst, const size_t global[2], const size_t local[2],
    const size_t offset[2], const size_t base[2], ClfError * err);
/* Chunks of the batch (clf_plan_enqueue_pair): a loop of them begins,
 * the launches added next work on a new chunk, transforms [from, from +
 * count) of the batch (count 0: not a range of them), the loop ends */
void clf_plan_begin_chunks (ClfPlan * plan);
void clf_plan_set_chunk (ClfPlan * plan, size_t from, size_t count);
void clf_plan_end_chunks (ClfPlan * plan);
/* the id of scratch buffer slot (0 or 1) shared by the plan's CPU axes,
 * at least bytes long; -1 on error */
int clf_plan_shared_scratch (ClfPlan * plan, int slot, size_t bytes,
    ClfError * err);
/* a read-only device copy of a host table, NULL on error */
cl_mem clf_plan_add_table (ClfPlan * plan, const float *data, size_t floats,
    ClfError * err);
void clf_plan_describe_add (ClfPlan * plan, const char *text);

#endif

/* clf-plan-cpu.h: the CPU path of the planner (barrier-free Stockham
 * passes of kernels/fft_cpu.cl), used on CPU devices such as PoCL. */
#ifndef __CLF_PLAN_CPU_H__
#define __CLF_PLAN_CPU_H__

#include "clf-private.h"

/* Transform b, element j at off + j*stride + (b % nb0)*d0
 * + ((b / nb0) % nb1)*d1 + (b / (nb0*nb1))*d2 (nb0 = 0xffffffff: one
 * level), as clf-plan.c describes one side of an axis transform. */
typedef struct
{
  cl_uint off, stride, d0, d1, d2, nb0, nb1;
} ClfCpuAddr;

/* Axis flags, the values of clf-plan.c */
#define CLF_CPU_CONJ_IN      (1u << 0)
#define CLF_CPU_CONJ_OUT     (1u << 1)
#define CLF_CPU_IN_REAL      (1u << 5)
#define CLF_CPU_IN_HERMITIAN (1u << 6)
#define CLF_CPU_OUT_REAL     (1u << 7)

typedef struct
{
  size_t n, batch;
  ClfCpuAddr in, out;
  int src, dst;                 /* plan buffer ids */
  cl_uint flags;                /* CLF_CPU_* */
  cl_uint count;                /* outputs kept per transform (<= n) */
  float scale;
} ClfCpuAxis;

/* Plans one axis transform as CPU passes. Returns 0 when the CPU path does
 * not take this axis (the caller plans it as before), else 1 with the
 * outcome in *status. */
int clf_plan_cpu_add_axis (ClfPlan * plan, const ClfCpuAxis * ax,
    ClfStatus * status, ClfError * err);

/* Whether the CPU path is on for this context: CPU devices, unless
 * $CLFFT_CPU_PATH is "0" (and forced on anywhere with "1"). */
int clf_plan_cpu_enabled (ClfContext * ctx);

/* ---- provided by clf-plan.c for the CPU planner ---------------------- */

ClfContext *clf_plan_get_context (ClfPlan * plan);
/* A launch of kernel (the plan keeps a reference) over a 2D range, at a
 * global offset unless offset is NULL; args 0 and 1 are bound to buffers
 * src and dst at enqueue, the others are the caller's. */
ClfStatus clf_plan_add_launch (ClfPlan * plan, cl_kernel kernel, int src,
    int dst, const size_t global[2], const size_t local[2],
    const size_t offset[2], ClfError * err);
/* the id of scratch buffer slot (0 or 1) shared by the plan's CPU axes,
 * at least bytes long; -1 on error */
int clf_plan_shared_scratch (ClfPlan * plan, int slot, size_t bytes,
    ClfError * err);
/* a read-only device copy of a host table, NULL on error */
cl_mem clf_plan_add_table (ClfPlan * plan, const float *data, size_t floats,
    ClfError * err);
void clf_plan_describe_add (ClfPlan * plan, const char *text);

#endif

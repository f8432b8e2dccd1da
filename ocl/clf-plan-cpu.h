/* clf-plan-cpu.h: the CPU path of the planner (barrier-free Stockham
 * passes of kernels/fft_cpu.cl), used on CPU devices such as PoCL. */
#ifndef __CLF_PLAN_CPU_H__
#define __CLF_PLAN_CPU_H__

#include "clf-plan-private.h"

/* Plans one axis transform as CPU passes. Returns 0 when the CPU path does
 * not take this axis (the caller plans it as before), else 1 with the
 * outcome in *status. */
int clf_plan_cpu_add_axis (ClfPlan * plan, const Axis * ax,
    ClfStatus * status, ClfError * err);

/* Whether the CPU path is on for this context: CPU devices, unless
 * $CLFFT_CPU_PATH is "0" (and forced on anywhere with "1"). */
int clf_plan_cpu_enabled (ClfContext * ctx);

#endif

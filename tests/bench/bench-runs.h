/* bench-runs.h: timed runs of a plan in place, as clfft-bench and
 * forms-bench take them. */
#ifndef __BENCH_RUNS_H__
#define __BENCH_RUNS_H__

#include "clf.h"
#include "bench-clock.h"

#include <stdlib.h>

static inline int
bench_cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

/* One warm-up run, then iters timed runs of the plan in place (host
 * wall clock around enqueue and clFinish, us), sorted into times. */
static inline ClfStatus
bench_time_runs (ClfPlan * plan, cl_mem mem, cl_command_queue q,
    double *times, size_t iters, ClfError * err)
{
  if (clf_plan_enqueue (plan, mem, mem, err) != CLF_OK)
    return err->code;
  clFinish (q);
  for (size_t i = 0; i < iters; i++) {
    double s = bench_now ();
    if (clf_plan_enqueue (plan, mem, mem, err) != CLF_OK)
      return err->code;
    clFinish (q);
    times[i] = (bench_now () - s) * 1e6;
  }
  qsort (times, iters, sizeof (double), bench_cmp_double);
  return CLF_OK;
}

#endif /* __BENCH_RUNS_H__ */

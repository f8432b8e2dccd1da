/* bench-clock.h: the monotonic clock the benchmarks time with. */
#ifndef __BENCH_CLOCK_H__
#define __BENCH_CLOCK_H__

#include <time.h>

/* seconds on the monotonic clock */
static inline double
bench_now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

#endif /* __BENCH_CLOCK_H__ */

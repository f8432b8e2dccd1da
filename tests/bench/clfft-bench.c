/* clfft-bench.c: times one in-place transform the way ../shared/anchors does. */
#include "clf.h"
#include "reference.h"

#include "bench-runs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double
now_us (void)
{
  return bench_now () * 1e6;
}

static void
usage (void)
{
  fprintf (stderr, "usage: clfft-bench [--device SPEC] [--r2c] [--inverse] "
      "[--check] [--passes] NX [NY] [BATCH] [ITERS]\n");
  exit (2);
}

/* Relative RMS error of the first transform of the batch against FFTW. */
static double
check_result (const float *in, const float *out, size_t nx, size_t ny,
    int r2c, int inverse)
{
  size_t total = nx * ny, half = nx / 2 + 1, cols = r2c ? half : nx;
  double *x = malloc (2 * sizeof (double) * total);
  double *ref = malloc (2 * sizeof (double) * total);
  double *want = malloc (2 * sizeof (double) * cols * ny);
  double e;

  for (size_t i = 0; i < total; i++) {
    x[2 * i] = r2c ? in[i] : in[2 * i];
    x[2 * i + 1] = r2c ? 0 : in[2 * i + 1];
  }
  ref_fft (x, ref, nx, ny, inverse ? 1 : -1);
  for (size_t y = 0; y < ny; y++)
    for (size_t k = 0; k < cols; k++) {
      want[2 * (y * cols + k)] = ref[2 * (y * nx + k)];
      want[2 * (y * cols + k) + 1] = ref[2 * (y * nx + k) + 1];
    }
  e = ref_rel_rms_err (out, want, cols * ny);
  free (x);
  free (ref);
  free (want);
  return e;
}

int
main (int argc, char **argv)
{
  const char *device = NULL;
  int r2c = 0, inverse = 0, check = 0, passes = 0, npos = 0;
  size_t pos[4] = { 0, 1, 1, 0 };
  ClfError err = { 0, };
  ClfContext *ctx;
  ClfPlanDesc d;
  ClfPlan *plan;
  size_t nx, ny, batch, iters, in_bytes, bytes;
  double t0, t_plan, setup_ms, plan_ms, *times, check_error = 0;
  float *host, *out;
  cl_mem mem;
  cl_command_queue q;

  for (int i = 1; i < argc; i++) {
    if (!strcmp (argv[i], "--device") && i + 1 < argc)
      device = argv[++i];
    else if (!strcmp (argv[i], "--r2c"))
      r2c = 1;
    else if (!strcmp (argv[i], "--inverse"))
      inverse = 1;
    else if (!strcmp (argv[i], "--check"))
      check = 1;
    else if (!strcmp (argv[i], "--passes"))
      passes = 1;
    else if (argv[i][0] >= '0' && argv[i][0] <= '9' && npos < 4)
      pos[npos++] = strtoul (argv[i], NULL, 10);
    else
      usage ();
  }
  if (npos < 1 || pos[0] < 1)
    usage ();
  if (r2c && inverse) {
    /* a CLF_R2C plan is forward only; --check would have compared its
     * spectrum with an inverse transform */
    fprintf (stderr, "clfft-bench: --r2c times the forward real transform "
        "only; leave out --inverse\n");
    return 2;
  }
  nx = pos[0];
  ny = pos[1] ? pos[1] : 1;
  batch = pos[2] ? pos[2] : 1;
  iters = pos[3] ? pos[3] : 20;

  t0 = now_us ();
  ctx = clf_context_new (device, &err);
  if (!ctx) {
    fprintf (stderr, "clfft-bench: %s\n", err.message);
    return 1;
  }
  clf_plan_desc_init (&d, r2c ? CLF_R2C : CLF_C2C,
      inverse ? CLF_INVERSE : CLF_FORWARD, nx, ny > 1 ? ny : 0, batch);
  if (r2c) {
    /* in place: real rows padded to the half spectrum's bytes */
    d.in.stride[1] = 2 * (nx / 2 + 1);
    d.in.dist = ny > 1 ? d.in.stride[1] * ny : 2 * (nx / 2 + 1);
  }
  /* setup_ms: context and plan, as an application starts; plan_ms: the
   * plan alone, as the anchors' setup (their context exists before) */
  t_plan = now_us ();
  plan = clf_plan_new (ctx, &d, &err);
  if (!plan) {
    fprintf (stderr, "clfft-bench: %s\n", err.message);
    return 1;
  }
  setup_ms = (now_us () - t0) / 1000.0;
  plan_ms = (now_us () - t_plan) / 1000.0;
  fprintf (stderr, "# %s on %s\n", clf_plan_describe (plan),
      clf_context_describe (ctx));

  q = clf_context_get_queue (ctx);
  in_bytes = clf_plan_input_size (plan);
  if (clf_plan_output_size (plan) > in_bytes)
    in_bytes = clf_plan_output_size (plan);
  host = malloc (in_bytes);
  out = malloc (in_bytes);
  ref_fill_random (host, in_bytes / sizeof (float), 1);
  mem = clf_context_alloc (ctx, CL_MEM_READ_WRITE, in_bytes, &err);
  if (!mem || !host || !out) {
    fprintf (stderr, "clfft-bench: %s\n", err.message);
    return 1;
  }
  clEnqueueWriteBuffer (q, mem, CL_TRUE, 0, in_bytes, host, 0, NULL, NULL);

  if (check) {
    double e;
    if (clf_plan_enqueue (plan, mem, mem, &err) != CLF_OK) {
      fprintf (stderr, "clfft-bench: %s\n", err.message);
      return 1;
    }
    clEnqueueReadBuffer (q, mem, CL_TRUE, 0, in_bytes, out, 0, NULL, NULL);
    if (r2c && ny > 1) {
      /* compact the padded real rows of the first image for the check */
      float *c = malloc (sizeof (float) * nx * ny);
      for (size_t y = 0; y < ny; y++)
        memcpy (c + y * nx, host + y * d.in.stride[1], sizeof (float) * nx);
      e = check_result (c, out, nx, ny, 1, 0);
      free (c);
    } else {
      e = check_result (host, out, nx, ny, r2c, inverse);
    }
    /* restore the input so every timed run transforms the same data */
    clEnqueueWriteBuffer (q, mem, CL_TRUE, 0, in_bytes, host, 0, NULL, NULL);
    check_error = e;
  }

  times = malloc (sizeof (double) * iters);
  if (bench_time_runs (plan, mem, q, times, iters, &err) != CLF_OK) {
    fprintf (stderr, "clfft-bench: %s\n", err.message);
    return 1;
  }
  bytes = 8 * nx * ny * batch;
  printf ("clfft,%s,%zux%zu,batch=%zu,setup_ms=%.2f,median_us=%.2f,"
      "min_us=%.2f,GBps=%.1f", clf_context_get_device_name (ctx), nx, ny,
      batch, setup_ms, times[iters / 2], times[0],
      2.0 * bytes / (times[iters / 2] * 1e3));
  if (check)
    printf (",rel_rms_err=%.3g", check_error);
  printf (",plan_ms=%.2f\n", plan_ms);

  /* --passes: each launch alone, to see where a plan's time goes */
  for (int p = 0; passes && p < clf_debug_plan_passes (plan); p++) {
    clf_debug_plan_run_passes (plan, p, 1);
    if (bench_time_runs (plan, mem, q, times, iters, &err) != CLF_OK) {
      fprintf (stderr, "clfft-bench: %s\n", err.message);
      return 1;
    }
    printf ("pass %d: median_us=%.2f,min_us=%.2f,GBps=%.1f\n", p,
        times[iters / 2], times[0], 2.0 * bytes / (times[iters / 2] * 1e3));
  }
  clf_debug_plan_run_passes (plan, 0, 0);

  free (times);
  free (host);
  free (out);
  clReleaseMemObject (mem);
  clf_plan_free (plan);
  clf_context_unref (ctx);
  return 0;
}

/* fft-test-signal.c: the core without GStreamer: finds the tones in a test signal. */
#include <clf.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define RATE 48000
#define N 48000                 /* one second: 1 Hz bins */

int
main (void)
{
  static const double tones[][2] = { {440.0, 1.0}, {1000.0, 0.5},
  {12345.0, 0.25}
  };
  ClfError err = { 0, };
  ClfContext *ctx = clf_context_new (NULL, &err);
  ClfPlanDesc desc;
  ClfPlan *plan;
  float *signal = malloc (sizeof (float) * N);
  float *spectrum = malloc (sizeof (float) * 2 * (N / 2 + 1));
  cl_mem in, out;
  cl_command_queue q;

  if (!ctx) {
    fprintf (stderr, "no OpenCL device: %s\n", err.message);
    return 1;
  }
  printf ("device: %s\n", clf_context_describe (ctx));

  for (int i = 0; i < N; i++) {
    double t = (double) i / RATE, v = 0;
    for (int k = 0; k < 3; k++)
      v += tones[k][1] * sin (2 * M_PI * tones[k][0] * t);
    signal[i] = (float) v;
  }

  clf_plan_desc_init (&desc, CLF_R2C, CLF_FORWARD, N, 0, 1);
  plan = clf_plan_new (ctx, &desc, &err);
  if (!plan) {
    fprintf (stderr, "plan: %s\n", err.message);
    return 1;
  }
  printf ("plan: %s\n", clf_plan_describe (plan));
  q = clf_context_get_queue (ctx);
  in = clf_context_alloc (ctx, CL_MEM_READ_ONLY, sizeof (float) * N, &err);
  out = clf_context_alloc (ctx, CL_MEM_WRITE_ONLY,
      sizeof (float) * 2 * (N / 2 + 1), &err);
  if (!in || !out) {
    fprintf (stderr, "alloc: %s\n", err.message);
    return 1;
  }
  clEnqueueWriteBuffer (q, in, CL_FALSE, 0, sizeof (float) * N, signal, 0,
      NULL, NULL);
  if (clf_plan_enqueue (plan, in, out, &err) != CLF_OK) {
    fprintf (stderr, "fft: %s\n", err.message);
    return 1;
  }
  clEnqueueReadBuffer (q, out, CL_TRUE, 0, sizeof (float) * 2 * (N / 2 + 1),
      spectrum, 0, NULL, NULL);

  /* a tone of amplitude a shows as a peak of a*N/2 in its bin */
  printf ("peaks above 0.1 amplitude:\n");
  for (int k = 1; k < N / 2; k++) {
    double re = spectrum[2 * k], im = spectrum[2 * k + 1];
    double amp = 2.0 * sqrt (re * re + im * im) / N;
    if (amp > 0.1)
      printf ("  %6d Hz  amplitude %.4f\n", k * RATE / N, amp);
  }

  clReleaseMemObject (in);
  clReleaseMemObject (out);
  clf_plan_free (plan);
  clf_context_unref (ctx);
  free (signal);
  free (spectrum);
  return 0;
}

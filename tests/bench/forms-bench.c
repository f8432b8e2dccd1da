/* forms-bench.c: times other stage forms of batched 1D lengths in one
 * process, for tuning the plans of programs built for one length.
 *
 * Reads lines "N VALUES RADICES" from stdin (VALUES and RADICES as
 * CLFFT_THREAD_VALUES and CLFFT_RADICES take them; "N - -" for the plan
 * the rules give) and times each as an in-place forward transform of
 * TOTAL points, ROUNDS times over the whole list, so that a form and the
 * plan it is compared with alternate. A line may end in up to four
 * NAME=VALUE settings of other knobs for that line alone ("1000 - -
 * CLFFT_MEASURED_FORMS=0": the rules' plan). With --compile it only
 * builds each line's programs (into CLFFT_CACHE_DIR), for shards run side
 * by side: --compile K/M takes every M-th line from the K-th. Give the
 * shards the TOTAL the timing run takes: a program depends on the batch
 * (fewer transforms widen the threads of each).
 *
 * usage: forms-bench [--compile K/M] [TOTAL] [ROUNDS] [ITERS] < forms */
#include "clf.h"
#include "bench-runs.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FORMS 8192

#define MAX_SETTINGS 4

typedef struct
{
  size_t n;
  char values[16];
  char radices[64];
  char settings[MAX_SETTINGS][64];
  int nsettings;
} Form;

/* The environment the plan rules read: a form's, or none for the plan,
 * and the line's settings (those of the line before undone) */
static void
set_form_env (const Form * f)
{
  static char names[MAX_SETTINGS][64];
  static int nnames;

  for (int i = 0; i < nnames; i++)
    unsetenv (names[i]);
  nnames = 0;
  for (int i = 0; i < f->nsettings; i++) {
    char *eq = strchr (f->settings[i], '=');
    if (!eq || eq == f->settings[i])
      continue;
    snprintf (names[nnames], sizeof names[0], "%.*s",
        (int) (eq - f->settings[i]), f->settings[i]);
    setenv (names[nnames++], eq + 1, 1);
  }
  if (strcmp (f->values, "-")) {
    setenv ("CLFFT_THREAD_VALUES", f->values, 1);
    setenv ("CLFFT_RADICES", f->radices, 1);
  } else {
    unsetenv ("CLFFT_THREAD_VALUES");
    unsetenv ("CLFFT_RADICES");
  }
}

static ClfPlan *
form_plan (ClfContext * ctx, const Form * f, size_t batch, ClfError * err)
{
  ClfPlanDesc d;

  set_form_env (f);
  clf_plan_desc_init (&d, CLF_C2C, CLF_FORWARD, f->n, 0, batch);
  return clf_plan_new (ctx, &d, err);
}

int
main (int argc, char **argv)
{
  static Form forms[MAX_FORMS];
  size_t nforms = 0, total = 1 << 24, rounds = 3, iters = 20, npos = 0;
  size_t pos[3] = { 0, 0, 0 };
  unsigned shard = 0, shards = 0;
  ClfError err = { 0, };
  ClfContext *ctx;
  cl_command_queue q;
  cl_mem mem;
  double *times;
  char line[256];

  for (int i = 1; i < argc; i++) {
    if (!strcmp (argv[i], "--compile") && i + 1 < argc) {
      if (sscanf (argv[++i], "%u/%u", &shard, &shards) != 2 || !shards)
        return 2;
    } else if (argv[i][0] >= '0' && argv[i][0] <= '9' && npos < 3) {
      pos[npos++] = strtoul (argv[i], NULL, 10);
    } else {
      fprintf (stderr, "usage: forms-bench [--compile K/M] [TOTAL] [ROUNDS] "
          "[ITERS] < lines of N VALUES RADICES\n");
      return 2;
    }
  }
  total = pos[0] ? pos[0] : total;
  rounds = pos[1] ? pos[1] : rounds;
  iters = pos[2] ? pos[2] : iters;

  while (nforms < MAX_FORMS && fgets (line, sizeof line, stdin)) {
    Form *f = &forms[nforms];
    f->nsettings = 0;
    if (sscanf (line, "%zu %15s %63s %63s %63s %63s %63s", &f->n, f->values,
            f->radices, f->settings[0], f->settings[1], f->settings[2],
            f->settings[3]) >= 3 && f->n > 0 && f->n <= total) {
      f->nsettings = sscanf (line, "%*s %*s %*s %63s %63s %63s %63s",
          f->settings[0], f->settings[1], f->settings[2], f->settings[3]);
      if (f->nsettings < 0)
        f->nsettings = 0;
      nforms++;
    }
  }

  ctx = clf_context_new (NULL, &err);
  if (!ctx) {
    fprintf (stderr, "forms-bench: %s\n", err.message);
    return 1;
  }
  if (shards) {
    for (size_t i = shard; i < nforms; i += shards) {
      ClfPlan *plan = form_plan (ctx, &forms[i], total / forms[i].n, &err);
      if (plan)
        clf_plan_free (plan);
    }
    clf_context_unref (ctx);
    return 0;
  }

  q = clf_context_get_queue (ctx);
  mem = clf_context_alloc (ctx, CL_MEM_READ_WRITE, 8 * total, &err);
  times = malloc (sizeof (double) * iters);
  if (!mem || !times) {
    fprintf (stderr, "forms-bench: %s\n", err.message);
    return 1;
  }
  /* the data's values do not change the time: zeros, written once */
  {
    float zero = 0.0f;
    clEnqueueFillBuffer (q, mem, &zero, sizeof zero, 0, 8 * total, 0, NULL,
        NULL);
    clFinish (q);
  }
  printf ("# forms-bench on %s, %zu points, %zu rounds of %zu runs\n",
      clf_context_describe (ctx), total, rounds, iters);
  for (size_t r = 0; r < rounds; r++) {
    for (size_t i = 0; i < nforms; i++) {
      Form *f = &forms[i];
      ClfPlan *plan = form_plan (ctx, f, total / f->n, &err);

      if (!plan || bench_time_runs (plan, mem, q, times, iters, &err) !=
          CLF_OK) {
        printf ("%zu %zu %s %s error: %s\n", r, f->n, f->values, f->radices,
            err.message);
        if (plan)
          clf_plan_free (plan);
        continue;
      }
      printf ("%zu %zu %s %s%s%s %s median_us=%.2f min_us=%.2f\n", r, f->n,
          f->values, f->radices, f->nsettings ? " " : "",
          f->nsettings ? f->settings[0] : "", clf_plan_describe (plan),
          times[iters / 2], times[0]);
      fflush (stdout);
      clf_plan_free (plan);
    }
  }
  free (times);
  clReleaseMemObject (mem);
  clf_context_unref (ctx);
  return 0;
}

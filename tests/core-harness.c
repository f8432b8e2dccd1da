/* core-harness.c: runner, shared context and buffer helpers for core tests. */
#include "core-harness.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

int harness_failures;
int harness_checks;
static int tests_passed, tests_failed;
static ClfContext *context;

ClfContext *
harness_context (void)
{
  if (!context) {
    ClfError err = { 0, };
    context = clf_context_new (NULL, &err);
    if (!context) {
      fprintf (stderr, "no OpenCL context: %s: %s\n",
          clf_status_name (err.code), err.message);
      exit (1);
    }
    printf ("# device: %s\n", clf_context_describe (context));
  }
  return context;
}

/* Whether name contains one of the '|'-separated texts in list */
static int
name_matches (const char *name, const char *list)
{
  while (*list) {
    size_t len = strcspn (list, "|");

    for (const char *at = name; len > 0 && *at; at++)
      if (strncmp (at, list, len) == 0)
        return 1;
    list += len + (list[len] == '|');
  }
  return 0;
}

void
harness_run (const char *name, void (*fn) (void))
{
  int before = harness_failures;
  const char *only = getenv ("HARNESS_ONLY");
  const char *skip = getenv ("HARNESS_SKIP");
  struct timespec t0, t1;

  /* HARNESS_ONLY=a|b runs only the tests whose names contain a or b;
   * HARNESS_SKIP=a|b leaves those out (meson splits a suite this way) */
  if ((only && only[0] && !name_matches (name, only)) ||
      (skip && skip[0] && name_matches (name, skip)))
    return;
  clock_gettime (CLOCK_MONOTONIC, &t0);
  fn ();
  clock_gettime (CLOCK_MONOTONIC, &t1);
  if (harness_failures == before)
    tests_passed++;
  else
    tests_failed++;
  printf ("%s %s (%.2f s)\n", harness_failures == before ? "ok  " : "FAIL",
      name, (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9);
  fflush (stdout);
}

int
harness_finish (void)
{
  if (context)
    clf_context_unref (context);
  printf ("%d passed, %d failed\n", tests_passed, tests_failed);
  /* a filter that matches no test is a mistake, not a pass */
  if (tests_passed + tests_failed == 0) {
    fprintf (stderr, "no test matched HARNESS_ONLY / HARNESS_SKIP\n");
    return 1;
  }
  return tests_failed ? 1 : 0;
}

cl_mem
harness_buffer (size_t bytes, const void *data)
{
  ClfError err = { 0, };
  cl_mem mem = clf_context_alloc (harness_context (), CL_MEM_READ_WRITE,
      bytes, &err);
  if (!mem) {
    fprintf (stderr, "allocation failed: %s\n", err.message);
    exit (1);
  }
  if (data)
    clEnqueueWriteBuffer (clf_context_get_queue (harness_context ()), mem,
        CL_TRUE, 0, bytes, data, 0, NULL, NULL);
  return mem;
}

void
harness_read (cl_mem mem, size_t bytes, void *data)
{
  cl_int e = clEnqueueReadBuffer (clf_context_get_queue (harness_context ()),
      mem, CL_TRUE, 0, bytes, data, 0, NULL, NULL);
  if (e != CL_SUCCESS) {
    fprintf (stderr, "read failed: %d\n", e);
    exit (1);
  }
}

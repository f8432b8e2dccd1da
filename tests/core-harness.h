/* core-harness.h: a tiny runner for the core tests (no GStreamer). */
#ifndef __CLF_CORE_HARNESS_H__
#define __CLF_CORE_HARNESS_H__

#include "clf.h"

#include <stdio.h>
#include <stdlib.h>

extern int harness_failures;
extern int harness_checks;

#define CHECK(cond, ...)                                        \
  do {                                                          \
    harness_checks++;                                           \
    if (!(cond)) {                                              \
      harness_failures++;                                       \
      fprintf (stderr, "FAIL %s:%d: ", __FILE__, __LINE__);     \
      fprintf (stderr, __VA_ARGS__);                            \
      fprintf (stderr, "\n");                                   \
    }                                                           \
  } while (0)

/* The context every test uses (CLFFT_DEVICE picks it; PoCL in CI). */
ClfContext *harness_context (void);

/* Runs one named test function and reports it. */
void harness_run (const char *name, void (*fn) (void));

/* Prints the summary; returns the process exit code. */
int harness_finish (void);

/* Upload host data into a new buffer of `bytes` (data may be NULL). */
cl_mem harness_buffer (size_t bytes, const void *data);
void harness_read (cl_mem mem, size_t bytes, void *data);

#endif

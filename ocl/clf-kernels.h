/* clf-kernels.h: the OpenCL sources of kernels/ embedded at build time. */
#ifndef __CLF_KERNELS_H__
#define __CLF_KERNELS_H__

#include <stddef.h>

typedef struct
{
  const char *name;             /* file name without ".cl" */
  const char *source;
} ClfEmbeddedKernel;

/* NULL-terminated table generated from the .cl files of kernels/ */
extern const ClfEmbeddedKernel clf_embedded_kernels[];

#endif

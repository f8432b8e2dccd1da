/* clf-error.c: status names, error messages and the allocation test hook. */
#include "clf-private.h"

#include <stdio.h>

const char *
clf_status_name (ClfStatus code)
{
  switch (code) {
    case CLF_OK:
      return "ok";
    case CLF_ERROR_NO_PLATFORM:
      return "no OpenCL platform";
    case CLF_ERROR_NO_DEVICE:
      return "no OpenCL device";
    case CLF_ERROR_BUILD:
      return "kernel build failed";
    case CLF_ERROR_OUT_OF_MEMORY:
      return "out of memory";
    case CLF_ERROR_INVALID_ARG:
      return "invalid argument";
    case CLF_ERROR_UNSUPPORTED:
      return "unsupported";
    case CLF_ERROR_OPENCL:
      return "OpenCL error";
  }
  return "unknown error";
}

ClfStatus
clf_set_error (ClfError * err, ClfStatus code, const char *fmt, ...)
{
  if (err) {
    va_list ap;
    err->code = code;
    va_start (ap, fmt);
    vsnprintf (err->message, sizeof (err->message), fmt, ap);
    va_end (ap);
  }
  return code;
}

const char *
clf_cl_error_name (cl_int e)
{
  switch (e) {
#define N(x) case x: return #x
      N (CL_SUCCESS);
      N (CL_DEVICE_NOT_FOUND);
      N (CL_DEVICE_NOT_AVAILABLE);
      N (CL_COMPILER_NOT_AVAILABLE);
      N (CL_MEM_OBJECT_ALLOCATION_FAILURE);
      N (CL_OUT_OF_RESOURCES);
      N (CL_OUT_OF_HOST_MEMORY);
      N (CL_BUILD_PROGRAM_FAILURE);
      N (CL_INVALID_VALUE);
      N (CL_INVALID_PLATFORM);
      N (CL_INVALID_DEVICE);
      N (CL_INVALID_CONTEXT);
      N (CL_INVALID_COMMAND_QUEUE);
      N (CL_INVALID_MEM_OBJECT);
      N (CL_INVALID_BINARY);
      N (CL_INVALID_BUILD_OPTIONS);
      N (CL_INVALID_PROGRAM);
      N (CL_INVALID_PROGRAM_EXECUTABLE);
      N (CL_INVALID_KERNEL_NAME);
      N (CL_INVALID_KERNEL);
      N (CL_INVALID_ARG_INDEX);
      N (CL_INVALID_ARG_VALUE);
      N (CL_INVALID_ARG_SIZE);
      N (CL_INVALID_KERNEL_ARGS);
      N (CL_INVALID_WORK_DIMENSION);
      N (CL_INVALID_WORK_GROUP_SIZE);
      N (CL_INVALID_WORK_ITEM_SIZE);
      N (CL_INVALID_GLOBAL_OFFSET);
      N (CL_INVALID_BUFFER_SIZE);
      N (CL_INVALID_GLOBAL_WORK_SIZE);
      N (CL_PLATFORM_NOT_FOUND_KHR);
#undef N
  }
  return "unknown OpenCL error";
}

ClfStatus
clf_set_cl_error (ClfError * err, cl_int clerr, const char *what)
{
  ClfStatus code = CLF_ERROR_OPENCL;
  if (clerr == CL_MEM_OBJECT_ALLOCATION_FAILURE ||
      clerr == CL_OUT_OF_RESOURCES || clerr == CL_OUT_OF_HOST_MEMORY ||
      clerr == CL_INVALID_BUFFER_SIZE)
    code = CLF_ERROR_OUT_OF_MEMORY;
  return clf_set_error (err, code, "%s failed: %s (%d)", what,
      clf_cl_error_name (clerr), (int) clerr);
}

static volatile int fail_alloc_after = -1;

void
clf_debug_fail_alloc_after (int n)
{
  __atomic_store_n (&fail_alloc_after, n, __ATOMIC_SEQ_CST);
}

int
clf_debug_should_fail_alloc (void)
{
  int n = __atomic_load_n (&fail_alloc_after, __ATOMIC_SEQ_CST);
  while (n >= 0) {
    if (__atomic_compare_exchange_n (&fail_alloc_after, &n, n - 1, 0,
            __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
      return n == 0;
  }
  return 0;
}

static unsigned long transfer_calls[2];
static unsigned long long transfer_bytes[2];

void
clf_debug_count_transfer (int upload, size_t bytes)
{
  __atomic_add_fetch (&transfer_calls[upload != 0], 1, __ATOMIC_SEQ_CST);
  __atomic_add_fetch (&transfer_bytes[upload != 0], bytes, __ATOMIC_SEQ_CST);
}

void
clf_debug_get_transfers (ClfTransferCounts * counts)
{
  counts->uploads = __atomic_load_n (&transfer_calls[1], __ATOMIC_SEQ_CST);
  counts->downloads = __atomic_load_n (&transfer_calls[0], __ATOMIC_SEQ_CST);
  counts->upload_bytes = __atomic_load_n (&transfer_bytes[1], __ATOMIC_SEQ_CST);
  counts->download_bytes = __atomic_load_n (&transfer_bytes[0],
      __ATOMIC_SEQ_CST);
}

void
clf_debug_reset_transfers (void)
{
  for (int i = 0; i < 2; i++) {
    __atomic_store_n (&transfer_calls[i], 0, __ATOMIC_SEQ_CST);
    __atomic_store_n (&transfer_bytes[i], 0, __ATOMIC_SEQ_CST);
  }
}

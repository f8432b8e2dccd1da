/* clf-private.h: helpers shared by the core's source files (not installed). */
#ifndef __CLF_PRIVATE_H__
#define __CLF_PRIVATE_H__

#include "clf.h"

#include <stdarg.h>

/* from cl_ext.h (cl_khr_icd), returned by the ICD loader */
#ifndef CL_PLATFORM_NOT_FOUND_KHR
#define CL_PLATFORM_NOT_FOUND_KHR -1001
#endif

/* Sets err (if non-NULL) and returns code. */
ClfStatus clf_set_error (ClfError * err, ClfStatus code, const char *fmt, ...)
    __attribute__((format (printf, 3, 4)));

const char *clf_cl_error_name (cl_int clerr);

/* Test hook: non-zero when the next device allocation must fail. */
int clf_debug_should_fail_alloc (void);

/* Test hook: records one frame transfer (clf_context_upload/download). */
void clf_debug_count_transfer (int upload, size_t bytes);

/* Program cache (clf-program-cache.c) */
/* CLFFT_TRACE_BUILDS=1: programs built and kernel shapes chosen */
int clf_trace_builds (void);
cl_program clf_program_build_cached (cl_context context, cl_device_id device,
    const char *name, const char *source, const char *options,
    ClfError * err);

/* Programs built with extra -D options (one program per distinct set) */
cl_program clf_context_get_program_full (ClfContext * ctx, const char *name,
    const char *defines, ClfError * err);
cl_kernel clf_context_create_kernel_full (ClfContext * ctx,
    const char *program, const char *defines, const char *kernel_name,
    ClfError * err);

/* Queues kernel on ctx's queue over gx work-items (by gy when gy > 0),
 * rounded up to whole lx (by ly) work-groups: the kernels bound-check.
 * A failure is reported as launching `what`. */
ClfStatus clf_context_launch (ClfContext * ctx, cl_kernel kernel, size_t gx,
    size_t gy, size_t lx, size_t ly, const char *what, ClfError * err);

/* A non-blocking frame transfer (as clf_context_upload/download) on queue
 * (NULL: ctx's queue), after the n_wait events in wait */
ClfStatus clf_context_transfer_on (ClfContext * ctx, cl_command_queue queue,
    int upload, cl_mem buf, size_t offset, size_t stride, void *host,
    size_t host_stride, size_t row_bytes, size_t rows, cl_uint n_wait,
    const cl_event * wait, cl_event * done, ClfError * err);

/* Largest transform length one fft_local work-group holds on ctx's device */
size_t clf_context_local_fft_limit (ClfContext * ctx);
/* complex values local memory holds (work-groups pack transforms in it) */
size_t clf_context_local_capacity (ClfContext * ctx);
size_t clf_context_max_work_group (ClfContext * ctx);
/* The device's global memory cache in bytes (a CPU's last level), 0 where
 * it reports none */
size_t clf_context_cache_bytes (ClfContext * ctx);

/* Factorisation (clf-factor.c). Radices: 16, 8, 4, 2 and the odd primes
 * 3 to 31. */
#define CLF_MAX_STAGES 16
int clf_factor_radices (size_t n, unsigned *radices, int max_stages);
unsigned clf_radix_code (unsigned radix);
/* The stages "AxBx..." that environment variable name gives for length
 * n (tuning knobs): their count, 0 where it is unset, malformed, longer
 * than max or multiplies to another length */
int clf_radices_from_env (const char *name, size_t n, unsigned *radices,
    int max);
/* whether radix r is one of the count radices */
int clf_holds_radix (const unsigned *radices, size_t count, unsigned r);
/* Plain rows of n whose stages a measured table gives (clf-plan-forms.c):
 * their count (0 where n has none), the values a thread into *values */
int clf_measured_form (size_t n, unsigned *values, unsigned *radices);
int clf_is_smooth (size_t n);   /* all prime factors <= 31 */
size_t clf_next_smooth (size_t n);      /* smallest 2^a 3^b 5^c 7^d >= n */
size_t clf_four_step_split (size_t n, size_t limit);    /* N1 | n, or 0 */
size_t clf_largest_divisor_upto (size_t n, size_t limit);
/* n = f[0] * f[1] * f[2], each smooth and <= limit: 1, or 0 if none */
int clf_three_step_split (size_t n, size_t limit, size_t f[3]);

#endif

/* clf-plan.c: turns a transform description into a list of kernel passes. */
#include "clf-plan-private.h"
#include "clf-plan-cpu.h"
#include "clf-tables.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PASSES 65536
#define MAX_BUFFERS 16
/* chunks of one plan that clf_plan_enqueue_pair interleaves */
#define MAX_CHUNKS 1024

/* Buffers a pass reads and writes: the user's two, or plan scratch */
enum
{ BUF_IN = 0, BUF_OUT = 1, BUF_SCRATCH = 2 };

typedef struct
{
  cl_kernel kernel;
  int src, dst;                 /* buffer ids, bound to args 0 and 1 */
  cl_uint work_dim;
  size_t global[2], local[2];
  int has_local;
  size_t offset[2];             /* global work offset (CPU path rests) */
  int has_offset;
  cl_uint base[2];              /* CPU path chunks: where the launch starts */
  int base_arg;                 /* its argument (the last), -1: none */
  size_t transforms;            /* fft_local: transforms a work-group */
  int chunk;                    /* CPU path: the chunk of the batch it
                                 * works on (clf_plan_set_chunk), -1:
                                 * none */
} Pass;

struct _ClfPlan
{
  ClfContext *ctx;
  ClfPlanDesc desc;
  Pass *passes;                 /* grown by next_pass */
  int npasses, passes_cap;
  int run_first, run_count;     /* clf_debug_plan_run_passes */
  cl_mem buffers[MAX_BUFFERS];  /* [0], [1] bound per call; then scratch */
  int nbuffers;
  cl_mem tables[MAX_BUFFERS];
  int ntables;
  size_t in_size, out_size;
  char description[512];
  int cpu_scratch[2];           /* clf-plan-cpu.c's shared buffers, 0: none */
  /* clf-plan-cpu.c's chunks: the one new passes work on (-1: none),
   * the transforms each covers (count 0: not a range of them), how many
   * (-1: a pass outside them, or too many), and in how many loops */
  int chunk_now;
  size_t chunk_first[MAX_CHUNKS], chunk_count[MAX_CHUNKS];
  int nchunks, chunk_loops;
};

static Addr
addr_1level (size_t off, size_t stride, size_t dist)
{
  Addr a = { (cl_uint) off, (cl_uint) stride, (cl_uint) dist, 0, 0,
    0xffffffffu, 1
  };
  return a;
}

static void
describe_append (ClfPlan * plan, const char *fmt, ...)
    __attribute__((format (printf, 2, 3)));

static void
describe_append (ClfPlan * plan, const char *fmt, ...)
{
  size_t len = strlen (plan->description);
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (plan->description + len, sizeof (plan->description) - len, fmt,
      ap);
  va_end (ap);
}

static ClfStatus
upload_table (ClfPlan * plan, const float *data, size_t floats, cl_mem * out,
    ClfError * err)
{
  cl_int clerr;
  cl_mem mem;

  if (plan->ntables >= MAX_BUFFERS)
    return clf_set_error (err, CLF_ERROR_UNSUPPORTED, "too many tables");
  mem = clf_context_alloc (plan->ctx, CL_MEM_READ_ONLY, floats * sizeof (float),
      err);
  if (!mem)
    return err ? err->code : CLF_ERROR_OUT_OF_MEMORY;
  clerr = clEnqueueWriteBuffer (clf_context_get_queue (plan->ctx), mem,
      CL_TRUE, 0, floats * sizeof (float), data, 0, NULL, NULL);
  if (clerr != CL_SUCCESS) {
    clReleaseMemObject (mem);
    return clf_set_cl_error (err, clerr, "uploading a twiddle table");
  }
  plan->tables[plan->ntables++] = mem;
  *out = mem;
  return CLF_OK;
}

static int
new_scratch (ClfPlan * plan, size_t bytes, ClfError * err)
{
  cl_mem mem;
  if (plan->nbuffers >= MAX_BUFFERS) {
    clf_set_error (err, CLF_ERROR_UNSUPPORTED, "plan needs too many buffers");
    return -1;
  }
  mem = clf_context_alloc (plan->ctx, CL_MEM_READ_WRITE, bytes, err);
  if (!mem)
    return -1;
  plan->buffers[plan->nbuffers] = mem;
  return plan->nbuffers++;
}

/* First and last stage straight from and to global memory: faster on
 * GPUs, slower on PoCL. CLFFT_DIRECT_IO=0/1 overrides (for comparing). */
static int
direct_io (ClfContext * ctx)
{
  const char *env = getenv ("CLFFT_DIRECT_IO");
  if (env && env[0])
    return env[0] != '0';
  return !clf_context_is_cpu (ctx);
}

/* One float2 of local-memory padding per 16 (CLF_LDS_PAD in fft.cl) for
 * a length-n transform: removes the bank conflicts of the first stages'
 * scatter on GPUs; PoCL has no banks and pays for the extra index
 * arithmetic. Odd lengths have no conflicts to remove (every stride of
 * their exchanges is odd, so a warp's lanes fall in distinct banks), and
 * on the H100 the padding cost them up to 14%: 4095 x16384 took 451-456
 * us padded against 424-427, 1575 x8192 105-107 against 91-93, 3125
 * x4096 116-117 against 101-105; no odd size of thirteen ran more than
 * 1% faster padded.
 * CLFFT_LDS_PAD=0/1 overrides (for comparing, and to test both forms;
 * lds_pad_env: 0 or 1 where set, else -1). */
static int
lds_pad_env (void)
{
  const char *env = getenv ("CLFFT_LDS_PAD");
  return env && env[0] ? env[0] != '0' : -1;
}

static int
lds_pad (ClfContext * ctx, size_t n)
{
  int forced = lds_pad_env ();
  if (forced >= 0)
    return forced;
  return !clf_context_is_cpu (ctx) && n % 2 == 0;
}

/* Whether a padded program's first stage gains more than the padding's
 * index arithmetic costs in every stage: the first stage scatters at a
 * stride of its radix, which hits a bank 4 or more ways where the radix
 * is a multiple of 4 (2 too, unevenly: 1458 = 2x27x27 ran 11% slower
 * unpadded). Plain rows of other first radices (odd, 6, 10, 14) run
 * unpadded: on the H200 at 2^24 points, in five alternating rounds, 90
 * such lengths ran 1.2% faster in the geometric mean (1250 10x5x5x5
 * 1.13x, 650 10x5x13 1.08x; 5 slower by 2-3%, 1400 14x10x10 0.97x) and
 * 35 past 2048 points, with their twiddles as powers (twiddle_defines),
 * 6% (2646 14x7x27 1.13x, 2662 1.14x; 3850 0.97x) (docs/benchmarks.md,
 * "Fortieth session"). Passes with a twiddle or a side across
 * transforms keep it, and so do other kernels than fft_local (the
 * blur's fused lines): not measured unpadded. Rows with a real side
 * (R2C, C2R) take the rule as complex ones do, not measured either.
 * CLFFT_LDS_PAD decides alone where set. */
static int
padding_pays (const char *name, cl_uint flags, unsigned first)
{
  if (lds_pad_env () >= 0 || strcmp (name, "fft_local") ||
      (flags & (PLANAR | PRE_TWIDDLE | POST_TWIDDLE | STORE_BFAST |
              BLUESTEIN_PASS)))
    return 1;
  return first % 4 == 0 || first == 2;
}

int
clf_local_pad (ClfContext * ctx, size_t n)
{
  return lds_pad (ctx, n);
}

/* A thread count from the environment variable name (1 to 4096), else
 * fallback */
static size_t
threads_from_env (const char *name, size_t fallback)
{
  const char *env = getenv (name);
  long v = env ? strtol (env, NULL, 10) : 0;
  return v >= 1 && v <= 4096 ? (size_t) v : fallback;
}

/* Threads per fft_local work-group that batching small transforms aims
 * for; CLFFT_GROUP_THREADS overrides (for tuning). */
static size_t
group_threads (void)
{
  return threads_from_env ("CLFFT_GROUP_THREADS", 256);
}

/* The same for groups read and written as one span (BLOCK_IO): 32-point
 * transforms on the H100 ran 131 us with 256 threads (128 transforms a
 * group), 120 with 64, both with 2 threads each; with 8 threads each
 * (SHORT_BLOCK_THREADS) 128 ran 64-point ones as fast as 64 on the
 * H200 and 32-point ones faster (77-79 us against 82-84). Transforms of
 * 2 points (one thread each) take 128 as well: on the H200 2^24 points
 * ran 76.7 us against 93.1 with 64 (VkFFT 76.5); 3 to 25 points ran
 * level or slower with 128, 256 or 512 than with 64.
 * CLFFT_BLOCK_GROUP_THREADS overrides. */
static size_t
block_group_threads (size_t n, size_t T)
{
  return threads_from_env ("CLFFT_BLOCK_GROUP_THREADS", T >= 8 || n <= 2 ?
      128 : 64);
}

/* Threads a pass should offer a GPU to keep it busy: 128 per compute
 * unit. Widening pays for a handful of transforms (on the H100 1000 x16
 * took 12.4 us widened, 14.6-16.2 not; 1024 x8 13.0 against 14.5) but
 * not for a frame's rows and columns, which 16 values per thread already
 * spread over 20000 threads or more: with 1024 per unit a 1920x1080 frame
 * took 56 us against 44 unwidened, and with 512 a 960x540 R2C frame 24.7
 * against 21.1, 1920x1080 R2C 39.5 against 34.5.
 * CLFFT_MIN_THREADS overrides (0: off). */
static size_t
min_threads (ClfContext * ctx)
{
  const char *env = getenv ("CLFFT_MIN_THREADS");
  cl_uint units = 0;

  if (env)
    return (size_t) strtoul (env, NULL, 10);
  if (clGetDeviceInfo (clf_context_get_device (ctx),
          CL_DEVICE_MAX_COMPUTE_UNITS, sizeof (units), &units,
          NULL) != CL_SUCCESS)
    return 0;
  return (size_t) units * 128;
}

/* More threads per transform than the stages need when there are too few
 * transforms to fill the GPU (a 1920x1080 frame: 1080 rows of 64 threads
 * left most of an H100 idle). The kernel strides its butterflies by T, so
 * any T from the minimum up to the widest stage works. */
static size_t
widen_threads (ClfContext * ctx, size_t n, size_t batch,
    const unsigned *radices, int ns, size_t T, size_t maxwg)
{
  size_t target = min_threads (ctx), widest = 0;

  for (int i = 0; i < ns; i++)
    if (n / radices[i] > widest)
      widest = n / radices[i];
  while (T * batch < target && T < widest) {
    size_t wider = (T * 2 + 31) / 32 * 32;      /* whole warps */
    if (wider > widest)
      wider = widest;
    if (wider > maxwg || wider > group_threads ())
      break;
    T = wider;
  }
  return T;
}

/* float2 slots between transforms in fft_local's local memory: LX (n) | 1 */
static size_t
local_stride (int pad, size_t n)
{
  return (pad ? n + (n >> 4) : n) | 1;
}

/* Forgets an error that a fallback recovers from */
static void
clear_error (ClfError * err)
{
  if (err) {
    err->code = CLF_OK;
    err->message[0] = '\0';
  }
}

/* The next free pass slot, cleared (not counted yet), NULL on error */
static Pass *
next_pass (ClfPlan * plan, ClfError * err)
{
  Pass *p;
  if (plan->npasses >= MAX_PASSES) {
    clf_set_error (err, CLF_ERROR_UNSUPPORTED, "plan needs too many passes");
    return NULL;
  }
  if (plan->npasses == plan->passes_cap) {
    int cap = plan->passes_cap ? 2 * plan->passes_cap : 16;
    Pass *grown = realloc (plan->passes, cap * sizeof (Pass));
    if (!grown) {
      clf_set_error (err, CLF_ERROR_OUT_OF_MEMORY, "host memory");
      return NULL;
    }
    plan->passes = grown;
    plan->passes_cap = cap;
  }
  p = &plan->passes[plan->npasses];
  memset (p, 0, sizeof (*p));
  p->base_arg = -1;
  p->chunk = plan->chunk_now;
  if (p->chunk < 0)
    plan->nchunks = -1;
  return p;
}

/* A pass running one of fft.cl's helper kernels (Bluestein, Hermitian
 * expansion): built without fft_local, whose generic form is slow to
 * compile. */
static Pass *
new_pass (ClfPlan * plan, const char *kernel_name, int src, int dst,
    ClfError * err)
{
  Pass *p = next_pass (plan, err);
  if (!p)
    return NULL;
  p->kernel = clf_context_create_kernel_full (plan->ctx, "fft",
      "-DCLF_HELPERS_ONLY", kernel_name, err);
  if (!p->kernel)
    return NULL;
  p->src = src;
  p->dst = dst;
  plan->npasses++;
  return p;
}

#define SET_ARG(k, i, v) clSetKernelArg (k, i, sizeof (v), &(v))

static int round_work_groups;

void
clf_debug_round_work_groups (int on)
{
  round_work_groups = on;
}

static size_t work_group_cap;

void
clf_debug_cap_work_group (size_t threads)
{
  work_group_cap = threads;
}

static size_t column_limit (ClfContext * ctx);
static int local_radices (size_t n, unsigned *radices);
static size_t local_threads (size_t n, const unsigned *radices, int nstages,
    unsigned values);

/* Whether a group of short transforms should be read and written as one
 * span (BLOCK_IO, CLF_BLOCK_IO in kernels/fft.cl) rather than by each
 * transform's T threads, whose direct reads then fall on as many lines
 * as a warp has transforms. On the H100 (batches of 2^24 points) it
 * took N = 8 from 228 to 106 us, 16 from 311 to 109, 32 from 170 to
 * 132. Since its stages run with neighbouring threads on neighbouring
 * transforms, it also pays for complex 64-point transforms (4 threads):
 * on the H200 89 us against 94-95 read directly (VkFFT 76), but not
 * for real ones (R2C 72-73 against 67-68), nor from 128 points (98-102
 * against 82-84). Since programs of 8 values a thread run 64 points
 * (eight_values_pay) those read directly again. Other lengths of 4
 * threads or more read directly too: on the H200 (2^24 points, us) 36
 * ran 93.3 against 98.3 as a block, 44 89.9 against 100.7, 48 94.7
 * against 97.2, 52 95.0 against 100.3, 56 (8x7, 4 threads instead of 8)
 * 88.5 against 100.1, 60 97.0 against 102.9, and 40 (8x5, 3 threads
 * widened to 8) 81.8-84.5 against 94.5 (VkFFT 76.6, 92.9, 79.3, 109.0,
 * 76.7, 80.6, 78-79). CLFFT_BLOCK_IO=0/1 overrides (for comparing, and to
 * test the form on CPU devices). */
#define SHORT_BLOCK_THREADS 8

static int
block_io_pays (ClfContext * ctx, size_t n, size_t T, unsigned values,
    cl_uint flags)
{
  const char *env = getenv ("CLFFT_BLOCK_IO");
  if (env && env[0])
    return env[0] != '0';
  return direct_io (ctx) && (T < 4 || (n <= 64 && !(n & (n - 1)) &&
          values != 8 && !(flags & (IN_REAL | IN_HERMITIAN | OUT_REAL))));
}

/* Columns that a work-group holds: the most, a power of two up to most,
 * of ls slots each within cap slots of local memory and of T threads
 * each within the usual threads (T = 0: any) */
static size_t
group_columns (size_t ls, size_t cap, size_t T, size_t most)
{
  size_t G = 1;

  while (G < most && 2 * G * ls <= cap && 2 * G * T <= group_threads ())
    G *= 2;
  return G;
}

/* Columns of n points, T threads each, that a work-group holds as float2,
 * up to 16 */
static size_t
columns_per_group (ClfContext * ctx, size_t n, size_t T)
{
  return group_columns (local_stride (0, n),
      clf_context_local_capacity (ctx), T, 16);
}

/* Values one fft_local thread holds per stage (CLF_VALUES in
 * kernels/fft.cl). On GPUs 16: twice the threads with half the registers
 * each ran the H100's batched 1080 23% faster, 3840x2160 15%, 2^24 7%,
 * 1024 and 4096 5%, the 1024-point columns of 2^20 10% and of
 * 1024x1024 9%. But 32 where:
 * - 16 would need more than 256 threads for one transform: NVIDIA
 *   allowed none of those programs more than 256 (2592, 2916, 3240,
 *   3456, 3888, 4000, 4032 and 4095 on the H100), and each such build
 *   cost 0.4-0.6 s before the 32-value one (plain rows count the threads
 *   of the stages they run, fixed_radices', not of local_radices');
 * - plain rows of even length that 32 values take in fewer stages;
 * - long columns (few to a work-group) whose stages would need more
 *   than twice the threads: 1080 = 8x9x15 (120 threads against 40) ran
 *   25% slower with 16;
 * - columns of which 32 values per thread fit more to a work-group: a
 *   column pass reads G x 8 bytes of every row it crosses, and on the
 *   H100 1000x1000 x16 ran 343 -> 263 us with 4 columns of 34 threads
 *   instead of 2 of 67 (VkFFT 230), 1280x720 x16 291 -> 215 (201);
 * - planar columns (their 16-value programs are allowed too few
 *   threads);
 * - odd lengths that the register composites 25 and 27 take in fewer
 *   stages (fixed_radices).
 * PoCL keeps 32. Plain rows of radices up to 8 take 8 (eight_values_pay),
 * 16-point blocks 4 (four_values_pay). CLFFT_THREAD_VALUES=16/32
 * overrides (for comparing), =4 or 8 wherever a program built for one
 * length can hold it (few_value_radices). */
static int fixed_radices (ClfContext * ctx, size_t n, unsigned values,
    cl_uint flags, unsigned *radices);
static int small_radices (size_t n, unsigned values, unsigned *radices);
static int fewest_radices (size_t n, unsigned values, int cutters,
    unsigned *radices);
static int radices_from_env (size_t n, unsigned values, unsigned *radices);
static int fixed_stages_ok (const unsigned *radices, int k, unsigned values);
static int specialize (ClfContext * ctx);

/* Passes other than plain complex rows: across transforms, with
 * four-step twiddles, or real on either side */
#define NOT_PLAIN_ROWS (LOAD_BFAST | STORE_BFAST | PRE_TWIDDLE | \
    POST_TWIDDLE | IN_REAL | IN_HERMITIAN | OUT_REAL)

/* The stages of a program of values (4 or 8) a thread for n, 0 where
 * there is none: only programs built for one length, each stage compiled
 * for its radix, take so few values (the generic program and the planar
 * exchange run radices above 8, whose butterflies they cannot hold) */
static int
few_value_radices (ClfContext * ctx, size_t n, unsigned values,
    cl_uint flags, unsigned *radices)
{
  if (!specialize (ctx) || (flags & (GENERIC | PLANAR)))
    return 0;
  return small_radices (n, values, radices);
}

/* Whether a program of values a thread, T threads a transform, runs
 * as many transforms a work-group as fill one warp: programs of 8 values
 * whose T divides 32 (a barrier then waits for one warp, and none of its
 * lanes idles; transforms_per_group) */
static int
warp_groups (size_t T, unsigned values)
{
  return values == 8 && T <= 32 && 32 % T == 0;
}

/* 8 values per thread, one butterfly of radix 5, 7 or 8 each a stage,
 * for plain rows (programs built for one length, complex in and out, no
 * four-step twiddles, read directly; below 64 points those of 4 threads
 * or more that are no powers of two) whose
 * radices up to 8 take no more stages than the 16-value plan, on at most
 * 256 threads. A stage of radix 5 or 7 then keeps every thread's values
 * busy where 16 values hold 3 or 2 butterflies of 15 or 14, and twice the
 * threads keep more loads in flight. H200, two rounds, us for 2^24 /
 * 2^26 points (VkFFT): 125 94 -> 84 / 326 -> 288-293 (88 / 294), 200
 * 89-91 -> 80-81 / 304-308 -> 273 (85 / 294-296), 320 88-89 -> 83 /
 * 302-308 -> 286 (82 / 285), 343 89 -> 85 / 299-300 -> 287-289 (94-96 /
 * 317), 392 85-87 -> 83 / 291-298 -> 280-286, 448 82 -> 79-81 / 280 ->
 * 270-272, 512 as 8x8x8 83 -> 77 / 278-280 -> 267-268 (75-76 / 271-273),
 * 1225 91-92 -> 88-89 / 313 -> 303, 280 level. 1024 and 2048 in four
 * stages of 8 values ran level or slower than in three of 16
 * (docs/benchmarks.md). From 64 points, and with a stage more where
 * the threads of a transform divide a warp, in groups of one warp
 * (warp_groups), three rounds (VkFFT): 64 as 8x8 85-87 -> 78-80 /
 * 292-296 -> 270-273 (77-79 / 275-279), 80 91-93 -> 80-81 / 316-322 ->
 * 276-280 (77-79 / 284-289), 112 82-84 -> 77-80 / 287-291 -> 270-272
 * (77-79 / 284-287), 128 as 8x8x2 83 -> 78-80 / 284-286 -> 271-278
 * (78-80 / 278-281), 256 as 8x8x4 79-81 -> 77-80 / 277-279 -> 265-270
 * (79 / 276-277). */
static int
eight_values_pay (ClfContext * ctx, size_t n, cl_uint flags)
{
  unsigned r8[CLF_MAX_STAGES], r16[CLF_MAX_STAGES];
  int n8, n16;
  size_t t8;

  if ((n < 64 && !(n & (n - 1))) || (flags & NOT_PLAIN_ROWS) ||
      (n8 = few_value_radices (ctx, n, 8, flags, r8)) == 0)
    return 0;
  t8 = local_threads (n, r8, n8, 8);
  /* Below 64 points, in at most three stages on 4 threads or more, which
   * read them directly (block_io_pays). On the H200 (2^24 points, two
   * rounds, us, against 16 values; VkFFT) 20 ran 78.2-80.6 against
   * 90.7-91.9 (76.0-76.3), 24 76.5 against 91.2-94.4 (77.0), 28
   * 78.1-78.6 against 96.9-99.6 (78.0-78.7), 30 91.6-91.7 against
   * 99.8-99.9 (75.3-75.7), 40 76.4-78.6 against 79.9-81.7 (76.0-76.2), 45
   * 87.2-87.6 against 104.6-104.8 (81.5-81.8), 48 79.0-81.0 against
   * 91.8-92.1 (77.5-78.5), 50 85.8-86.1 against 108.3-108.5 (76.6-77.0),
   * 56 76.4-76.6 against 86.8-86.9 (74.3-74.4), 60 78.5-78.8 against
   * 92.8-94.6 (77.1-77.5), 63 85.0-88.3 against 100.1-100.7 (81.2-81.6),
   * 36 88.6-90.7 against 90.5-91.1 (75.4-75.5). 42 (2x7x3) lost, 93.3-94.0
   * against 85.5-87.9, and 54 in four stages, 93.9-94.2 against
   * 91.5-92.5. */
  if (n < 64)
    return t8 >= 4 && n8 <= 3;
  n16 = fixed_radices (ctx, n, 16, flags, r16);
  /* (not in Bluestein's one pass: 256 there ran 146 us as 16x16 on 16
   * threads against 182 as 8x8x4 on 32, H200, 2^24 points). So do
   * lengths whose 16-value program has fewer than 8 threads a transform,
   * a warp's direct reads spread over 4 transforms or more: of all
   * lengths from 64 points only 75 (15x5 on 5 threads), which on the H200
   * ran 298.0-299.7 us as 5x5x3 on 15 threads against 370.7-371.3 (2^26
   * points, two rounds; VkFFT 279.1). */
  return t8 <= 256 && (n8 <= n16 || local_threads (n, r16, n16, 16) < 8 ||
      (n8 == n16 + 1 && warp_groups (t8, 8) && !(flags & BLUESTEIN_PASS)));
}

/* 16-point complex transforms read as one block (BLOCK_IO) run as 4x4
 * on 4 threads of 4 values, where 16 values gave one thread the whole
 * radix-16 butterfly. H200, three rounds, us for 2^24 / 2^26 points:
 * 82.7-85.3 / 282.8-286.0 -> 76.5-76.9 / 264.9-269.3 (VkFFT 74.8-75.9 /
 * 269.2-271.3). 12 points likewise as 4x3 on 4 threads, read directly
 * (block_io_pays): 76.4-77.5 against 94.1-95.1 on one thread of 16
 * values as a block (VkFFT 76.1-76.6, 2^24 points, two rounds). */
static int
four_values_pay (ClfContext * ctx, size_t n, cl_uint flags)
{
  unsigned r4[CLF_MAX_STAGES];

  if ((flags & NOT_PLAIN_ROWS) || few_value_radices (ctx, n, 4, flags, r4) == 0)
    return 0;
  if (n == 12)
    return direct_io (ctx);
  return n == 16 && (flags & BLOCK_IO) && block_io_pays (ctx, n, 4, 4, flags);
}

/* Short transforms read as one block (BLOCK_IO) where one thread holds
 * each whole, its stages in registers, the block's reads and writes in
 * rounds the program knows (CLF_ONE_THREAD in kernels/fft.cl): below 32 points, on GPUs, but where programs of 4 or
 * 8 values run plain rows in two stages, one of radix 4 or 8 (12 = 4x3,
 * 16 = 4x4, 20 = 4x5, 24 = 8x3, 28 = 4x7: level or 2-7% faster; not 21 =
 * 7x3 and 25 = 5x5, figures below). On the H200 (2^24 points,
 * two rounds, us; VkFFT in the same run) 3 ran 75.5 against 79.4-79.7
 * (76.9), 6 77.1-78.6 against 91.7-91.8 (78.4), 10 80.6-80.8 against
 * 97.5-98.6 (77.9), 11 78.1-78.9 against 88.7-91.0 (76.1), 14 82.5-82.6
 * against 96.8-97.1 (81.3), 18 81.4-83.4 against 94.9-96.8 (86.5), 21
 * 80.6-81.7 against 102.8-104.1 (104.2), 22 81.4-83.6 against
 * 102.4-102.6 (83.9), 25 83.0-83.5 against 93.8-95.8 (77.6), 27
 * 85.1-85.5 against 100.0-102.3 (78.1), 30 86.0-88.1 against 93.5-96.1
 * (78.9); real 10 60.2 against 80.3. Rolled block loops lost much of it
 * (30 101 us), and from 32 points one thread lost (40 92 against 78, 64
 * 97 against 79; 30 points took 80 registers a thread). The stages: the
 * fewest of radices up to 16, the largest first (30 as 15x2 ran 83.0-85.9
 * us against 86.0-89.3 as 2x15 in two runs of two rounds, 290 against 298
 * at 2^26 points; 6 to 26 points within 1-3% either way; CLFFT_RADICES
 * sets them).
 * CLFFT_ONE_THREAD=0 never takes it, =N takes it up to N points wherever
 * the block is read (for comparing). Returns the stages, or 0. */
static int
one_thread_radices (ClfContext * ctx, size_t n, cl_uint flags,
    unsigned *radices)
{
  const char *env = getenv ("CLFFT_ONE_THREAD");
  unsigned r8[CLF_MAX_STAGES];
  int k;

  if (!(flags & BLOCK_IO) || !direct_io (ctx) || !specialize (ctx) ||
      (flags & (BLUESTEIN_PASS | GENERIC | PLANAR)))
    return 0;
  if (env && env[0]) {
    if (n > strtoul (env, NULL, 10))
      return 0;
  } else if (n >= 32 || four_values_pay (ctx, n, flags) ||
      (eight_values_pay (ctx, n, flags) &&
          few_value_radices (ctx, n, 8, flags, r8) == 2 && r8[0] % 4 == 0)) {
    return 0;
  }
  if ((k = radices_from_env (n, 16, radices)) > 0)
    return k;
  return fewest_radices (n, 16, 0, radices);
}

/* The stages and values a thread that the measured table
 * (clf-plan-forms.c) gives plain rows of n in programs built for one
 * length (GPUs; PoCL only where tests ask for GPU programs), where no
 * CLFFT_RADICES or CLFFT_THREAD_VALUES asks for others: their count, or
 * 0. CLFFT_MEASURED_FORMS=0 keeps the rules (for comparing). */
static int
measured_form (ClfContext * ctx, size_t n, cl_uint flags, unsigned *values,
    unsigned *radices)
{
  const char *env = getenv ("CLFFT_MEASURED_FORMS");
  int k;

  if ((env && env[0] == '0') || getenv ("CLFFT_RADICES") ||
      getenv ("CLFFT_THREAD_VALUES") || !specialize (ctx) ||
      (flags & (NOT_PLAIN_ROWS | GENERIC | PLANAR | BLUESTEIN_PASS)) ||
      (k = clf_measured_form (n, values, radices)) <= 0)
    return 0;
  /* as radices_from_env takes them */
  return fixed_stages_ok (radices, k, *values) ? k : 0;
}

static unsigned
thread_values (ClfContext * ctx, size_t n, cl_uint flags)
{
  const char *env = getenv ("CLFFT_THREAD_VALUES");
  unsigned want = env ? (unsigned) atoi (env) : 0;
  unsigned radices[CLF_MAX_STAGES], measured;
  size_t t16, t32;
  int ns, k16, k32;

  if ((want == 4 || want == 8) &&
      few_value_radices (ctx, n, want, flags, radices) > 0)
    return want;
  if (want == 16 || want == 32)
    return want;
  if (measured_form (ctx, n, flags, &measured, radices) > 0)
    return measured;
  if (clf_context_is_cpu (ctx))
    return 32;
  ns = local_radices (n, radices);
  if (ns <= 0)
    return 16;
  t16 = local_threads (n, radices, ns, 16);
  t32 = local_threads (n, radices, ns, 32);
  /* the stages each count runs (radices keeps the 16-value ones) */
  k32 = fixed_radices (ctx, n, 32, flags, radices);
  k16 = fixed_radices (ctx, n, 16, flags, radices);
  if (!(flags & (NOT_PLAIN_ROWS | GENERIC | PLANAR | BLUESTEIN_PASS)) &&
      specialize (ctx)) {
    size_t T16 = local_threads (n, radices, k16, 16);

    /* plain rows by the stages they run, not by their primes: 16 values
     * where those stages fit 256 threads in no more stages than 32
     * values take, 32 where an even length takes fewer stages there. On
     * the H200 (2^24 points, us, VkFFT) 2880 = 16x12x15 ran 97.9 -> 86.4
     * in 16 values (85.1), 2700 102.5 -> 91.1 (99.1), 2520 99.4 -> 89.9
     * (91.6), 2340 105.1 -> 93.4 (91.6); 3750 113.1 as 10x15x5x5 in 32
     * values against 136.2 as 2x15x5x5x5 in 16 (97.8). (25 and 27 in even
     * lengths of 32 values, where they cut a stage, won as often as they
     * lost: 4000 1.21x, 3200 1.16x, 1250 0.87x, 1750 0.91x.) */
    if (n % 2 == 0 && k32 < k16)
      return 32;
    if (T16 <= 256 && k16 <= k32)
      t16 = T16;
  }
  if (t16 > 256)
    return 32;
  /* odd lengths whose stages the composites 25 and 27 cut by two: on
   * the H100 3125 ran 94-97 us as 25x25x5 against 100-102 as 5^5 (16
   * values), 625 as 25x25 130-133 against 134-136; cutting one stage, half
   * the threads lost as often as the stage won (2187 = 27x9x9 126
   * against 132, 675 = 27x25 141 against 147, but 729 = 27x27 88 against
   * 82-86, 1875 = 25x25x3 118-121 against 109-110) */
  if (n % 2 && k32 + 2 <= k16)
    return 32;
  if (eight_values_pay (ctx, n, flags))
    return 8;
  if (four_values_pay (ctx, n, flags))
    return 4;
  if (!(flags & LOAD_BFAST))
    return 16;
  if ((flags & PLANAR) || (n > column_limit (ctx) && t16 > 2 * t32))
    return 32;
  return columns_per_group (ctx, n, t32) > columns_per_group (ctx, n, t16) ?
      32 : 16;
}

/* Butterflies one thread computes per stage (BPT in kernels/fft.cl) */
static size_t
butterflies_per_thread (unsigned radix, unsigned values)
{
  return radix >= 17 ? 1 : radix >= 11 ? values / 16 : values / radix;
}

/* Butterflies each of T threads computes in a stage of radix R of a
 * program built for one length: the fewest that cover the stage. A
 * widened T leaves no loop turns that would find no butterfly. */
static size_t
stage_butterflies (size_t n, unsigned radix, size_t T)
{
  return (n / radix + T - 1) / T;
}

/* Whether a program of one transform a work-group keeps the test of the
 * thread's transform (CLF_LIVE_TESTS in kernels/fft.cl; programs of
 * several always test it): where its T threads fill every round of every
 * stage (no butterfly index to test) and T is 256 or more. Without the
 * test, the only one left, NVIDIA's compiler hoists a stage's loads
 * across butterflies: 8192's planar rows (32x32x8, 256 threads) took 141
 * registers instead of 116, one work-group an SM instead of two, and ran
 * 8192 x8192 in 444-454 us instead of 318-321 on the H200. Smaller
 * groups gain: 3125 (25x25x5, 125 threads) 281-282 us against 317-324 at
 * x21475. 4096 (16x16x16, 256 threads) keeps the test for 1% at most
 * (275-277 against 273). */
static int
keeps_live_tests (size_t n, const unsigned *radices, int nstages, size_t T)
{
  if (T < 256)
    return 0;
  for (int i = 0; i < nstages; i++)
    if (stage_butterflies (n, radices[i], T) * T != n / radices[i])
      return 0;
  return 1;
}

/* Threads one transform needs so that every stage is covered. */
static size_t
local_threads (size_t n, const unsigned *radices, int nstages,
    unsigned values)
{
  size_t t = 1;
  for (int i = 0; i < nstages; i++) {
    size_t per = butterflies_per_thread (radices[i], values);
    size_t need = (n / radices[i] + per - 1) / per;
    if (need > t)
      t = need;
  }
  return t;
}

/* A program specialised per length runs 2-3x faster and costs one build
 * per length, cached on disk. Not on PoCL: its barrier pass (3.1) aborts
 * the process on the unrolled form of some lengths (2025, 12).
 * CLFFT_SPECIALIZE=0 keeps the generic kernel everywhere, =1 specialises
 * on PoCL too (tests of the specialised forms on a CPU). */
static int
specialize (ClfContext * ctx)
{
  const char *env = getenv ("CLFFT_SPECIALIZE");
  if (env && (env[0] == '0' || env[0] == '1'))
    return env[0] == '1';
  return strstr (clf_context_get_platform_name (ctx),
      "Portable Computing Language") == NULL;
}

/* fft_local's stages: clf_factor_radices with pairs of 3s merged into
 * radix 9 and a 3 left with a 5 into 15, register codelets that save a
 * pass through local memory each (1080: 8x3x3x3x5 -> 8x9x15).
 * CLFFT_LOCAL_COMPOSITE=0 keeps the prime stages (for comparing). */
static int
local_radices (size_t n, unsigned *radices)
{
  const char *env = getenv ("CLFFT_LOCAL_COMPOSITE");
  unsigned primes[CLF_MAX_STAGES];
  int ns = clf_factor_radices (n, primes, CLF_MAX_STAGES), out = 0;
  int threes = 0, fives = 0;

  if (ns < 0 || (env && env[0] == '0')) {
    memcpy (radices, primes, (ns > 0 ? ns : 0) * sizeof (unsigned));
    return ns;
  }
  /* powers of two first, then 9s, 15, 3, 5s, then 7 and up, as before */
  for (int i = 0; i < ns; i++) {
    threes += primes[i] == 3;
    fives += primes[i] == 5;
    if (primes[i] % 2 == 0)
      radices[out++] = primes[i];
  }
  for (; threes >= 2; threes -= 2)
    radices[out++] = 9;
  if (threes && fives) {
    radices[out++] = 15;
    threes--;
    fives--;
  }
  if (threes)
    radices[out++] = 3;
  for (; fives; fives--)
    radices[out++] = 5;
  for (int i = 0; i < ns; i++)
    if (primes[i] % 2 && primes[i] >= 7)
      radices[out++] = primes[i];
  return out;
}

/* Stage slots a factorization keeps busy: each of its S stages runs
 * n/R butterflies on T threads, B = butterflies_per_thread each, so
 * S*n values of T * sum (B*R) slots */
static double
stage_efficiency (size_t n, const unsigned *radices, int ns, unsigned values)
{
  size_t T = local_threads (n, radices, ns, values), slots = 0;
  for (int i = 0; i < ns; i++)
    slots += butterflies_per_thread (radices[i], values) * radices[i];
  return (double) ns * n / ((double) T * slots);
}

/* radices that programs built for one length take: 6, 9, 10, 12, 14, 15,
 * 25, 27 and 32 as register composites (fft.cl's DFT_COMPOSITE); those
 * above 16 need 32 values per thread */
static const unsigned fixed_radix_set[] = {
  32, 27, 25, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2
};

#define N_FIXED_RADICES \
    (sizeof (fixed_radix_set) / sizeof (fixed_radix_set[0]))

/* The wider composites 18, 20, 21, 22, 24, 26 and 28 (fft.cl),
 * which only the measured table and CLFFT_RADICES ask for: the rules'
 * search keeps fixed_radix_set, whose plans the sweeps were timed
 * against. */
static const unsigned measured_radix_set[] = {
  28, 26, 24, 22, 21, 20, 18
};

#define N_MEASURED_RADICES \
    (sizeof (measured_radix_set) / sizeof (measured_radix_set[0]))

/* Whether fft.cl runs radix r as a register composite (DFT_COMPOSITE,
 * compiled in with CLF_COMPOSITE_RADICES) */
static int
register_composite (unsigned r)
{
  return r == 6 || r == 9 || r == 10 || r == 12 || r == 14 || r == 15 ||
      r == 25 || r == 27 || r == 32 ||
      clf_holds_radix (measured_radix_set, N_MEASURED_RADICES, r);
}

/* Whether programs of values a thread can run these k stages (the
 * measured table's or CLFFT_RADICES'): radices of fixed_radix_set or
 * measured_radix_set, none above values */
static int
fixed_stages_ok (const unsigned *radices, int k, unsigned values)
{
  for (int i = 0; i < k; i++) {
    int known = clf_holds_radix (fixed_radix_set, N_FIXED_RADICES,
        radices[i]) || clf_holds_radix (measured_radix_set,
        N_MEASURED_RADICES, radices[i]);

    if (!known || radices[i] > values)
      return 0;
  }
  return 1;
}

/* The composites 6 = 2x3 and 14 = 2x7 hold a length's lone factor 2,
 * which otherwise costs a stage of its own (search_radices) */
static int
stage_cutter (unsigned r)
{
  return r == 6 || r == 14;
}

/* Depth-first over non-increasing radices of fixed_radix_set up to most
 * whose product is n, at most max stages, stage_cutter ones only with
 * cutters: the best into best (fewest stages, then the most efficient),
 * its count into *nbest */
static void
search_radices_of (size_t n, unsigned values, unsigned most, int cutters,
    unsigned *cur, int depth, int max, size_t rest, unsigned *best,
    int *nbest, double *best_eff)
{
  if (rest == 1) {
    double eff = stage_efficiency (n, cur, depth, values);
    if (depth < *nbest || (depth == *nbest && eff > *best_eff)) {
      memcpy (best, cur, depth * sizeof (unsigned));
      *nbest = depth;
      *best_eff = eff;
    }
    return;
  }
  if (depth >= max)
    return;
  for (unsigned i = 0; i < N_FIXED_RADICES; i++) {
    unsigned r = fixed_radix_set[i];
    if ((depth > 0 && r > cur[depth - 1]) || rest % r || r > most ||
        (stage_cutter (r) && !cutters))
      continue;
    cur[depth] = r;
    search_radices_of (n, values, most, cutters, cur, depth + 1, max,
        rest / r, best, nbest, best_eff);
  }
}

/* search_radices_of, with the radices 6 and 14 only where they take a
 * stage off (the plans of other lengths stay). On the H200 (2^24
 * points, us, VkFFT) 1470 ran 123.1 as 2x15x7x7 -> 88.9 as 14x15x7
 * (78.8), 2646 146.8 -> 118.6 as 14x9x7x3 (88.0), 2310 122.0 -> 98.8
 * (87.1), 384 91.5 -> 79.2 as 8x8x6 (78.3), 42 101.7 -> 90.5 as 6x7
 * (77.8); of the 93 lengths up to 4096 whose plans changed (with
 * thread_values' and fixed_radices' rules for them) 79 ran more than 2%
 * faster, 2 slower (1960 0.94x, 180 0.97x), 8% in the geometric mean.
 * At as many stages a lone 2 goes with a 7 rather than a 5 (14, not 10):
 * on the H200 3430 ran 113.5 us as 10x7x7x7 and 99.5 as 14x7x7x5, 490
 * 98.7 and 86.4 (10x7x7, 14x7x5), 3850 123.2 and 110.0; of the 11
 * lengths up to 4096 that changed, 9 ran 3-14% faster, 350 and 1120
 * level. */
static void
search_radices (size_t n, unsigned values, unsigned most, unsigned *cur,
    int depth, int max, size_t rest, unsigned *best, int *nbest,
    double *best_eff)
{
  unsigned cut[CLF_MAX_STAGES];
  int ncut = *nbest;
  double cut_eff = *best_eff;

  search_radices_of (n, values, most, 0, cur, depth, max, rest, best, nbest,
      best_eff);
  search_radices_of (n, values, most, 1, cur, depth, max, rest, cut, &ncut,
      &cut_eff);
  /* (where neither search found stages, ncut is the caller's bound) */
  if (ncut < *nbest || (ncut == *nbest && ncut <= max &&
          clf_holds_radix (cut, ncut, 14) &&
          clf_holds_radix (best, *nbest, 10) &&
          !clf_holds_radix (best, *nbest, 14))) {
    memcpy (best, cut, ncut * sizeof (unsigned));
    *nbest = ncut;
    *best_eff = cut_eff;
  }
}

/* radices[] = the n stages of best, the even radices first in their
 * order, then the odd ones; returns n */
static int
even_radices_first (const unsigned *best, int n, unsigned *radices)
{
  int k = 0;
  for (int odd = 0; odd < 2; odd++)
    for (int i = 0; i < n; i++)
      if ((best[i] & 1) == (unsigned) odd)
        radices[k++] = best[i];
  return n;
}

/* The fewest stages of radices up to values that multiply to n, the
 * busiest such, the largest radix first; 0 where there are none. One
 * thread a transform (no stage passes through local memory) takes no
 * radix 6 or 14 (cutters 0): on the H200 6 and 14 ran 77.7 and 81.4 us
 * as 3x2 and 7x2, 78.3 and 83.5 as 6 and 14 (2^24 points). */
static int
fewest_radices (size_t n, unsigned values, int cutters, unsigned *radices)
{
  unsigned cur[CLF_MAX_STAGES];
  double best_eff = 0.0;
  int nbest = CLF_MAX_STAGES + 1;

  if (cutters)
    search_radices (n, values, values, cur, 0, CLF_MAX_STAGES, n, radices,
        &nbest, &best_eff);
  else
    search_radices_of (n, values, values, 0, cur, 0, CLF_MAX_STAGES, n,
        radices, &nbest, &best_eff);
  return nbest > CLF_MAX_STAGES ? 0 : nbest;
}

/* The same, even radices first */
static int
small_radices (size_t n, unsigned values, unsigned *radices)
{
  unsigned best[CLF_MAX_STAGES];
  int nbest = fewest_radices (n, values, 1, best);

  return even_radices_first (best, nbest, radices);
}

/* CLFFT_RADICES=AxBx... (for tuning): those stages, in that order, where
 * they are radices of fixed_radix_set or measured_radix_set that multiply
 * to n. Their count, or 0 (radices untouched) */
static int
radices_from_env (size_t n, unsigned values, unsigned *radices)
{
  unsigned given[CLF_MAX_STAGES];
  int k = clf_radices_from_env ("CLFFT_RADICES", n, given, CLF_MAX_STAGES);

  if (!fixed_stages_ok (given, k, values))
    return 0;
  memcpy (radices, given, k * sizeof (unsigned));
  return k;
}

/* The fewest stages, fewer than ns, of radices up to most that multiply
 * to n (the busiest such factorization into wide), or ns where there are
 * none: composites wider than the usual search's 16 that take a stage
 * off. */
static int
fewer_stages (size_t n, unsigned values, unsigned most, int ns, unsigned *wide)
{
  unsigned cur[CLF_MAX_STAGES];
  int nwide = ns;
  double eff = 0.0;

  search_radices (n, values, most, cur, 0, ns - 1, n, wide, &nwide, &eff);
  return nwide;
}

/* The stages of a planar program (kernels/fft.cl's
 * CLF_PLANAR_EXCHANGE, 32 values per thread) of a power of two: radix 32
 * in registers (4x8) where it takes a stage off local_radices, each of
 * whose exchanges costs four barriers and two passes through local
 * memory. On the H200 2^20 x64's 1024-point columns as 32x32 took 352 us
 * against 431 as 16x8x8, the whole transform 734 against 815 (VkFFT
 * 778); 8192 x2048 as 32x32x8 107 against 118 (VkFFT 118), 8192x8192
 * 892-899 against 944-949 (987). Other lengths keep local_radices. */
static int
planar_radices (size_t n, unsigned values, unsigned *radices, int ns)
{
  unsigned wide[CLF_MAX_STAGES];
  int nwide;

  if ((n & (n - 1)) || values < 32 ||
      (nwide = fewer_stages (n, values, 32, ns, wide)) >= ns)
    return ns;
  memcpy (radices, wide, nwide * sizeof (unsigned));
  return nwide;
}

/* The stages of Bluestein's one pass in programs of 32 values (padded
 * lengths past 4096 points, whose two transforms set its speed): the
 * fewest, with radices up to 32. */
static int
bluestein_radices (size_t n, unsigned values, unsigned *radices, int ns)
{
  unsigned wide[CLF_MAX_STAGES];
  int nwide = fewer_stages (n, values, 32, ns, wide);

  if (nwide >= ns)
    return ns;
  return even_radices_first (wide, nwide, radices);
}

/* The stages of fft_local for a length-n pass with values per thread:
 * local_radices, except in programs built for one length (planar ones:
 * planar_radices) where fewer stages, or stages that keep the threads
 * much busier, are possible with the composites 10 and 12 (and 6 and 14:
 * search_radices). On the H100
 * 1000 = 10x10x10 ran 418-422 -> 378-381 us against 8x5x5x5 (VkFFT 380),
 * 1080 = 12x10x9 464-466 -> 407-408 against 8x9x15 (threads busy 87%
 * against 68%), 2160 = 12x12x15 234-236 -> 221 against 16x9x15; the
 * 1080-point columns of 1920x1080 (32 values: 91% busy) keep 8x9x15,
 * which ran 2-5% faster.
 * Below 256 points the stages stay (but for a lone factor 2, below): a
 * work-group holds several such transforms (3840x2160's 45- and 48-point
 * columns ran no faster). */
static int
fixed_radices (ClfContext * ctx, size_t n, unsigned values, cl_uint flags,
    unsigned *radices)
{
  int ns = local_radices (n, radices), nbest = ns + 1, k = 0;
  unsigned cur[CLF_MAX_STAGES], best[CLF_MAX_STAGES], form[CLF_MAX_STAGES];
  unsigned measured;
  double base_eff, best_eff = 0.0;

  if (ns <= 0 || !specialize (ctx) || (flags & GENERIC))
    return ns;
  if (flags & PLANAR)
    return planar_radices (n, values, radices, ns);
  if ((k = radices_from_env (n, values, radices)) > 0)
    return k;
  if ((k = measured_form (ctx, n, flags, &measured, form)) > 0 &&
      measured == values) {
    memcpy (radices, form, k * sizeof (unsigned));
    return k;
  }
  if ((flags & BLUESTEIN_PASS) && values >= 32)
    return bluestein_radices (n, values, radices, ns);
  if (values < 16)
    return small_radices (n, values, radices);
  /* 1024 = 16x8x8 with its radix 16 last: on the H200 1024 x65536 ran
   * 278-281 us as 8x8x16 against 296-303 (VkFFT 276-278); on the H100
   * level (372-377 against 372-376), the rows of 1024x1024 x16 1% faster.
   * Other passes of 1024 points (real data, across transforms, four-step
   * twiddles) keep their order: not measured. */
  if (ns == 3 && radices[0] == 16 && radices[1] == 8 && radices[2] == 8 &&
      !(flags & NOT_PLAIN_ROWS)) {
    radices[0] = 8;
    radices[2] = 16;
    return ns;
  }
  if (n < 256) {
    /* but plain rows whose lone factor 2 takes a stage of its own take
     * the fewest stages: on the H200 (2^24 points) 150 ran 103.6 us as
     * 2x15x5 and 89.4 as 10x15, 210 106.2 and 85.1 as 14x15, 126 88.5 and
     * 84.0 as 14x9 */
    if (!(flags & NOT_PLAIN_ROWS) && clf_holds_radix (radices, ns, 2) &&
        (k = fewer_stages (n, values, 16, ns, best)) < ns &&
        local_threads (n, best, k, values) <= group_threads ())
      return even_radices_first (best, k, radices);
    return ns;
  }
  for (int i = 0; i < ns; i++)
    if (radices[i] > 16)
      return ns;
  search_radices (n, values, 16, cur, 0, ns, n, best, &nbest, &best_eff);
  /* the composites 25 = 5x5 and 27 = 3x9 in programs of 32 values per
   * thread, where they take a stage off an odd length: on the H100 the
   * 675-point columns of 1215x675 x16 as 27x25 ran 192-193 us against
   * 201-203 as 9x15x5 (VkFFT 198), of 45x675 x512 240-241 against
   * 244-246, and 3645 = 27x27x5 119-121 against 119-122 (9x9x9x5). With
   * no stage fewer they ran slower: 2025 as 25x9x9 119 us against 117
   * (15x15x9), 1575 as 25x9x7 95 against 91-93. Rows of 16 values
   * switch to 32 for them only where that cuts two stages
   * (thread_values). */
  if (n % 2 && values >= 27) {
    unsigned wide[CLF_MAX_STAGES];
    int nwide = fewer_stages (n, values, 27, ns, wide);

    if (nwide < nbest && nwide < ns &&
        local_threads (n, wide, nwide, values) <= group_threads ()) {
      memcpy (best, wide, nwide * sizeof (unsigned));
      nbest = nwide;
    }
  }
  base_eff = stage_efficiency (n, radices, ns, values);
  if (nbest > ns || (nbest == ns && (base_eff >= 0.9 ||
              best_eff <= base_eff + 0.05)) ||
      local_threads (n, best, nbest, values) > group_threads ())
    return ns;
  /* even radices first, as local_radices puts its powers of two: on the
   * H100 2160 ran 218 us as 12x12x15, 243 as 15x12x12 */
  return even_radices_first (best, nbest, radices);
}

/* Whether one fft_local work-group can hold a length-n transform */
int
clf_fits_local_memory (ClfContext * ctx, size_t n)
{
  unsigned radices[CLF_MAX_STAGES];
  int ns = local_radices (n, radices);
  if (ns < 0 ||
      local_stride (lds_pad (ctx, n), n) > clf_context_local_capacity (ctx))
    return 0;
  /* with 32 values per thread, the fewest threads a kernel falls back to */
  return local_threads (n, radices, ns, 32) <=
      clf_context_max_work_group (ctx);
}

int
clf_fits_local (ClfContext * ctx, size_t n)
{
  return n <= clf_context_local_fft_limit (ctx) &&
      clf_fits_local_memory (ctx, n);
}

static int
fits_local (ClfPlan * plan, size_t n)
{
  return clf_fits_local (plan->ctx, n);
}

/* The planar exchange reads and writes directly, in programs built for
 * one length only */
static int
planar_available (ClfContext * ctx)
{
  return direct_io (ctx) && specialize (ctx);
}

/* Whether ax can run as one fft_local pass whose stages pass their
 * values through local memory one component at a time (PLANAR): on GPUs,
 * lengths whose float2 values do not fit local memory but one float per
 * point does (8192 and 6720 with 48 KiB, which otherwise take two passes
 * over global memory), read and written directly, so rows rather than
 * columns. Only in programs built for one length, each stage compiled
 * for its radix: on the H100 8192 x2048 then ran 150 us against 204 in
 * two passes, 6720 141-153 against 179-197 (VkFFT 170); through the
 * stage loop over every radix it had been slower than two passes.
 * CLFFT_PLANAR=0 turns it off; =1 uses it for every length of such a
 * layout that fits (to test the form on CPU devices, with
 * CLFFT_DIRECT_IO=1 and CLFFT_SPECIALIZE=1). */
static int
fits_planar (ClfPlan * plan, const Axis * ax)
{
  ClfContext *ctx = plan->ctx;
  const char *env = getenv ("CLFFT_PLANAR");
  unsigned radices[CLF_MAX_STAGES];
  int ns;

  if (env && env[0] == '0')
    return 0;
  if (!planar_available (ctx) || ax->in.stride != 1 || ax->out.stride != 1)
    return 0;
  if (!(env && env[0] == '1') && clf_fits_local (ctx, ax->n))
    return 0;
  ns = local_radices (ax->n, radices);
  return ns > 0 && local_stride (lds_pad (ctx, ax->n), ax->n) <=
      2 * clf_context_local_capacity (ctx) &&
      local_threads (ax->n, radices, ns, 32) <=
      clf_context_max_work_group (ctx);
}

/* The most columns a work-group's choice of form (planar_columns_pay)
 * counts: 16 for powers of two, 8 for other lengths. Planar programs of
 * powers of two take radix 32 (planar_radices), so 512-point columns
 * hold 16 to a work-group (128 bytes of every row) in one exchange,
 * against 8 as float2 in two: on the H200 2^19 x128's columns (512x1024)
 * took 278 us against 382 and the transform 667 against 701 (VkFFT 667),
 * 512x512 x256 574 against 617 (561), 2048x512 x64 590 against 634
 * (584). Other lengths between 385 and 767 points would turn planar at
 * 16 too, with their two exchanges: not measured. */
static size_t
column_group_most (size_t n)
{
  return (n & (n - 1)) ? 8 : 16;
}

/* Columns of n points that a work-group holds in local memory as float2
 * (at most column_group_most) */
static size_t
float2_column_group (ClfContext * ctx, size_t n)
{
  return group_columns (local_stride (0, n),
      clf_context_local_capacity (ctx), 0, column_group_most (n));
}

/* Columns of n points (stages radices[0..ns)) that a work-group holds
 * through the planar exchange (one float per point, 32 values per
 * thread, at most the usual threads: NVIDIA allows planar programs no
 * more), at most column_group_most */
static size_t
planar_column_group (ClfContext * ctx, size_t n, const unsigned *radices,
    int ns)
{
  return group_columns (local_stride (0, n),
      2 * clf_context_local_capacity (ctx),
      local_threads (n, radices, ns, 32), column_group_most (n));
}

/* Whether a pass of columns (neighbouring transforms adjacent in memory
 * on both sides) should pass its values through local memory one float
 * at a time (PLANAR): where that holds at least 4 columns to a
 * work-group, and more than float2 would. Every row is then read in
 * wider pieces: on the H100 the 1024-point columns of 2^20 (4 -> 8 to a
 * work-group) ran 616 -> 573 us; its program takes longer to build (a
 * cold 2^20 plan 0.83 -> 1.58 s, with the kernel cache empty). Columns
 * of 2048 points (4 as floats, 2 as float2) run in one pass instead of
 * two (add_axis). Not with four stages or more, whose exchanges cost more
 * than the width gains: 1536 = 16x8x4x3 columns took 219 us in one
 * planar pass, 150 in two. CLFFT_PLANAR_COLUMNS=0/1 overrides (for
 * comparing, and to test the form on CPU devices). */
static int
planar_columns_pay (ClfContext * ctx, size_t n, cl_uint flags)
{
  const char *env = getenv ("CLFFT_PLANAR_COLUMNS");
  unsigned radices[CLF_MAX_STAGES];
  int ns;
  size_t G;

  if (!(flags & LOAD_BFAST) || !(flags & STORE_BFAST) || (flags & PLANAR) ||
      !planar_available (ctx) || (ns = local_radices (n, radices)) <= 0)
    return 0;
  if (env && (env[0] == '0' || env[0] == '1'))
    return env[0] == '1';
  G = planar_column_group (ctx, n, radices, ns);
  return G >= 4 && G > float2_column_group (ctx, n) && ns <= 3;
}

/* Lanes a work-group of n threads leaves idle in its last warp, per
 * thousand of its warps' lanes */
static size_t
idle_lanes (size_t n)
{
  size_t lanes = (n + 31) / 32 * 32;
  return (lanes - n) * 1000 / lanes;
}

/* Transforms one work-group runs: several small ones keep the device
 * busy, within local memory and the work-group size. A side that walks
 * across transforms (columns, the four-step rows' transposed store)
 * reads or writes G neighbouring values at a time: at least 4 (32
 * bytes) even past the thread aim. On the H200 3^11 x360's 729-point
 * rows, two to a group (16-byte pieces), took 1060 us of its 1462; with
 * four (as 32 values, the threads NVIDIA allows) the transform ran 917
 * (VkFFT 989), and 100000 x640 as 100x1000 687-698 against 1397.
 * Planar programs keep the aim: NVIDIA allows them fewer threads, and
 * their columns hold 4 or more a group where they pay at all. */
static size_t
transforms_per_group (ClfContext * ctx, size_t n, size_t batch, size_t T,
    size_t ls, size_t maxwg, cl_uint flags, unsigned values)
{
  /* planar exchange: one float per point in local memory */
  size_t capacity = clf_context_local_capacity (ctx) *
      ((flags & PLANAR) ? 2 : 1), G = 1;
  /* One warp of an 8-value program whose transforms' threads divide 32
   * (warp_groups): on the H200 64 x2^20 ran 270-273 us in groups of 4
   * against 273-280 in groups of 8; 80, 128, 192, 224 and 256 within 2%
   * with 64 threads, and 160 (32 threads a transform, 8 to a group
   * before) level with 32, 64 and 128 at 2^26 points but 1-2% slower
   * than before at 2^24. */
  size_t aim = (flags & BLOCK_IO) ? block_group_threads (n, T) :
      warp_groups (T, values) ? threads_from_env ("CLFFT_GROUP_THREADS",
      32) : group_threads ();
  size_t least = ((flags & (LOAD_BFAST | STORE_BFAST)) &&
      !(flags & PLANAR)) ? 4 : 1;

  while (G * 2 <= batch && G * 2 * ls <= capacity
      && G * 2 * T <= maxwg && (G * 2 * T <= aim || G < least))
    G *= 2;
  /* Rows read and written along the transform, two of which make a
   * group, run one to a group where that leaves no more lanes idle, as
   * VkFFT's do: a barrier then waits for one transform's warps.
   * On the H200 (120 threads a transform) 1080 x4096 took 28.9-30.0 us
   * against 30.1-32.8 two to a group (VkFFT 29.8), 1080 x65536 296-300
   * against 308-314 (VkFFT 304). 1000 (100 threads) lost alone, 92.6-94.0
   * against 88.6: a single transform leaves 28 of 128 lanes idle.
   * Halving smaller groups (1024, 512) moved nothing beyond the noise.
   * Column passes keep their groups, whose width is what they read of
   * each row. */
  if (!clf_context_is_cpu (ctx) && G == 2 && 4 * T > aim &&
      !(flags & (LOAD_BFAST | STORE_BFAST | BLOCK_IO | PLANAR)) &&
      idle_lanes (T) <= idle_lanes (2 * T))
    G = 1;
  /* Programs of 8 values with two warps a transform or more run one
   * transform a group: a barrier waits for fewer warps. H200, 2^24 /
   * 2^26 points: 512 79.7 / 267 us against 81.6 / 277 four to a group,
   * 448 78.7 / 272 against 80.7 / 278, 320 82.5 / 289 against 85.1 /
   * 286. With fewer threads a transform one to a group lost (125 94.0
   * against 83.7 us, 200 93.8 against 78.5). */
  if (values == 8 && T >= 64)
    G = 1;
  /* So do Bluestein's one passes of two warps or more: 1024 points (64
   * threads of 16 values) ran 180-184 us against 220-223 four to a
   * group (H200, 2^24 points of 509) */
  if ((flags & BLUESTEIN_PASS) && T >= 64)
    G = 1;
  /* PoCL 3.1 mis-evaluates the kernel's "transform exists" tests after
   * its barriers and writes past the output for the missing transforms of
   * a last, partial work-group: there, every work-group must be full. */
  if (clf_context_is_cpu (ctx))
    while (batch % G)
      G /= 2;
  return G;
}

/* How fft_local's stages get their twiddles (kernels/fft.cl), for a pass
 * with these flags whose stages include a radix 4, 8 or 16 (products) or
 * not:
 * - CLF_TW_TABLE: every twiddle from a table, none as a product of
 *   others. Without a radix 4, 8 or 16 stage the products only cost
 *   registers: on the H100 4095 = 9x5x7x13 ran 222 us with them compiled
 *   in, 182 us without.
 * - CLF_STAGE_TW: programs built for one length read each stage's
 *   twiddles from its own table: on the H100 6720 ran 9% faster than
 *   through the natural table, 4096 and 4095 3%, 2D sizes 2-3%, 1000 and
 *   1024 level. Column and planar passes read only the entries of the
 *   powers of two and multiply them (=2): 1920-point columns 13% faster,
 *   1080-point ones 5%, where rows of 1000 and 3840 ran 2-3% slower that
 *   way (docs/benchmarks.md). Odd lengths n read powers too: their
 *   radix 5 to 15 stages take up to 14 twiddles a butterfly, and of
 *   thirteen odd sizes on the H100, 4095 x16384 ran 410-415 us against
 *   424-427, 3125, 2187, 3969 and 2025x1125 1-5% faster, the rest level.
 *   So do plain rows of up to 2048 points: on the H200 1000 x65536 ran
 *   285-287 us against 296-299, 2048 x32768 274-277 against 283-287,
 *   1920x1080 34.3-36.5 against 35.1-37.0; 512, 1024, 1080, 1536 and 1800
 *   within 1-2% either way, the H100 level throughout. So do longer
 *   rows with fewer than four factors 2 (n % 16 != 0): on the H200 at
 *   2^24 points the 30 that keep their padding ran 3% faster in the
 *   geometric mean (2574 1.07x, 2860 1.06x; 4056 0.98x), and see
 *   padding_pays for the others (docs/benchmarks.md, "Fortieth
 *   session"). Rows of 3840 and 4096 keep the stage tables (4096 x16384
 *   284-286 against 277-282), and so did 2800 (8x14x25: 12% slower).
 * CLFFT_TWIDDLES=stage or =powers takes one stage form for every pass,
 * =products the natural table, =table the natural table and no products
 * (for comparing). */
static const char *
twiddle_defines (cl_uint flags, int products, size_t n)
{
  const char *env = getenv ("CLFFT_TWIDDLES");
  int table = !products || (env && !strcmp (env, "table"));
  int natural = env && (!strcmp (env, "products") || !strcmp (env, "table"));
  int powers = (env && !strcmp (env, "powers")) ||
      (!(env && !strcmp (env, "stage")) &&
      ((flags & (LOAD_BFAST | PLANAR)) || n % 2 || ((n <= 2048 ||
                  n % 16 != 0) &&
              !(flags & (STORE_BFAST | PRE_TWIDDLE | POST_TWIDDLE)))));

  if (natural)
    return table ? "-DCLF_TW_TABLE " : "";
  if (table)
    return powers ? "-DCLF_TW_TABLE -DCLF_STAGE_TW=2 " :
        "-DCLF_TW_TABLE -DCLF_STAGE_TW=1 ";
  return powers ? "-DCLF_STAGE_TW=2 " : "-DCLF_STAGE_TW=1 ";
}

/* Whether a program built for one length names its work-group size
 * (CLF_REQD_WG, reqd_work_group_size), which NVIDIA's compiler then
 * schedules for: planar rows. On the H100 8192 x2048 ran 125-130 us
 * against 132-135 without, in three runs; 8192x8192 moved within its
 * spread (1171-1241 against 1194-1209). Planar columns lost (2^20 x64
 * 950-953 against 936-942), and other programs moved within 1-2% either
 * way (docs/bench/h100-session12-reqd.txt). The plan still asks the
 * device how many threads it allows. CLFFT_REQD_WG=0/1 names it in none
 * / every such program (for comparing). */
static int
name_work_group (cl_uint flags)
{
  const char *env = getenv ("CLFFT_REQD_WG");

  if (env && (env[0] == '0' || env[0] == '1'))
    return env[0] == '1';
  return (flags & PLANAR) && !(flags & LOAD_BFAST);
}

/* stages kernels/fft.cl spells out one by one (CLF_STAGE_0 to _11) */
#define MAX_FIXED_STAGES 12

static ClfStatus
local_kernel_new (ClfContext * ctx, size_t n, size_t batch,
    cl_uint flags, int pad, const char *defines, const char *name,
    unsigned values, ClfLocalKernel * lk, ClfError * err)
{
  int one = one_thread_radices (ctx, n, flags, lk->radices);
  int ns = one ? one : fixed_radices (ctx, n, values, flags, lk->radices);
  size_t T = one ? 1 : local_threads (n, lk->radices, ns, values), T_min = T;
  size_t maxwg = clf_context_max_work_group (ctx), kwg = 0;
  const char *form = "specialised";
  /* (retries below with other values or flags pass pad on: their first
   * radix may differ) */
  int padded = pad && (one || ns <= 0 || padding_pays (name, flags,
          lk->radices[0]));
  size_t ls = local_stride (padded, n);
  cl_kernel kernel = NULL;
  char generic[512], values_def[32];
  int big = 0, composite = 0, products = 0;

  lk->kernel = NULL;
  lk->one_thread = 0;
  lk->nstages = ns;
  lk->codes = 0;
  for (int i = 0; i < ns; i++) {
    /* the primes 17 to 31 of the generic stage loop; 25 and 27 are
     * composites, which only programs built for one length take */
    big |= lk->radices[i] > 16 && !register_composite (lk->radices[i]);
    composite |= register_composite (lk->radices[i]);
    products |= lk->radices[i] == 4 || lk->radices[i] == 8 ||
        lk->radices[i] == 16;
    /* (10 and 12 have no code: only programs built for one length,
     * which do not read the codes, take them) */
    lk->codes |= (cl_ulong) (clf_radix_code (lk->radices[i]) & 15) << (4 * i);
  }
  snprintf (values_def, sizeof (values_def), "-DCLF_VALUES=%u ", values);
  snprintf (generic, sizeof (generic), "%s%s%s%s%s%s%s%s",
      direct_io (ctx) ? "" : "-DCLF_NO_DIRECT_IO ",
      padded ? "-DCLF_LDS_PAD " : "",
      (flags & PLANAR) ? "-DCLF_PLANAR_EXCHANGE " : "",
      big ? "-DCLF_BIG_RADICES " : "",
      composite ? "-DCLF_COMPOSITE_RADICES " : "",
      values != 32 ? values_def : "",
      twiddle_defines (flags, products, n), defines ? defines : "");
  if (ns >= 0 && T > maxwg && values < 32)
    return local_kernel_new (ctx, n, batch, flags, pad, defines, name,
        2 * values, lk, err);
  if (ns < 0 || T > maxwg)
    return clf_set_error (err, CLF_ERROR_UNSUPPORTED,
        "length %zu needs %zu threads per work-group, device allows %zu",
        n, T, maxwg);
  if (one) {
    /* one thread a transform */
  } else if (clf_context_is_cpu (ctx)) {
    /* about two butterflies of the smallest radix per work-item: PoCL
     * vectorises across work-items (rounding this to powers of two, to
     * compile fewer work-group sizes, ran 1.5-1.8x slower) */
    size_t wide = T;
    for (int i = 0; i < ns; i++)
      if ((n / lk->radices[i] + 1) / 2 > wide)
        wide = (n / lk->radices[i] + 1) / 2;
    if (round_work_groups) {
      size_t p2 = 1;
      while (p2 < wide)
        p2 *= 2;
      wide = p2;
    }
    if (wide <= maxwg)
      T = wide;
  } else {
    T = widen_threads (ctx, n, batch, lk->radices, ns, T, maxwg);
  }
  /* CLFFT_LOCAL_THREADS=T (for tuning one-pass plans: it applies to
   * every pass): T threads per transform in programs built for one
   * length, where no stage then needs more than 32 values per thread.
   * On the H100 no T ran 1000, 1080, 1024, 4096 or 4095 more than 3%
   * faster than the defaults. */
  if (getenv ("CLFFT_LOCAL_THREADS") && specialize (ctx) && !one &&
      !(flags & GENERIC)) {
    size_t want = strtoul (getenv ("CLFFT_LOCAL_THREADS"), NULL, 10);
    int ok = want > 0 && want <= maxwg;
    for (int i = 0; ok && i < ns; i++)
      ok = stage_butterflies (n, lk->radices[i], want) * lk->radices[i] <= 32;
    if (ok)
      T = want;
  }
  /* short complex transforms read as one block, of radices up to 8: 8
   * threads each (H200, batches of 2^24 points, us: 32 points with 4
   * threads 84-88, with 8 in groups of 128 threads 77-79, VkFFT 77; 40
   * 120 and 94-110; 64 90-92 and 86-88). 48 = 16x3 lost (95 -> 110):
   * three threads did its radix-16 stage. Those that are no powers of two
   * (40) then read directly (block_io_pays). */
  if ((flags & BLOCK_IO) && !(flags & PLANAR) && n >= 32 && !one &&
      T < SHORT_BLOCK_THREADS && SHORT_BLOCK_THREADS <= maxwg &&
      !getenv ("CLFFT_LOCAL_THREADS") &&
      block_io_pays (ctx, n, T, values, flags)) {
    int ok = 1;
    for (int i = 0; ok && i < ns; i++)
      ok = lk->radices[i] <= 8;
    if (ok)
      T = SHORT_BLOCK_THREADS;
  }
  if ((flags & BLOCK_IO) && ((flags & PLANAR)
          || !block_io_pays (ctx, n, T, values, flags)))
    flags &= ~BLOCK_IO;
  lk->flags = flags;
  lk->G = transforms_per_group (ctx, n, batch, T, ls, maxwg, flags, values);

  if (specialize (ctx) && !(flags & GENERIC)) {
    /* a program for this length: constants instead of run-time values.
     * The generic program is not built at all then: on NVIDIA it takes
     * about 15 s to compile, a specialised one 1-4 s. */
    char fixed[1024];
    size_t kwg_fixed = 0;

    for (;;) {
      int len = snprintf (fixed, sizeof (fixed), "-DCLF_FIXED -DCLF_N=%zuu "
          "-DCLF_NSTAGES=%du -DCLF_T=%zuu -DCLF_G=%zuu -DCLF_CODES=%lluul "
          "-DCLF_FLAGS=%uu %s%s", n, ns, T, lk->G,
          (unsigned long long) lk->codes, flags, generic,
          one ? "-DCLF_ONE_THREAD " : "");
      if (name_work_group (flags))
        len += snprintf (fixed + len, sizeof (fixed) - len,
            "-DCLF_REQD_WG=%zu ", lk->G * T);
      if (lk->G == 1 && keeps_live_tests (n, lk->radices, ns, T))
        len += snprintf (fixed + len, sizeof (fixed) - len,
            "-DCLF_LIVE_TESTS ");
      /* each stage compiled for its radix alone (CLF_STAGE_i in fft.cl) */
      for (int i = 0; i < ns && ns <= MAX_FIXED_STAGES &&
          len < (int) sizeof (fixed); i++)
        len += snprintf (fixed + len, sizeof (fixed) - len,
            " -DCLF_R%d=%u -DCLF_B%d=%zu", i, lk->radices[i], i,
            stage_butterflies (n, lk->radices[i], T));
      /* Bluestein's planar pass turns from the last stage to the first */
      if ((flags & PLANAR) && (flags & BLUESTEIN_PASS) && ns > 0 &&
          len < (int) sizeof (fixed))
        len += snprintf (fixed + len, sizeof (fixed) - len,
            " -DCLF_RL=%u -DCLF_BL=%zu", lk->radices[ns - 1],
            stage_butterflies (n, lk->radices[ns - 1], T));
      kernel = clf_context_create_kernel_full (ctx, "fft", fixed, name, err);
      if (!kernel)
        return err ? err->code : CLF_ERROR_BUILD;
      if (clGetKernelWorkGroupInfo (kernel, clf_context_get_device (ctx),
              CL_KERNEL_WORK_GROUP_SIZE, sizeof (kwg_fixed), &kwg_fixed,
              NULL) != CL_SUCCESS)
        kwg_fixed = 0;
      if (work_group_cap && kwg_fixed > work_group_cap)
        kwg_fixed = work_group_cap;
      if (kwg_fixed >= lk->G * T)
        break;
      if (clf_trace_builds ())
        fprintf (stderr, "clfft: fft_local %zu, %u values: the specialised "
            "program allows %zu threads, needs %zu\n", n, values, kwg_fixed,
            lk->G * T);
      clReleaseKernel (kernel);
      kernel = NULL;
      /* too many registers for that many threads (4095 with 16 values:
       * 455 threads, NVIDIA allows 256): fewer threads holding more */
      if (values < 32)
        return local_kernel_new (ctx, n, batch, flags, pad, defines, name,
            2 * values, lk, err);
      /* the generic planar program took 56 s to build on NVIDIA (8640):
       * the caller takes two passes instead */
      if (flags & PLANAR)
        return clf_set_error (err, CLF_ERROR_UNSUPPORTED, "length %zu: the "
            "planar program allows %zu threads, needs %zu", n, kwg_fixed,
            lk->G * T);
      /* fewer transforms to a work-group, less widening, still
       * specialised: where 90 threads x 4 transforms were planned and
       * NVIDIA allowed 256, the generic program ran 1080 x4096 in 1130-1380
       * us on the H100, this one rebuilt with 2 transforms 35. Each turn
       * asks for fewer threads than the last program allowed. */
      if (kwg_fixed < T_min)
        break;
      if (T > kwg_fixed)
        T = kwg_fixed / 32 * 32 >= T_min ? kwg_fixed / 32 * 32 : T_min;
      while (lk->G > 1 && lk->G * T > kwg_fixed)
        lk->G /= 2;
    }
    /* the generic program, planned anew: its stages are the radices it
     * knows (not 10 or 12) */
    if (!kernel)
      return local_kernel_new (ctx, n, batch, flags | GENERIC, pad, defines,
          name, values, lk, err);
  }
  if (!kernel) {
    /* the generic program, with as many threads as it allows */
    form = "generic";
    kernel = clf_context_create_kernel_full (ctx, "fft", generic, name, err);
    if (!kernel)
      return err ? err->code : CLF_ERROR_BUILD;
    if (clGetKernelWorkGroupInfo (kernel, clf_context_get_device (ctx),
            CL_KERNEL_WORK_GROUP_SIZE, sizeof (kwg), &kwg, NULL) == CL_SUCCESS
        && kwg < maxwg)
      maxwg = kwg;
    if (T > maxwg)
      T = T_min;                /* give up the widening first */
    if (T > maxwg) {
      clReleaseKernel (kernel);
      if (values < 32)
        return local_kernel_new (ctx, n, batch, flags, pad, defines, name,
            2 * values, lk, err);
      return clf_set_error (err, CLF_ERROR_UNSUPPORTED,
          "length %zu needs %zu threads per work-group, the kernel allows "
          "%zu on this device", n, T, maxwg);
    }
    lk->G = transforms_per_group (ctx, n, batch, T, ls, maxwg, flags, values);
  }
  lk->one_thread = one;
  if (one)
    form = "one thread a transform";
  lk->kernel = kernel;
  lk->T = T;
  lk->ls = ls;
  if (clf_trace_builds ())
    fprintf (stderr, "clfft: fft_local %zu: %s, %u values, %zu threads x "
        "%zu transforms\n", n, form, values, T, lk->G);
  return CLF_OK;
}

ClfStatus
clf_local_kernel_new (ClfContext * ctx, size_t n, size_t batch,
    cl_uint flags, int pad, const char *defines, const char *name,
    ClfLocalKernel * lk, ClfError * err)
{
  return local_kernel_new (ctx, n, batch, flags, pad, defines, name,
      thread_values (ctx, n, flags), lk, err);
}

/* The -D defines of one side's batch levels (fft.cl's CLF_IN_ONE_LEVEL,
 * CLF_IN_NB0/NB1 and their CLF_OUT_ twins), appended to buf at len */
static int
append_level_defines (char *buf, size_t size, int len, const char *side,
    const Addr * a, size_t batch)
{
  /* (one level where the batch never reaches the second: b / nb0 = 0) */
  if (batch <= a->nb0)
    return len + snprintf (buf + len, size - len, "-DCLF_%s_ONE_LEVEL ", side);
  return len + snprintf (buf + len, size - len, "-DCLF_%s_NB0=%uu "
      "-DCLF_%s_NB1=%uu ", side, a->nb0, side, a->nb1);
}

/* The -D defines that spare a program built for one length the
 * divisions of its addressing, or make their divisors constants (the
 * batch levels, the R2C store's store_mod, the four-step column's
 * post_div and post_mod where post_n is set), and its unit element
 * strides, into buf; "" for the generic program, which keeps one build
 * for every layout.
 * CLFFT_LAYOUT_DEFINES=0 leaves them out, CLFFT_UNIT_STRIDE=0 the unit
 * strides alone (for comparing). */
static const char *
layout_defines (ClfContext * ctx, const Axis * ax, size_t post_n,
    cl_uint post_div, cl_uint post_mod, cl_uint store_mod, char *buf,
    size_t size)
{
  const char *env = getenv ("CLFFT_LAYOUT_DEFINES");
  const char *unit_env = getenv ("CLFFT_UNIT_STRIDE");
  int len;

  if (!specialize (ctx) || (env && env[0] == '0'))
    return "";
  len = append_level_defines (buf, size, 0, "IN", &ax->in, ax->batch);
  len = append_level_defines (buf, size, len, "OUT", &ax->out, ax->batch);
  if (!unit_env || unit_env[0] != '0') {
    if (ax->in.stride == 1)
      len += snprintf (buf + len, size - len, "-DCLF_IN_UNIT ");
    if (ax->out.stride == 1)
      len += snprintf (buf + len, size - len, "-DCLF_OUT_UNIT ");
  }
  if (store_mod == 1)
    len += snprintf (buf + len, size - len, "-DCLF_STORE_ALL ");
  else
    len += snprintf (buf + len, size - len, "-DCLF_STORE_MOD=%uu ", store_mod);
  if (post_n)
    snprintf (buf + len, size - len, "-DCLF_POST_DIV=%uu -DCLF_POST_MOD=%uu ",
        post_div, post_mod);
  return buf;
}

/* post_n: four-step twiddle w_{post_n}^(n2 * k) on output k, with
 * n2 = (b / post_div) % post_mod for transform b (post_n = 0: none), or
 * on input k where extra_flags has PRE_TWIDDLE.
 * store_mod/step: R2C keeps output k of transform b when
 * b % store_mod + k * store_step < ax->count. */
static ClfStatus
add_local_pass (ClfPlan * plan, const Axis * ax, cl_uint extra_flags,
    size_t post_n, cl_uint post_mod, cl_uint post_div, cl_uint store_mod,
    cl_uint store_step, ClfError * err)
{
  ClfLocalKernel lk;
  size_t T, G, groups;
  cl_ulong codes;
  cl_uint flags = ax->flags | extra_flags;
  cl_uint post_shift = 0;
  cl_mem tw, post_tw;
  cl_uint8 params, in, out;
  /* batch-fastest access when neighbouring transforms are adjacent; those
   * passes rely on the odd stride alone (padding them measured slower on
   * the H200: 1080-point columns 20% slower) */
  int load_bfast = ax->in.stride != 1 && ax->in.d0 == 1;
  int pad = lds_pad (plan->ctx, ax->n) && !load_bfast;
  char layout_buf[384];
  const char *layout;
  size_t ls;
  int ns;
  float *table;
  Pass *p;
  ClfStatus st;

  if (load_bfast)
    flags |= LOAD_BFAST;
  if (ax->bluestein_n)
    flags |= BLUESTEIN_PASS;
  if (ax->out.stride != 1 && ax->out.d0 == 1)
    flags |= STORE_BFAST;
  if (post_n && !(flags & PRE_TWIDDLE))
    flags |= POST_TWIDDLE;
  /* (Bluestein's one pass keeps its transform in local memory between
   * the two; the planar exchange keeps it in registers) */
  if (planar_columns_pay (plan->ctx, ax->n, flags) && !ax->bluestein_n)
    flags |= PLANAR;
  /* contiguous transforms may be read and written as one span */
  if (!load_bfast && !(flags & STORE_BFAST) && ax->in.stride == 1 &&
      ax->out.stride == 1 && !(flags & PLANAR))
    flags |= BLOCK_IO;

  layout = layout_defines (plan->ctx, ax, post_n, post_div, post_mod,
      store_mod, layout_buf, sizeof (layout_buf));
  if (ax->bluestein_n) {
    /* Bluestein's one pass (add_bluestein_one_pass) */
    size_t len = strlen (layout);
    if (layout != layout_buf)
      memcpy (layout_buf, layout, len + 1);
    snprintf (layout_buf + len, sizeof (layout_buf) - len,
        "-DCLF_BLUESTEIN_N=%uu ", ax->bluestein_n);
    layout = layout_buf;
  }
  st = clf_local_kernel_new (plan->ctx, ax->n, ax->batch, flags, pad, layout,
      "fft_local", &lk, err);
  if (st == CLF_ERROR_UNSUPPORTED && (flags & PLANAR) && load_bfast) {
    /* the device allows the planar program too few threads: float2
     * columns, fewer to a work-group */
    clear_error (err);
    flags &= ~PLANAR;
    st = clf_local_kernel_new (plan->ctx, ax->n, ax->batch, flags, pad,
        layout, "fft_local", &lk, err);
  }
  if (st != CLF_OK)
    return st;
  T = lk.T;
  G = lk.G;
  ls = lk.ls;
  ns = lk.nstages;
  codes = lk.codes;
  flags = lk.flags;
  if (!(p = next_pass (plan, err))) {
    clReleaseKernel (lk.kernel);
    return err ? err->code : CLF_ERROR_OUT_OF_MEMORY;
  }
  p->kernel = lk.kernel;
  p->src = ax->src;
  p->dst = ax->dst;
  plan->npasses++;
  groups = (ax->batch + G - 1) / G;

  table = clf_stage_twiddle_table (ax->n, lk.radices, ns);
  if (!table)
    return clf_set_error (err, CLF_ERROR_OUT_OF_MEMORY, "host memory");
  st = upload_table (plan, table, 4 * ax->n, &tw, err);
  free (table);
  if (st != CLF_OK)
    return st;
  post_tw = tw;
  if (post_n) {
    size_t entries = 0;
    unsigned shift = 0;
    table = clf_split_twiddle_table (post_n, &shift, &entries);
    if (!table)
      return clf_set_error (err, CLF_ERROR_OUT_OF_MEMORY, "host memory");
    st = upload_table (plan, table, 2 * entries, &post_tw, err);
    free (table);
    if (st != CLF_OK)
      return st;
    post_shift = shift;
  }
  if (ax->bluestein_n)
    post_tw = ax->table;

  params = (cl_uint8) { {(cl_uint) ax->n, (cl_uint) ns, (cl_uint) T,
          (cl_uint) G, (cl_uint) ax->batch, flags, ax->count,
      post_mod ? post_mod : 1}
  };
  in = addr_to_cl (ax->in);
  out = addr_to_cl (ax->out);
  {
    cl_int e = 0;
    float scale = ax->scale;
    e |= SET_ARG (p->kernel, 2, in);
    e |= SET_ARG (p->kernel, 3, out);
    e |= SET_ARG (p->kernel, 4, params);
    e |= SET_ARG (p->kernel, 5, codes);
    e |= SET_ARG (p->kernel, 6, tw);
    e |= SET_ARG (p->kernel, 7, post_tw);
    e |= SET_ARG (p->kernel, 8, post_shift);
    e |= SET_ARG (p->kernel, 9, store_mod);
    e |= SET_ARG (p->kernel, 10, store_step);
    e |= SET_ARG (p->kernel, 11, scale);
    e |= SET_ARG (p->kernel, 13, post_div);
    /* transforms sit at an odd stride in local memory, in floats when
     * planar */
    e |= clSetKernelArg (p->kernel, 12, G * ls * ((flags & PLANAR) ?
            sizeof (cl_float) : sizeof (cl_float2)), NULL);
    if (e != CL_SUCCESS)
      return clf_set_cl_error (err, e, "clSetKernelArg (fft_local)");
  }
  p->work_dim = 1;
  p->local[0] = G * T;
  p->global[0] = groups * G * T;
  p->transforms = G;

  describe_append (plan, " local(%zu:", ax->n);
  for (int i = 0; i < ns; i++)
    describe_append (plan, "%s%u", i ? "x" : "", lk.radices[i]);
  describe_append (plan, "%s%s%s%s)", (flags & BLOCK_IO) ? ",block" :
      (flags & PLANAR) ? ",planar" : "", lk.one_thread ? ",one thread" : "",
      (flags & PRE_TWIDDLE) ? ",twiddled" : "",
      (flags & GENERIC) ? ",generic" : "");
  return CLF_OK;
}

static ClfStatus add_axis (ClfPlan * plan, const Axis * ax, ClfError * err);

/* Pushes the batch levels of a one level deeper: the new level 0 is
 * (d0, nb0), the old levels 0 and 1 become 1 and 2. */
static int
push_level (Addr * a, cl_uint d0, cl_uint nb0)
{
  if (a->nb0 == 0xffffffffu) {
    a->d1 = a->d0;              /* one level in use */
    a->nb1 = 0xffffffffu;
  } else if (a->nb1 == 0xffffffffu) {
    a->d2 = a->d1;              /* two levels in use */
    a->d1 = a->d0;
    a->nb1 = a->nb0;
  } else {
    return -1;                  /* would need a fourth level */
  }
  a->d0 = d0;
  a->nb0 = nb0;
  return 0;
}

/* Where a pass stands in a transform split into passes through scratch */
typedef enum
{
  SPLIT_FIRST, SPLIT_MIDDLE, SPLIT_LAST
} SplitStep;

/* One pass of a split transform: the first reads the axis's input (with
 * its input flags), the last writes its output (with its output flags,
 * R2C limit and scaling); the others go from scratch to scratch. */
static Axis
split_pass (const Axis * ax, SplitStep step, size_t n, size_t batch,
    Addr in, Addr out, int scratch)
{
  Axis p = *ax;
  p.n = n;
  p.batch = batch;
  p.in = in;
  p.out = out;
  p.src = step == SPLIT_FIRST ? ax->src : scratch;
  p.dst = step == SPLIT_LAST ? ax->dst : scratch;
  p.flags = ax->flags & (step == SPLIT_FIRST ? IN_FLAGS :
      step == SPLIT_LAST ? OUT_FLAGS : 0);
  if (step != SPLIT_LAST) {
    p.count = ALL_ELEMENTS;
    p.scale = 1.0f;
  }
  return p;
}

/* Whether a four-step split with first factor n1 takes its twiddle
 * w_n^(n2 k1) on the input of its second pass (rows k1 of the scratch)
 * rather than on the output of the first (columns n2): where the
 * columns pass through local memory one float at a time (PLANAR), whose
 * registers the twiddles crowd. On the H100 2^20 x64 (1024-point planar
 * columns) ran 968 -> 939-942 us that way, its columns 572 -> 486 and
 * its rows 405 -> 465; r2c 1030 -> 936. Where the columns are float2 the
 * rows lost more than the columns gained: 2^17 x512 758-766 -> 839-849,
 * 16384 x1024 207-214 -> 226-228. CLFFT_FOUR_STEP_TWIDDLE=store/load
 * overrides (for comparing). */
static int
four_step_twiddle_on_load (ClfContext * ctx, size_t n1)
{
  const char *env = getenv ("CLFFT_FOUR_STEP_TWIDDLE");

  if (env && (!strcmp (env, "store") || !strcmp (env, "load")))
    return !strcmp (env, "load");
  return planar_columns_pay (ctx, n1, LOAD_BFAST | STORE_BFAST);
}

/* n = n1 * n2: transforms of length n1 over stride n2, then transforms of
 * length n2, written transposed, with the twiddle w_n^(n2 k1) fused into
 * one of them. */
static ClfStatus
add_four_step (ClfPlan * plan, const Axis * ax, size_t n1, ClfError * err)
{
  size_t n = ax->n, n2 = n / n1;
  int scratch = new_scratch (plan, n * ax->batch * sizeof (cl_float2), err);
  Addr a_in = ax->in, b_out = ax->out;
  Addr a_out = { 0, (cl_uint) n2, 1, (cl_uint) n, 0, (cl_uint) n2,
    0xffffffffu
  };
  Axis a, b;
  ClfStatus st;
  int on_load;

  if (scratch < 0)
    return err ? err->code : CLF_ERROR_OUT_OF_MEMORY;

  /* step 1: element n1' at (n1'*n2 + j2)*stride, transform (j2, batch) */
  a_in.stride = ax->in.stride * n2;
  if (push_level (&a_in, ax->in.stride, n2) < 0)
    return clf_set_error (err, CLF_ERROR_UNSUPPORTED,
        "layout too deep for a four-step transform of %zu", n);
  a = split_pass (ax, SPLIT_FIRST, n1, ax->batch * n2, a_in, a_out, scratch);
  describe_append (plan, " fourstep(%zux%zu)", n1, n2);
  on_load = four_step_twiddle_on_load (plan->ctx, n1);
  st = add_local_pass (plan, &a, 0, on_load ? 0 : n, (cl_uint) n2, 1, 1, 1,
      err);
  if (st != CLF_OK)
    return st;

  /* step 2: rows k1 of the scratch, output index k1 + n1*k2 */
  b_out.stride = ax->out.stride * n1;
  if (push_level (&b_out, ax->out.stride, n1) < 0)
    return clf_set_error (err, CLF_ERROR_UNSUPPORTED,
        "layout too deep for a four-step transform of %zu", n);
  b = split_pass (ax, SPLIT_LAST, n2, ax->batch * n1, addr_1level (0, 1, n2),
      b_out, scratch);
  return add_local_pass (plan, &b, on_load ? PRE_TWIDDLE : 0,
      on_load ? n : 0, (cl_uint) n1, 1, (cl_uint) n1, (cl_uint) n1, err);
}

/* Columns (neighbouring transforms adjacent in memory, at most two batch
 * levels): a four-step whose both steps keep the columns innermost, so
 * every load and store walks rows of adjacent columns. */
static int
is_column_layout (const Addr * a)
{
  return a->stride != 1 && a->d0 == 1 && a->nb0 != 0xffffffffu &&
      a->nb1 == 0xffffffffu;
}

static int force_column_split;

void
clf_debug_force_column_split (int on)
{
  force_column_split = on;
}

/* Whether columns of n points fit one pass, four to a work-group: as
 * float2, or through the planar exchange */
static int
column_pass_fits (ClfContext * ctx, size_t n)
{
  return float2_column_group (ctx, n) >= 4 ||
      planar_columns_pay (ctx, n, LOAD_BFAST | STORE_BFAST);
}

static ClfStatus
add_column_four_step (ClfPlan * plan, const Axis * ax, size_t n1,
    ClfError * err)
{
  size_t n = ax->n, n2 = n / n1, cols = ax->in.nb0;
  int scratch = new_scratch (plan, n * ax->batch * sizeof (cl_float2), err);
  /* step 1: transform (col, n2, rest), element n1 at (n1*n2' + n2)*stride */
  Addr a_in = { ax->in.off, (cl_uint) (ax->in.stride * n2), 1,
    ax->in.stride, ax->in.d1, (cl_uint) cols, (cl_uint) n2
  };
  /* scratch: col + C*(n2 + N2*(k1 + N1*rest)) */
  Addr a_out = { 0, (cl_uint) (cols * n2), 1, (cl_uint) cols,
    (cl_uint) (cols * n), (cl_uint) cols, (cl_uint) n2
  };
  /* step 2: transform (col, k1, rest) over n2, output k1 + N1*k2 */
  Addr b_in = { 0, (cl_uint) cols, 1, (cl_uint) (cols * n2),
    (cl_uint) (cols * n), (cl_uint) cols, (cl_uint) n1
  };
  Addr b_out = { ax->out.off, (cl_uint) (ax->out.stride * n1), ax->out.d0,
    ax->out.stride, ax->out.d1, (cl_uint) cols, (cl_uint) n1
  };
  Axis a, b;
  ClfStatus st;

  if (scratch < 0)
    return err ? err->code : CLF_ERROR_OUT_OF_MEMORY;
  describe_append (plan, " colfourstep(%zux%zu)", n1, n2);

  a = split_pass (ax, SPLIT_FIRST, n1, ax->batch * n2, a_in, a_out, scratch);
  st = add_local_pass (plan, &a, 0, n, (cl_uint) n2, (cl_uint) cols, 1, 1,
      err);
  if (st != CLF_OK)
    return st;

  b = split_pass (ax, SPLIT_LAST, n2, ax->batch * n1, b_in, b_out, scratch);
  return add_local_pass (plan, &b, 0, 0, 0, 1, 1, 1, err);
}

/* Longest transform of which eight fit a work-group's local memory as
 * columns (unpadded, odd stride), reading 64 bytes of every row: the
 * three-step's factors. */
static size_t
column_limit (ClfContext * ctx)
{
  return clf_context_local_capacity (ctx) / 8 - 1;
}

/* Longest factor of a two-pass split: four columns to a work-group, 32
 * bytes of every row. With 16 values per thread 2^19 as 512x1024 ran 23%
 * faster on the H100 than as three passes, 2^20 as 1024x1024 7% (with 32
 * values 2^20 ran 6% slower); 2^21 as 1024x2048, two columns of 2048 to
 * a work-group, ran 1.9x slower. */
static size_t
four_step_limit (ClfContext * ctx)
{
  return clf_context_local_capacity (ctx) / 4 - 1;
}

/* Stages of a four-step pass of n points as add_local_pass plans it,
 * float2: columns (across transforms) or rows (transposed store). Odd
 * columns count the stages of 16 values a thread: as 25x25 and 25x15 (32
 * values) they ran slower than their count says (below). */
static int
four_step_pass_stages (ClfContext * ctx, size_t n, int columns)
{
  cl_uint flags = columns ? LOAD_BFAST | STORE_BFAST : STORE_BFAST;
  unsigned radices[CLF_MAX_STAGES];

  return fixed_radices (ctx, n, columns && n % 2 ? 16 :
      thread_values (ctx, n, flags), flags, radices);
}

/* What a four-step split n1 x n2 gives its passes' strided sides, which
 * read and write G neighbouring values of every row they cross: rows of
 * a multiple of 32 bytes on both passes (n1 and n2 multiples of 4), so
 * that each piece is whole sectors (2), and 8 columns to a work-group on
 * the first pass, 64-byte pieces (1). On the H100 250000 x256 as 400x625
 * took 994-1006 us, its columns (rows of 625 values) 645-650; as 500x500
 * 809-818 (VkFFT 749). 640000 x96 as 800x800 (4 columns of 800) took
 * 1001-1002, as 640x1000 843-849 (VkFFT 841). The H200 pays less for the
 * straddled sectors (250000's columns 463-472 against 395-399) and gains
 * more from rows of 625 as 25x25 (287-298 against 345-390 for rows of
 * 500): there 200000 as 400x500 ran 727-729 against 659 as 320x625, and
 * 300000, 100000 and 150000 lost 2-5%, while 640000, 432000 and 270000
 * won 5-17% (docs/benchmarks.md, nineteenth session). */
static int
four_step_rank (ClfContext * ctx, size_t n1, size_t n2)
{
  /* the second pass's rows, padded, four to a work-group: else two, and
   * 16-byte pieces (360000 x176 as 240x1500: rows 1367-1387 us of the
   * 1720-1746; as 600x600 828) */
  if (4 * local_stride (lds_pad (ctx, n2), n2) >
      clf_context_local_capacity (ctx))
    return -1;
  return (n1 % 4 == 0 && n2 % 4 == 0) * 2 +
      (float2_column_group (ctx, n1) >= 8);
}

/* The first factor (columns) of a four-step split of n, n1 being the most
 * equal one: of the splits whose columns are no longer than the rows,
 * both within four_step_limit, and not planar, the best four_step_rank,
 * then the fewest stages in all, then the most equal. The rank came in
 * the nineteenth session: on the H100 it took 100000 x640 (200x500) 870
 * -> 745-749 us, 432000 x128 (600x720) 881-886 -> 727, 300000 x224
 * (500x600) 1041-1091 -> 849-854, and 150000, 200000, 270000 6-18%
 * faster. Before it, on the H200 (sixteenth session):
 * - 100000 x640 as 160x625 ran 623-633 us against 788-796 as 250x400
 *   (VkFFT 676-752), 150000 as 240x625 706-712 against 825-842, 279936
 *   as 432x648 778-780 against 1028-1034 (VkFFT 914-919), 500000 as
 *   500x1000 783 against 1031-1043 as 625x800 (VkFFT 889); 200000,
 *   250000, 300000, 327680, 331776 and 78732 3-17% faster;
 * - 360000, 196608 and 270000 within 1.5% either way;
 * - powers of two keep their splits (2^18 256x1024: 618-625 against
 *   652-660 as 512x512 with planar columns, 662-679 float2), 2^19
 *   512x1024 (1024x512, columns longer than rows, ran 806-820 against
 *   701-716 before the planar 512);
 * - columns 625 = 25x25 and 375 = 25x15, counted as two stages, lost:
 *   640000 as 625x1024 1018-1022 against 936-949 (800x800), 432000 as
 *   375x1152 867-870 against 720 (640x675);
 * - planar columns, which move the twiddle to the rows, lost too: 320000
 *   as 512x625 810-814 against 724-730 as 400x800. Where every split has
 *   planar columns (2^19, 2^20) the most equal one stays. */
static size_t
four_step_columns (ClfContext * ctx, size_t n, size_t n1)
{
  size_t lim = four_step_limit (ctx), best = 0;
  int best_stages = 0, best_rank = 0;
  const char *env = getenv ("CLFFT_FOUR_STEP_COLUMNS");
  size_t want = env ? strtoul (env, NULL, 10) : 0;

  /* CLFFT_FOUR_STEP_COLUMNS=n1 (for comparing splits) */
  if (want >= 2 && n % want == 0 && n / want <= lim && want <= lim &&
      clf_is_smooth (want) && clf_is_smooth (n / want))
    return want;

  for (size_t d = 2; d * d <= n; d++) {
    size_t e = n / d;
    int stages, rank;

    if (n % d || e > lim || !clf_is_smooth (d) || !clf_is_smooth (e) ||
        planar_columns_pay (ctx, d, LOAD_BFAST | STORE_BFAST))
      continue;
    if ((rank = four_step_rank (ctx, d, e)) < 0)
      continue;
    stages = four_step_pass_stages (ctx, d, 1) +
        four_step_pass_stages (ctx, e, 0);
    /* d grows towards sqrt (n): a later split is the more equal */
    if (!best || rank > best_rank || (rank == best_rank &&
            stages <= best_stages)) {
      best = d;
      best_rank = rank;
      best_stages = stages;
    }
  }
  return best ? best : n1;
}

static int force_three_step;

void
clf_debug_force_three_step (int on)
{
  force_three_step = on;
}

/* Lengths too long for two column-friendly factors (2^24: 4096x4096 ran
 * one 4096-point column per work-group and used 8 of every 32 bytes it
 * read) go as n1 x n2 x n3 in three passes, each with several transforms
 * adjacent in memory. f: the split. One batch level in and out only. */
static int
use_three_step (ClfPlan * plan, const Axis * ax, size_t lim, size_t f[3])
{
  const char *env = getenv ("CLFFT_THREE_STEP");
  size_t cols = column_limit (plan->ctx), n1;

  if (ax->in.nb0 != 0xffffffffu || ax->out.nb0 != 0xffffffffu ||
      (ax->flags & IN_HERMITIAN) || !clf_is_smooth (ax->n))
    return 0;
  if (force_three_step)
    return clf_three_step_split (ax->n, cols, f);
  if (clf_context_is_cpu (plan->ctx) || fits_local (plan, ax->n))
    return 0;
  /* CLFFT_THREE_STEP=0/1 overrides the choice (for comparing) */
  if (env && env[0] == '0')
    return 0;
  n1 = clf_four_step_split (ax->n, lim);
  if (n1 && n1 <= four_step_limit (plan->ctx) &&
      ax->n / n1 <= four_step_limit (plan->ctx) && !(env && env[0] == '1'))
    return 0;
  return clf_three_step_split (ax->n, cols, f);
}

/* n = n1*n2*n3, element j1*n2*n3 + j2*n3 + j3. A: transforms over j1 for
 * each (j2, j3), twiddle w_n^((j2*n3 + j3)*k1). B: over j2 for each
 * (j3, k1), in place, twiddle w_(n2*n3)^(j3*k2). C: over j3 for each
 * (k1, k2), k1 fastest, written to k1 + n1*k2 + n1*n2*k3. A and B read
 * and write rows of adjacent columns; C reads whole rows and writes its
 * neighbouring transforms' outputs side by side. */
static ClfStatus
add_three_step (ClfPlan * plan, const Axis * ax, const size_t f[3],
    ClfError * err)
{
  size_t n = ax->n, n1 = f[0], n2 = f[1], n3 = f[2], m = n2 * n3;
  int scratch = new_scratch (plan, n * ax->batch * sizeof (cl_float2), err);
  const cl_uint inf = 0xffffffffu;
  Addr a_in = { ax->in.off, (cl_uint) (ax->in.stride * m), ax->in.stride,
    ax->in.d0, 0, (cl_uint) m, inf
  };
  Addr a_out = { 0, (cl_uint) m, 1, (cl_uint) n, 0, (cl_uint) m, inf };
  Addr b_io = { 0, (cl_uint) n3, 1, (cl_uint) m, (cl_uint) n, (cl_uint) n3,
    (cl_uint) n1
  };
  Addr c_in = { 0, 1, (cl_uint) m, (cl_uint) n3, (cl_uint) n, (cl_uint) n1,
    (cl_uint) n2
  };
  Addr c_out = { ax->out.off, (cl_uint) (ax->out.stride * n1 * n2),
    ax->out.stride, (cl_uint) (ax->out.stride * n1), ax->out.d0,
    (cl_uint) n1, (cl_uint) n2
  };
  Axis a, b, c;
  ClfStatus st;

  if (scratch < 0)
    return err ? err->code : CLF_ERROR_OUT_OF_MEMORY;
  describe_append (plan, " threestep(%zux%zux%zu)", n1, n2, n3);

  a = split_pass (ax, SPLIT_FIRST, n1, ax->batch * m, a_in, a_out, scratch);
  st = add_local_pass (plan, &a, 0, n, (cl_uint) m, 1, 1, 1, err);
  if (st != CLF_OK)
    return st;

  b = split_pass (ax, SPLIT_MIDDLE, n2, ax->batch * n1 * n3, b_io, b_io,
      scratch);
  st = add_local_pass (plan, &b, 0, m, (cl_uint) n3, 1, 1, 1, err);
  if (st != CLF_OK)
    return st;

  c = split_pass (ax, SPLIT_LAST, n3, ax->batch * n1 * n2, c_in, c_out,
      scratch);
  return add_local_pass (plan, &c, 0, 0, 0, 1, (cl_uint) (n1 * n2),
      (cl_uint) (n1 * n2), err);
}

/* Work-groups of a helper's exact form on gx work-items: the largest
 * divisor of gx up to 256 (254-point transforms: 127), or up to what the
 * device allows */
static size_t
exact_group (ClfPlan * plan, size_t gx)
{
  size_t most = clf_context_max_work_group (plan->ctx);

  return clf_largest_divisor_upto (gx, most < 256 ? most : 256);
}

/* Whether a CPU device runs a helper's exact form (no bounds checks) on
 * gx work-items: gx has a divisor from 8 (PoCL's vector lanes) up for
 * its work-groups */
static int
exact_launch (ClfPlan * plan, size_t gx)
{
  return clf_context_is_cpu (plan->ctx) && exact_group (plan, gx) >= 8;
}

/* A helper pass of gx x gy work-items: the kernel exact (NULL: none),
 * which checks no bounds, where exact_launch allows, else name on gx
 * rounded up to 64 */
static ClfStatus
add_helper_pass (ClfPlan * plan, const char *name, const char *exact,
    int src, int dst, size_t gx, size_t gy, Pass ** out, ClfError * err)
{
  size_t lx = 64;
  Pass *p;

  if (exact && exact_launch (plan, gx))
    lx = exact_group (plan, gx);
  else
    exact = NULL;
  p = new_pass (plan, exact ? exact : name, src, dst, err);
  if (!p)
    return err ? err->code : CLF_ERROR_OPENCL;
  p->work_dim = 2;
  p->local[0] = lx;
  p->local[1] = 1;
  p->global[0] = (gx + lx - 1) / lx * lx;
  p->global[1] = gy;
  p->has_local = 1;
  *out = p;
  return CLF_OK;
}

/* Bluestein in one fft_local pass where the padded transform fits one
 * work-group of a program built for one length (a half spectrum comes in
 * expanded, add_axis): the forward transform of the chirped input stays in
 * local memory for the inverse one, and global memory sees the n inputs
 * and n outputs alone. On the H200 (2^24 points, us) 127 ran 183 against
 * 1117 in the five passes and 221 in two fft_local passes (the filter in
 * the forward pass's stores, the padded transform through global memory
 * between them), 1021 191 against 1080 and 242. Padded lengths whose
 * float2 values do not fit local memory take the planar exchange
 * (BLUESTEIN_PLANAR), rows in and out. CLFFT_BLUESTEIN=five keeps the
 * five passes (for comparing). */
typedef enum
{
  BLUESTEIN_FIVE,
  BLUESTEIN_LOCAL,
  BLUESTEIN_PLANAR
} BluesteinForm;

/* Whether the one pass holds a padded length m in local memory: where
 * plain transforms do, and past their limit (4096 points with 48 KiB)
 * odd lengths of three stages of 32-value programs (bluestein_radices),
 * whose pass costs little more than 4096 points': on the H200 (2^24
 * points, us) 2053 in 4375 (25x25x7) ran 269 against 722 in 4116
 * through the planar exchange and 637 in 8192 (VkFFT 361); even lengths
 * of three stages ran slower, 4608 (32x12x12) 335, 4320 (32x15x9) 369,
 * 5120 (32x32x5) 443, and the planar exchange slower again, 4320 658. */
static int
bluestein_fits_local (ClfPlan * plan, size_t m)
{
  unsigned wide[CLF_MAX_STAGES];

  if (fits_local (plan, m))
    return 1;
  return m % 2 && clf_fits_local_memory (plan->ctx, m) &&
      fewer_stages (m, 32, 32, 4, wide) <= 3;
}

static int
bluestein_one_pass_allowed (ClfPlan * plan, const Axis * ax)
{
  const char *env = getenv ("CLFFT_BLUESTEIN");

  return !clf_plan_cpu_enabled (plan->ctx) && specialize (plan->ctx) &&
      !(ax->flags & IN_HERMITIAN) && !(env && strcmp (env, "five") == 0);
}

static BluesteinForm
bluestein_one_pass_form (ClfPlan * plan, const Axis * ax, size_t m)
{
  const char *planar = getenv ("CLFFT_PLANAR");
  Axis padded = *ax;
  int local;

  if (!bluestein_one_pass_allowed (plan, ax))
    return BLUESTEIN_FIVE;
  padded.n = m;
  local = bluestein_fits_local (plan, m);
  /* (CLFFT_PLANAR=1 takes the planar form where the other fits too) */
  if ((!local || (planar && planar[0] == '1')) && fits_planar (plan, &padded))
    return BLUESTEIN_PLANAR;
  return local ? BLUESTEIN_LOCAL : BLUESTEIN_FIVE;
}

/* The padded length of the one pass, which costs compute alone (0: five
 * passes): where the smooth length m does not fit local memory, the first
 * odd length from 2n - 1 that does (bluestein_fits_local), else a power of two
 * up to ONE_PASS_POWER_OF_TWO times m where the same form takes it. On
 * the H200 (2^24 points, us) 251 in 512 points ran 176 against 319 in
 * 504 (8x9x7), 809 in 2048 231 against 289 in 1620, 97 in 256 234
 * against 247 in 196 (1.31x the points); 151 in 512 279 against 275 in
 * 315 (1.63x), 37 in 128 294 against 175 in 75. Odd lengths of few
 * stages below the limit lost: 97 in 225 (9x5x5) 272, 211 in 441 295 and
 * in 625 (25x25) 298 against 203 in 512, 1201 in 3375 (15x15x15) 343
 * against 274 in 2401. */
#define ONE_PASS_POWER_OF_TWO 1.5
static size_t
bluestein_one_pass_length (ClfPlan * plan, const Axis * ax, size_t m)
{
  BluesteinForm form;
  size_t p2 = 1;

  if (!bluestein_one_pass_allowed (plan, ax))
    return 0;
  form = bluestein_one_pass_form (plan, ax, m);
  if (form != BLUESTEIN_LOCAL)
    for (size_t c = clf_next_smooth (2 * ax->n - 1);
        c <= clf_context_local_capacity (plan->ctx);
        c = clf_next_smooth (c + 1))
      if (c % 2 && bluestein_one_pass_form (plan, ax, c) == BLUESTEIN_LOCAL)
        return c;
  if (form == BLUESTEIN_FIVE)
    return 0;
  while (p2 < m)
    p2 *= 2;
  return p2 <= ONE_PASS_POWER_OF_TWO * m &&
      bluestein_one_pass_form (plan, ax, p2) == form ? p2 : m;
}

/* Bluestein in one fft_local pass of padded length m. The table holds
 * the chirp that multiplies the input, the chirp that multiplies the
 * output and the filter's spectrum; the output is conjugated before its
 * chirp, so a conjugated output takes the chirp conjugated: conj (conj
 * (y) c) = y conj (c). */
static ClfStatus
add_bluestein_one_pass (ClfPlan * plan, const Axis * ax, size_t m,
    BluesteinForm form, ClfError * err)
{
  size_t n = ax->n;
  float *chirp = NULL, *filter = NULL, *table, *out_chirp;
  int conj_out = (ax->flags & CONJ_OUT) != 0;
  Axis one = *ax;
  ClfStatus st;

  if (clf_bluestein_tables (n, m, &chirp, &filter) < 0)
    return clf_set_error (err, CLF_ERROR_OUT_OF_MEMORY, "host memory");
  table = malloc (2 * (2 * n + m) * sizeof (float));
  if (!table) {
    free (chirp);
    free (filter);
    return clf_set_error (err, CLF_ERROR_OUT_OF_MEMORY, "host memory");
  }
  out_chirp = table + 2 * n;
  memcpy (table, chirp, 2 * n * sizeof (float));
  memcpy (table + 4 * n, filter, 2 * m * sizeof (float));
  for (size_t j = 0; j < n; j++) {
    out_chirp[2 * j] = chirp[2 * j];
    out_chirp[2 * j + 1] = conj_out ? -chirp[2 * j + 1] : chirp[2 * j + 1];
  }
  free (chirp);
  free (filter);
  st = upload_table (plan, table, 2 * (2 * n + m), &one.table, err);
  free (table);
  if (st != CLF_OK)
    return st;

  /* input times the chirp, zeros from n on; the forward transform times
   * the filter, conjugated, into the inverse; the output conjugated
   * (unless the caller's is), times the chirp */
  one.n = m;
  one.flags = (ax->flags & ~CONJ_OUT) | (conj_out ? 0 : CONJ_OUT);
  one.count = ax->count < n ? ax->count : (cl_uint) n;
  one.bluestein_n = (cl_uint) n;
  return add_local_pass (plan, &one, form == BLUESTEIN_PLANAR ? PLANAR : 0,
      0, 0, 1, 1, 1, err);
}

/* Any length: a chirp-z transform through a smooth length m >= 2n-1. */
static ClfStatus
add_bluestein (ClfPlan * plan, const Axis * ax, ClfError * err)
{
  size_t n = ax->n, lim = clf_context_local_fft_limit (plan->ctx);
  size_t m = clf_next_smooth (2 * n - 1);
  const char *pre_exact = NULL;
  float *chirp = NULL, *filter = NULL;
  cl_mem chirp_mem, filter_mem;
  cl_uint8 in, out;
  cl_uint un = (cl_uint) n, um, ub = (cl_uint) ax->batch, fl, cnt;
  Axis fwd, inv;
  Pass *p;
  ClfStatus st;
  BluesteinForm form;
  size_t m1;
  int work;

  while (m <= lim * lim && !fits_local (plan, m)
      && !clf_four_step_split (m, lim))
    m = clf_next_smooth (m + 1);
  m1 = bluestein_one_pass_length (plan, ax, m);
  if (m1) {
    size_t described = strlen (plan->description);
    /* CLFFT_BLUESTEIN_M=m, another padded length of the one pass (for
     * tuning) */
    const char *want_env = getenv ("CLFFT_BLUESTEIN_M");
    if (want_env) {
      size_t want = strtoul (want_env, NULL, 10);
      if (want >= 2 * n - 1 && clf_next_smooth (want) == want &&
          bluestein_one_pass_form (plan, ax, want) != BLUESTEIN_FIVE)
        m1 = want;
    }
    form = bluestein_one_pass_form (plan, ax, m1);
    describe_append (plan, " bluestein(%zu->%zu,one pass)", n, m1);
    st = add_bluestein_one_pass (plan, ax, m1, form, err);
    /* the device allows the planar program too few threads: five passes */
    if (st != CLF_ERROR_UNSUPPORTED)
      return st;
    clear_error (err);
    plan->description[described] = '\0';
  }
  if (m > lim * lim)
    return clf_set_error (err, CLF_ERROR_UNSUPPORTED,
        "length %zu is too large for this device", n);
  um = (cl_uint) m;
  if (clf_bluestein_tables (n, m, &chirp, &filter) < 0)
    return clf_set_error (err, CLF_ERROR_OUT_OF_MEMORY, "host memory");
  work = new_scratch (plan, m * ax->batch * sizeof (cl_float2), err);
  if (work < 0) {
    free (chirp);
    free (filter);
    return err ? err->code : CLF_ERROR_OUT_OF_MEMORY;
  }
  describe_append (plan, " bluestein(%zu->%zu)", n, m);
  st = upload_table (plan, chirp, 2 * n, &chirp_mem, err);
  if (st == CLF_OK)
    st = upload_table (plan, filter, 2 * m, &filter_mem, err);
  free (chirp);
  free (filter);
  if (st != CLF_OK)
    return st;

  in = addr_to_cl (ax->in);
  fl = ax->flags & IN_FLAGS;
  /* The exact forms read elements in a row, real or complex, and write
   * the first n of each row of m: the forward transform's first stage
   * takes the rest as zeros (in_extent, CPU passes). */
  if (ax->in.stride == 1 && !(ax->flags & IN_HERMITIAN) &&
      exact_launch (plan, n))
    pre_exact = (ax->flags & IN_REAL) ? "bluestein_premultiply_real_exact" :
        "bluestein_premultiply_exact";
  st = add_helper_pass (plan, "bluestein_premultiply", pre_exact, ax->src,
      work, pre_exact ? n : m, ax->batch, &p, err);
  if (st != CLF_OK)
    return st;
  SET_ARG (p->kernel, 2, in);
  SET_ARG (p->kernel, 3, un);
  SET_ARG (p->kernel, 4, um);
  SET_ARG (p->kernel, 5, ub);
  SET_ARG (p->kernel, 6, fl);
  SET_ARG (p->kernel, 7, chirp_mem);

  fwd = (Axis) {
  m, ax->batch, addr_1level (0, 1, m), addr_1level (0, 1, m), work, work,
        0, ALL_ELEMENTS, 1.0f};
  if (pre_exact)
    fwd.in_extent = un;
  st = add_axis (plan, &fwd, err);
  if (st != CLF_OK)
    return st;

  st = add_helper_pass (plan, "bluestein_pointwise",
      "bluestein_pointwise_exact", work, work, m, ax->batch, &p, err);
  if (st != CLF_OK)
    return st;
  /* arg 0 and 1 are both the work buffer; the kernel reads arg 0 only */
  SET_ARG (p->kernel, 1, um);
  SET_ARG (p->kernel, 2, ub);
  SET_ARG (p->kernel, 3, filter_mem);
  p->dst = -1;

  inv = fwd;
  inv.flags = CONJ_IN | CONJ_OUT;
  inv.in_extent = 0;
  st = add_axis (plan, &inv, err);
  if (st != CLF_OK)
    return st;

  out = addr_to_cl (ax->out);
  fl = ax->flags & OUT_FLAGS;
  cnt = ax->count < un ? ax->count : un;
  /* the exact form writes complex elements in a row */
  st = add_helper_pass (plan, "bluestein_postmultiply",
      ax->out.stride != 1 || (ax->flags & OUT_REAL) ? NULL :
      "bluestein_postmultiply_exact", work, ax->dst, cnt, ax->batch, &p, err);
  if (st != CLF_OK)
    return st;
  SET_ARG (p->kernel, 2, out);
  SET_ARG (p->kernel, 3, um);
  SET_ARG (p->kernel, 4, cnt);
  SET_ARG (p->kernel, 5, ub);
  SET_ARG (p->kernel, 6, fl);
  {
    float scale = ax->scale;
    SET_ARG (p->kernel, 7, scale);
  }
  SET_ARG (p->kernel, 8, chirp_mem);
  return CLF_OK;
}

/* A helper pass that reads the axis's input (kernel arguments 2-4: its
 * layout, length and batch) and writes it packed into new scratch, which
 * the axis reads instead; *p takes the pass's other arguments. */
static ClfStatus
add_repack_pass (ClfPlan * plan, Axis * ax, const char *name, Pass ** p,
    ClfError * err)
{
  int work = new_scratch (plan, ax->n * ax->batch * sizeof (cl_float2), err);
  cl_uint8 in = addr_to_cl (ax->in);
  cl_uint un = (cl_uint) ax->n, ub = (cl_uint) ax->batch;
  ClfStatus st;

  if (work < 0)
    return err ? err->code : CLF_ERROR_OUT_OF_MEMORY;
  st = add_helper_pass (plan, name, NULL, ax->src, work, ax->n, ax->batch, p,
      err);
  if (st != CLF_OK)
    return st;
  SET_ARG ((*p)->kernel, 2, in);
  SET_ARG ((*p)->kernel, 3, un);
  SET_ARG ((*p)->kernel, 4, ub);
  ax->src = work;
  ax->in = addr_1level (0, 1, ax->n);
  return CLF_OK;
}

/* Hermitian input that a single pass cannot read directly: expand it to a
 * full complex signal first. */
static ClfStatus
expand_hermitian (ClfPlan * plan, Axis * ax, ClfError * err)
{
  Pass *p;
  ClfStatus st = add_repack_pass (plan, ax, "hermitian_expand", &p, err);

  if (st == CLF_OK)
    ax->flags &= ~IN_HERMITIAN;
  return st;
}

/* The input extent and multiplier as a pass of their own: the input,
 * zero from the extent on and times the multiplier, packed into scratch
 * for the transform to read instead. */
static ClfStatus
prepare_input (ClfPlan * plan, Axis * ax, ClfError * err)
{
  cl_uint extent = ax->in_extent ? ax->in_extent : (cl_uint) ax->n;
  cl_uint use_mul = ax->multiplier != NULL;
  cl_mem mul = ax->multiplier;
  Pass *p;
  ClfStatus st = add_repack_pass (plan, ax, "input_prepare", &p, err);

  if (st != CLF_OK)
    return st;
  SET_ARG (p->kernel, 5, extent);
  clSetKernelArg (p->kernel, 6, sizeof (cl_mem), use_mul ? &mul : NULL);
  SET_ARG (p->kernel, 7, use_mul);
  ax->in_extent = 0;
  ax->multiplier = NULL;
  return CLF_OK;
}

static ClfStatus
add_axis (ClfPlan * plan, const Axis * ax_in, ClfError * err)
{
  Axis ax = *ax_in;
  size_t lim = clf_context_local_fft_limit (plan->ctx), n1, f[3];
  ClfStatus st;

  /* CPU passes take the input extent, multiplier and output extent into
   * their first and last stages; elsewhere a pass applies the first two
   * and every output is written */
  if (ax.in_extent || ax.multiplier || ax.out_extent) {
    if (clf_plan_cpu_add_axis (plan, &ax, &st, err))
      return st;
    ax.out_extent = 0;
    if ((ax.in_extent || ax.multiplier) &&
        (st = prepare_input (plan, &ax, err)) != CLF_OK)
      return st;
  }

  /* columns too long for four of them in local memory at once read
   * better as two passes of short columns */
  if ((force_column_split || !clf_context_is_cpu (plan->ctx)) &&
      clf_is_smooth (ax.n) &&
      is_column_layout (&ax.in) && ax.in.nb0 == ax.out.nb0 &&
      is_column_layout (&ax.out) && ax.out.d0 == 1 &&
      ax.count == ALL_ELEMENTS && !(ax.flags & (IN_HERMITIAN | OUT_REAL)) &&
      (force_column_split || !column_pass_fits (plan->ctx, ax.n)) &&
      (n1 = clf_four_step_split (ax.n,
              clf_context_local_capacity (plan->ctx) / 8)) != 0)
    return add_column_four_step (plan, &ax, n1, err);

  if (force_three_step && use_three_step (plan, &ax, lim, f))
    return add_three_step (plan, &ax, f, err);

  /* CPU devices: Stockham passes in global memory (clf-plan-cpu.c) */
  if (clf_plan_cpu_add_axis (plan, &ax, &st, err))
    return st;

  if (fits_planar (plan, &ax)) {
    st = add_local_pass (plan, &ax, PLANAR, 0, 0, 1, 1, 1, err);
    /* too few threads allowed for the planar program: two passes */
    if (st != CLF_ERROR_UNSUPPORTED)
      return st;
    clear_error (err);
  }
  if (fits_local (plan, ax.n))
    return add_local_pass (plan, &ax, 0, 0, 0, 1, 1, 1, err);

  if ((ax.flags & IN_HERMITIAN)) {
    st = expand_hermitian (plan, &ax, err);
    if (st != CLF_OK)
      return st;
  }
  if (use_three_step (plan, &ax, lim, f))
    return add_three_step (plan, &ax, f, err);
  if (clf_is_smooth (ax.n) && (n1 = clf_four_step_split (ax.n, lim)) != 0)
    return add_four_step (plan, &ax, four_step_columns (plan->ctx, ax.n, n1),
        err);
  return add_bluestein (plan, &ax, err);
}

/* ---- public API ------------------------------------------------------- */

void
clf_plan_desc_init (ClfPlanDesc * desc, ClfTransformKind kind,
    ClfDirection direction, size_t nx, size_t ny, size_t batch)
{
  memset (desc, 0, sizeof (*desc));
  desc->kind = kind;
  desc->direction = kind == CLF_R2C ? CLF_FORWARD :
      kind == CLF_C2R ? CLF_INVERSE : direction;
  desc->dim = ny ? 2 : 1;
  desc->n[0] = nx;
  desc->n[1] = ny ? ny : 1;
  desc->batch = batch;
}

/* Fills zero fields of a layout with the packed defaults. */
static void
default_layout (ClfLayout * l, size_t row, size_t ny)
{
  if (!l->stride[0])
    l->stride[0] = 1;
  if (!l->stride[1])
    l->stride[1] = row * l->stride[0];
  if (!l->dist)
    l->dist = ny > 1 ? l->stride[1] * ny : row * l->stride[0];
}

static size_t
layout_bytes (const ClfLayout * l, size_t row, size_t ny, size_t batch,
    size_t elem)
{
  return (l->offset + (row - 1) * l->stride[0] + (ny - 1) * l->stride[1] +
      (batch - 1) * l->dist + 1) * elem;
}

static ClfStatus
validate (ClfPlanDesc * d, ClfError * err)
{
  size_t nx = d->n[0], ny, half, in_row, out_row;

  if (d->dim != 1 && d->dim != 2)
    return clf_set_error (err, CLF_ERROR_INVALID_ARG,
        "dimension %u (only 1 and 2)", d->dim);
  if (d->dim == 1)
    d->n[1] = 1;
  ny = d->n[1];
  if (nx < 1 || ny < 1 || d->batch < 1)
    return clf_set_error (err, CLF_ERROR_INVALID_ARG,
        "invalid size %zux%zu batch %zu (all must be >= 1)", nx, ny,
        d->batch);
  if (d->kind != CLF_C2C && d->kind != CLF_R2C && d->kind != CLF_C2R)
    return clf_set_error (err, CLF_ERROR_INVALID_ARG, "unknown kind %d",
        (int) d->kind);
  if (d->direction != CLF_FORWARD && d->direction != CLF_INVERSE)
    return clf_set_error (err, CLF_ERROR_INVALID_ARG, "unknown direction %d",
        (int) d->direction);
  if (d->kind == CLF_R2C)
    d->direction = CLF_FORWARD;
  if (d->kind == CLF_C2R)
    d->direction = CLF_INVERSE;
  if (d->in_extent || d->out_extent || d->in_multiplier) {
    /* 1D: elements along the line; 2D: rows */
    size_t length = d->dim == 1 ? nx : ny;
    size_t bytes = 0;
    if (d->dim == 1 && d->kind != CLF_C2C)
      return clf_set_error (err, CLF_ERROR_INVALID_ARG,
          "input and output extents and input multipliers are for 1D "
          "complex (C2C) transforms and 2D ones only");
    if (d->dim == 2 && (d->in_multiplier || (d->in_extent &&
                d->kind == CLF_C2R)))
      return clf_set_error (err, CLF_ERROR_INVALID_ARG,
          "2D transforms take an output extent, and an input extent "
          "where their input is not a half spectrum, but no multiplier");
    if (d->in_extent > length || d->out_extent > length)
      return clf_set_error (err, CLF_ERROR_INVALID_ARG,
          "extents %zu (input) and %zu (output) beyond the length %zu",
          d->in_extent, d->out_extent, length);
    /* an extent of the whole length is none (and no pass of its own) */
    if (d->in_extent == length)
      d->in_extent = 0;
    if (d->out_extent == length)
      d->out_extent = 0;
    if (d->in_multiplier && (clGetMemObjectInfo (d->in_multiplier,
                CL_MEM_SIZE, sizeof (bytes), &bytes, NULL) != CL_SUCCESS
            || bytes < nx * sizeof (cl_float2)))
      return clf_set_error (err, CLF_ERROR_INVALID_ARG,
          "the input multiplier holds %zu bytes, not %zu complex values",
          bytes, nx);
  }

  half = nx / 2 + 1;
  in_row = d->kind == CLF_C2R ? half : nx;
  out_row = d->kind == CLF_R2C ? half : nx;
  default_layout (&d->in, in_row, ny);
  default_layout (&d->out, out_row, ny);

  /* the kernels index with 32-bit integers */
  if (layout_bytes (&d->in, in_row, ny, d->batch, 1) > 0xffffffffu ||
      layout_bytes (&d->out, out_row, ny, d->batch, 1) > 0xffffffffu ||
      nx * ny * d->batch > 0x7fffffffu)
    return clf_set_error (err, CLF_ERROR_INVALID_ARG,
        "transform %zux%zu batch %zu is too large (more than 2^31 elements)",
        nx, ny, d->batch);
  return CLF_OK;
}

static ClfStatus
build_passes (ClfPlan * plan, ClfError * err)
{
  const ClfPlanDesc *d = &plan->desc;
  size_t nx = d->n[0], ny = d->n[1], half = nx / 2 + 1;
  size_t in_rows = d->in_extent ? d->in_extent : ny;
  size_t out_rows = d->out_extent ? d->out_extent : ny;
  int inverse = d->direction == CLF_INVERSE;
  float scale = d->normalize ? (float) (1.0 / ((double) nx * ny)) : 1.0f;
  Axis rows, cols;
  ClfStatus st;

  if (d->dim == 1) {
    rows = (Axis) {
    nx, d->batch, addr_1level (d->in.offset, d->in.stride[0], d->in.dist),
          addr_1level (d->out.offset, d->out.stride[0], d->out.dist),
          BUF_IN, BUF_OUT, 0, ALL_ELEMENTS, scale};
    if (inverse)
      rows.flags |= CONJ_IN | CONJ_OUT;
    rows.in_extent = (cl_uint) d->in_extent;
    rows.out_extent = (cl_uint) d->out_extent;
    rows.multiplier = d->in_multiplier;
    if (d->kind == CLF_R2C) {
      rows.flags |= IN_REAL;
      rows.count = (cl_uint) half;
    } else if (d->kind == CLF_C2R) {
      rows.flags |= IN_HERMITIAN | OUT_REAL;
    }
    return add_axis (plan, &rows, err);
  }

  /* 2D: batch levels are (row or column, 2D batch). Rows past the input
   * extent are zeros, so the row pass before the columns skips them (and
   * the columns take them as zeros); rows past the output extent are not
   * wanted, so the row pass after the columns skips them. */
  memset (&rows, 0, sizeof (rows));
  memset (&cols, 0, sizeof (cols));
  rows.n = nx;
  cols.in_extent = (cl_uint) d->in_extent;
  cols.out_extent = (cl_uint) d->out_extent;
  rows.scale = 1.0f;
  rows.count = ALL_ELEMENTS;
  cols.n = ny;
  cols.scale = 1.0f;
  cols.count = ALL_ELEMENTS;

  if (d->kind == CLF_C2R) {
    /* inverse columns of the half spectrum into scratch, then real rows */
    int work = new_scratch (plan, half * ny * d->batch * sizeof (cl_float2),
        err);
    if (work < 0)
      return err ? err->code : CLF_ERROR_OUT_OF_MEMORY;
    cols.batch = half * d->batch;
    cols.in = (Addr) {
    (cl_uint) d->in.offset, (cl_uint) d->in.stride[1],
          (cl_uint) d->in.stride[0], (cl_uint) d->in.dist, 0,
          (cl_uint) half, 0xffffffffu};
    cols.out = (Addr) {
    0, (cl_uint) half, 1, (cl_uint) (half * ny), 0, (cl_uint) half,
          0xffffffffu};
    cols.src = BUF_IN;
    cols.dst = work;
    cols.flags = CONJ_IN;
    st = add_axis (plan, &cols, err);
    if (st != CLF_OK)
      return st;
    rows.batch = out_rows * d->batch;
    rows.in = (Addr) {
    0, 1, (cl_uint) half, (cl_uint) (half * ny), 0, (cl_uint) out_rows,
          0xffffffffu};
    rows.out = (Addr) {
    (cl_uint) d->out.offset, (cl_uint) d->out.stride[0],
          (cl_uint) d->out.stride[1], (cl_uint) d->out.dist, 0,
          (cl_uint) out_rows, 0xffffffffu};
    rows.src = work;
    rows.dst = BUF_OUT;
    rows.flags = IN_HERMITIAN | CONJ_OUT | OUT_REAL;
    rows.scale = scale;
    return add_axis (plan, &rows, err);
  }

  rows.batch = in_rows * d->batch;
  rows.in = (Addr) {
  (cl_uint) d->in.offset, (cl_uint) d->in.stride[0],
        (cl_uint) d->in.stride[1], (cl_uint) d->in.dist, 0,
        (cl_uint) in_rows, 0xffffffffu};
  rows.out = (Addr) {
  (cl_uint) d->out.offset, (cl_uint) d->out.stride[0],
        (cl_uint) d->out.stride[1], (cl_uint) d->out.dist, 0,
        (cl_uint) in_rows, 0xffffffffu};
  rows.src = BUF_IN;
  rows.dst = BUF_OUT;
  rows.flags = inverse ? CONJ_IN : 0;
  if (d->kind == CLF_R2C) {
    rows.flags |= IN_REAL;
    rows.count = (cl_uint) half;
  }
  st = add_axis (plan, &rows, err);
  if (st != CLF_OK)
    return st;

  cols.batch = (d->kind == CLF_R2C ? half : nx) * d->batch;
  cols.in = (Addr) {
  (cl_uint) d->out.offset, (cl_uint) d->out.stride[1],
        (cl_uint) d->out.stride[0], (cl_uint) d->out.dist, 0,
        (cl_uint) (d->kind == CLF_R2C ? half : nx), 0xffffffffu};
  cols.out = cols.in;
  cols.src = BUF_OUT;
  cols.dst = BUF_OUT;
  cols.flags = inverse ? CONJ_OUT : 0;
  cols.scale = scale;
  return add_axis (plan, &cols, err);
}

ClfPlan *
clf_plan_new (ClfContext * ctx, const ClfPlanDesc * desc, ClfError * err)
{
  ClfPlan *plan;
  ClfStatus st;
  static const char *kinds[] = { "c2c", "r2c", "c2r" };

  if (!ctx || !desc) {
    clf_set_error (err, CLF_ERROR_INVALID_ARG, "NULL context or description");
    return NULL;
  }
  plan = calloc (1, sizeof (*plan));
  if (!plan) {
    clf_set_error (err, CLF_ERROR_OUT_OF_MEMORY, "host memory");
    return NULL;
  }
  plan->ctx = clf_context_ref (ctx);
  plan->desc = *desc;
  plan->nbuffers = BUF_SCRATCH;
  plan->chunk_now = -1;
  st = validate (&plan->desc, err);
  if (st != CLF_OK)
    goto fail;
  /* the plan's reference to the multiplier, released with its tables */
  if (plan->desc.in_multiplier) {
    clRetainMemObject (plan->desc.in_multiplier);
    plan->tables[plan->ntables++] = plan->desc.in_multiplier;
  }
  snprintf (plan->description, sizeof (plan->description),
      "%s %s %zux%zu batch %zu:", kinds[plan->desc.kind],
      plan->desc.direction == CLF_INVERSE ? "inverse" : "forward",
      plan->desc.n[0], plan->desc.n[1], plan->desc.batch);
  if (plan->desc.in_extent)
    describe_append (plan, " input<%zu", plan->desc.in_extent);
  if (plan->desc.in_multiplier)
    describe_append (plan, " multiplied");
  if (plan->desc.out_extent)
    describe_append (plan, " output<%zu", plan->desc.out_extent);
  {
    size_t nx = plan->desc.n[0], ny = plan->desc.n[1], half = nx / 2 + 1;
    ClfTransformKind k = plan->desc.kind;
    plan->in_size = layout_bytes (&plan->desc.in, k == CLF_C2R ? half : nx,
        ny, plan->desc.batch, k == CLF_R2C ? sizeof (float) :
        sizeof (cl_float2));
    plan->out_size = layout_bytes (&plan->desc.out, k == CLF_R2C ? half : nx,
        ny, plan->desc.batch, k == CLF_C2R ? sizeof (float) :
        sizeof (cl_float2));
  }
  st = build_passes (plan, err);
  if (st != CLF_OK)
    goto fail;
  return plan;

fail:
  clf_plan_free (plan);
  return NULL;
}

void
clf_plan_free (ClfPlan * plan)
{
  if (!plan)
    return;
  for (int i = 0; i < plan->npasses; i++)
    if (plan->passes[i].kernel)
      clReleaseKernel (plan->passes[i].kernel);
  free (plan->passes);
  for (int i = BUF_SCRATCH; i < plan->nbuffers; i++)
    clReleaseMemObject (plan->buffers[i]);
  for (int i = 0; i < plan->ntables; i++)
    clReleaseMemObject (plan->tables[i]);
  clf_context_unref (plan->ctx);
  free (plan);
}

/* Binds the caller's buffers, after checking their sizes */
static ClfStatus
bind_buffers (ClfPlan * plan, cl_mem in, cl_mem out, ClfError * err)
{
  size_t in_bytes = 0, out_bytes = 0;

  if (!plan || !in || !out)
    return clf_set_error (err, CLF_ERROR_INVALID_ARG, "NULL plan or buffer");
  clGetMemObjectInfo (in, CL_MEM_SIZE, sizeof (in_bytes), &in_bytes, NULL);
  clGetMemObjectInfo (out, CL_MEM_SIZE, sizeof (out_bytes), &out_bytes, NULL);
  if (in_bytes < plan->in_size || out_bytes < plan->out_size)
    return clf_set_error (err, CLF_ERROR_INVALID_ARG,
        "buffers too small: input %zu < %zu or output %zu < %zu bytes",
        in_bytes, plan->in_size, out_bytes, plan->out_size);
  plan->buffers[BUF_IN] = in;
  plan->buffers[BUF_OUT] = out;
  return CLF_OK;
}

/* Enqueues the plan's passes from *next on while they work on chunk
 * (-1: every pass), leaving *next at the first that does not */
static ClfStatus
enqueue_passes (ClfPlan * plan, int *next, int chunk, ClfError * err)
{
  cl_command_queue q = clf_context_get_queue (plan->ctx);

  for (; *next < plan->npasses; (*next)++) {
    int i = *next;
    Pass *p = &plan->passes[i];
    cl_int e;
    if (chunk >= 0 && p->chunk != chunk)
      break;
    if (plan->run_count > 0 && (i < plan->run_first ||
            i >= plan->run_first + plan->run_count))
      continue;
    e = SET_ARG (p->kernel, 0, plan->buffers[p->src]);
    if (p->dst >= 0)
      e |= SET_ARG (p->kernel, 1, plan->buffers[p->dst]);
    if (p->base_arg >= 0)
      e |= clSetKernelArg (p->kernel, p->base_arg, sizeof (p->base), p->base);
    if (e != CL_SUCCESS)
      return clf_set_cl_error (err, e, "clSetKernelArg");
    e = clEnqueueNDRangeKernel (q, p->kernel, p->work_dim,
        p->has_offset ? p->offset : NULL, p->global, p->local, 0, NULL, NULL);
    if (e != CL_SUCCESS)
      return clf_set_cl_error (err, e, "clEnqueueNDRangeKernel");
  }
  return CLF_OK;
}

ClfStatus
clf_plan_enqueue (ClfPlan * plan, cl_mem in, cl_mem out, ClfError * err)
{
  int next = 0;
  ClfStatus st = bind_buffers (plan, in, out, err);

  return st != CLF_OK ? st : enqueue_passes (plan, &next, -1, err);
}

/* Whether the two plans run in the same chunks, one loop of them each
 * (one axis), every pass in one, and each a range of the transforms */
static int
same_chunks (const ClfPlan * a, const ClfPlan * b)
{
  if (a->chunk_loops != 1 || b->chunk_loops != 1 || a->nchunks <= 1 ||
      a->nchunks != b->nchunks)
    return 0;
  for (int c = 0; c < a->nchunks; c++)
    if (!a->chunk_count[c] || a->chunk_first[c] != b->chunk_first[c] ||
        a->chunk_count[c] != b->chunk_count[c])
      return 0;
  return 1;
}

/* CLFFT_PAIRS=0 runs pairs one plan after the other (for comparing) */
int
clf_debug_plans_pair (ClfPlan * first, ClfPlan * second)
{
  const char *env = getenv ("CLFFT_PAIRS");

  return (!env || env[0] != '0') && same_chunks (first, second) &&
      !first->run_count && !second->run_count;
}

static size_t
buffer_bytes (cl_mem mem)
{
  size_t bytes = 0;
  clGetMemObjectInfo (mem, CL_MEM_SIZE, sizeof (bytes), &bytes, NULL);
  return bytes;
}

/* The caller's work before or after the transforms [from, from + count) */
static ClfStatus
run_hook (ClfChunkFunc hook, size_t from, size_t count, void *data,
    ClfError * err)
{
  return hook ? hook (from, count, data, err) : CLF_OK;
}

ClfStatus
clf_plan_enqueue_pair (ClfPlan * first, cl_mem in1, cl_mem out1,
    ClfPlan * second, cl_mem in2, cl_mem out2, ClfChunkFunc before,
    ClfChunkFunc after, void *data, ClfError * err)
{
  int next1 = 0, next2 = 0;
  cl_mem own[2];
  ClfStatus st;

  if (!first || !second)
    return clf_set_error (err, CLF_ERROR_INVALID_ARG, "NULL plan");
  if (!clf_debug_plans_pair (first, second)) {
    size_t all = first->desc.batch;
    if ((st = run_hook (before, 0, all, data, err)) != CLF_OK ||
        (st = clf_plan_enqueue (first, in1, out1, err)) != CLF_OK ||
        (st = clf_plan_enqueue (second, in2, out2, err)) != CLF_OK)
      return st;
    return run_hook (after, 0, all, data, err);
  }
  if ((st = bind_buffers (first, in1, out1, err)) != CLF_OK ||
      (st = bind_buffers (second, in2, out2, err)) != CLF_OK)
    return st;
  /* second works in first's scratch buffers, which the chunk it follows
   * left in the caches: the pair's footprint is one plan's */
  for (int i = 0; i < 2; i++) {
    int a = first->cpu_scratch[i], b = second->cpu_scratch[i];
    own[i] = NULL;
    if (a > 0 && b > 0 && buffer_bytes (first->buffers[a]) >=
        buffer_bytes (second->buffers[b])) {
      own[i] = second->buffers[b];
      second->buffers[b] = first->buffers[a];
    }
  }
  for (int c = 0; c < first->nchunks && st == CLF_OK; c++) {
    size_t from = first->chunk_first[c], count = first->chunk_count[c];
    if ((st = run_hook (before, from, count, data, err)) == CLF_OK &&
        (st = enqueue_passes (first, &next1, c, err)) == CLF_OK &&
        (st = enqueue_passes (second, &next2, c, err)) == CLF_OK)
      st = run_hook (after, from, count, data, err);
  }
  for (int i = 0; i < 2; i++)
    if (own[i])
      second->buffers[second->cpu_scratch[i]] = own[i];
  return st;
}

void
clf_plan_begin_chunks (ClfPlan * plan)
{
  plan->chunk_loops++;
}

void
clf_plan_set_chunk (ClfPlan * plan, size_t from, size_t count)
{
  if (plan->nchunks < 0 || plan->nchunks == MAX_CHUNKS) {
    plan->nchunks = -1;
    plan->chunk_now = -1;
    return;
  }
  plan->chunk_first[plan->nchunks] = from;
  plan->chunk_count[plan->nchunks] = count;
  plan->chunk_now = plan->nchunks++;
}

void
clf_plan_end_chunks (ClfPlan * plan)
{
  plan->chunk_now = -1;
}

int
clf_debug_plan_passes (ClfPlan * plan)
{
  return plan->npasses;
}

void
clf_debug_plan_run_passes (ClfPlan * plan, int first, int count)
{
  plan->run_first = first;
  plan->run_count = count;
}

size_t
clf_debug_plan_pass_transforms (ClfPlan * plan, int pass)
{
  return pass >= 0 && pass < plan->npasses ? plan->passes[pass].transforms :
      0;
}

size_t
clf_debug_plan_pass_thread_limit (ClfPlan * plan, int pass)
{
  size_t limit = 0;

  if (pass < 0 || pass >= plan->npasses ||
      clGetKernelWorkGroupInfo (plan->passes[pass].kernel,
          clf_context_get_device (plan->ctx), CL_KERNEL_WORK_GROUP_SIZE,
          sizeof (limit), &limit, NULL) != CL_SUCCESS)
    return 0;
  return limit;
}

const char *
clf_plan_describe (ClfPlan * plan)
{
  return plan->description;
}

size_t
clf_plan_input_size (ClfPlan * plan)
{
  return plan->in_size;
}

size_t
clf_plan_output_size (ClfPlan * plan)
{
  return plan->out_size;
}

/* ---- for the CPU planner (clf-plan-private.h) ----------------------------- */

ClfContext *
clf_plan_get_context (ClfPlan * plan)
{
  return plan->ctx;
}

ClfStatus
clf_plan_add_launch (ClfPlan * plan, cl_kernel kernel, int src, int dst,
    const size_t global[2], const size_t local[2], const size_t offset[2],
    const size_t base[2], ClfError * err)
{
  Pass *p = next_pass (plan, err);
  if (!p)
    return err ? err->code : CLF_ERROR_UNSUPPORTED;
  clRetainKernel (kernel);
  p->kernel = kernel;
  p->src = src;
  p->dst = dst;
  p->work_dim = 2;
  p->global[0] = global[0];
  p->global[1] = global[1];
  p->local[0] = local[0];
  p->local[1] = local[1];
  p->has_local = 1;
  if (offset) {
    p->offset[0] = offset[0];
    p->offset[1] = offset[1];
    p->has_offset = 1;
  }
  if (base) {
    cl_uint nargs = 0;
    cl_int e = clGetKernelInfo (kernel, CL_KERNEL_NUM_ARGS, sizeof (nargs),
        &nargs, NULL);
    if (e != CL_SUCCESS || nargs < 3) {
      clReleaseKernel (kernel);
      return clf_set_cl_error (err, e != CL_SUCCESS ? e : CL_INVALID_KERNEL,
          "clGetKernelInfo (CL_KERNEL_NUM_ARGS)");
    }
    p->base[0] = (cl_uint) base[0];
    p->base[1] = (cl_uint) base[1];
    p->base_arg = (int) nargs - 1;
  }
  plan->npasses++;
  return CLF_OK;
}

/* Scratch slot 0 or 1 shared by all CPU axes of the plan (they run one
 * after the other), grown to the largest size asked for. */
int
clf_plan_shared_scratch (ClfPlan * plan, int slot, size_t bytes,
    ClfError * err)
{
  int id = plan->cpu_scratch[slot];
  size_t have = 0;
  cl_mem mem;

  if (!id) {
    id = new_scratch (plan, bytes, err);
    if (id > 0)
      plan->cpu_scratch[slot] = id;
    return id;
  }
  clGetMemObjectInfo (plan->buffers[id], CL_MEM_SIZE, sizeof (have), &have,
      NULL);
  if (have >= bytes)
    return id;
  /* passes name buffers by id: the earlier ones take the larger one too */
  mem = clf_context_alloc (plan->ctx, CL_MEM_READ_WRITE, bytes, err);
  if (!mem)
    return -1;
  clReleaseMemObject (plan->buffers[id]);
  plan->buffers[id] = mem;
  return id;
}

cl_mem
clf_plan_add_table (ClfPlan * plan, const float *data, size_t floats,
    ClfError * err)
{
  cl_mem mem = NULL;
  return upload_table (plan, data, floats, &mem, err) == CLF_OK ? mem : NULL;
}

void
clf_plan_describe_add (ClfPlan * plan, const char *text)
{
  describe_append (plan, "%s", text);
}

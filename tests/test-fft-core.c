/* test-fft-core.c: the FFT core against double-precision references. */
#include "core-harness.h"
#include "reference.h"
#include "clf-private.h"

#include <math.h>
#include <string.h>

/* Error bounds from the issue: float32 transforms of lengths made of the
 * supported radices stay within 4e-7 relative RMS; Bluestein adds two
 * transforms of about twice the length and the chirp products. */
#define BOUND_SMOOTH 4e-7
#define BOUND_BLUESTEIN 1.5e-6

static int
is_supported_radices (size_t n)
{
  static const size_t p[] = { 2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31 };
  for (int i = 0; i < 11; i++)
    while (n % p[i] == 0)
      n /= p[i];
  return n == 1;
}

static double
bound_for (size_t nx, size_t ny)
{
  return is_supported_radices (nx) && is_supported_radices (ny) ? BOUND_SMOOTH : BOUND_BLUESTEIN;
}

static size_t
layout_index (const ClfLayout * l, size_t x, size_t y, size_t b)
{
  return l->offset + x * l->stride[0] + y * l->stride[1] + b * l->dist;
}

/* Runs the plan described by d on random data and compares every transform
 * of the batch with the reference (FFTW, or the naive DFT when naive is set
 * and the transform is 1D). Returns the largest relative RMS error. */
static double
run_case (const ClfPlanDesc * desc, int naive, int in_place)
{
  ClfContext *ctx = harness_context ();
  ClfError err = { 0, };
  ClfPlanDesc d = *desc;
  ClfPlan *plan;
  size_t nx = d.n[0], ny = d.dim == 2 ? d.n[1] : 1, half = nx / 2 + 1;
  size_t total = nx * ny, in_bytes, out_bytes;
  int real_in = d.kind == CLF_R2C, real_out = d.kind == CLF_C2R;
  float *in_host, *out_host, *mul = NULL;
  double *x, *ref, worst = 0;
  cl_mem in_mem, out_mem;
  int sign = d.direction == CLF_INVERSE || d.kind == CLF_C2R ? 1 : -1;

  plan = clf_plan_new (ctx, &d, &err);
  CHECK (plan != NULL, "plan %zux%zu batch %zu kind %d: %s", nx, ny, d.batch,
      d.kind, err.message);
  if (!plan)
    return INFINITY;
  /* the plan filled in packed defaults: read them back through a copy */
  d = *desc;
  {
    size_t in_row = d.kind == CLF_C2R ? half : nx;
    size_t out_row = d.kind == CLF_R2C ? half : nx;
    if (!d.in.stride[0])
      d.in.stride[0] = 1;
    if (!d.in.stride[1])
      d.in.stride[1] = in_row * d.in.stride[0];
    if (!d.in.dist)
      d.in.dist = ny > 1 ? d.in.stride[1] * ny : in_row * d.in.stride[0];
    if (!d.out.stride[0])
      d.out.stride[0] = 1;
    if (!d.out.stride[1])
      d.out.stride[1] = out_row * d.out.stride[0];
    if (!d.out.dist)
      d.out.dist = ny > 1 ? d.out.stride[1] * ny : out_row * d.out.stride[0];
  }
  if (d.in_multiplier) {
    mul = malloc (2 * sizeof (float) * nx);
    harness_read (d.in_multiplier, 2 * sizeof (float) * nx, mul);
  }
  in_bytes = clf_plan_input_size (plan);
  out_bytes = clf_plan_output_size (plan);
  if (in_place && out_bytes > in_bytes)
    in_bytes = out_bytes;

  in_host = calloc (1, in_bytes);
  out_host = calloc (1, in_place ? in_bytes : out_bytes);
  x = malloc (2 * sizeof (double) * total);
  ref = malloc (2 * sizeof (double) * total);

  /* input: random values at the layout's positions, garbage elsewhere */
  ref_fill_random (in_host, in_bytes / sizeof (float), (unsigned) (nx * 31 +
          ny));
  if (real_out) {
    /* a half spectrum must come from a real signal to be consistent */
    float *sig = malloc (sizeof (float) * total);
    for (size_t b = 0; b < d.batch; b++) {
      ref_fill_random (sig, total, (unsigned) (b + 7));
      for (size_t i = 0; i < total; i++) {
        x[2 * i] = sig[i];
        x[2 * i + 1] = 0;
      }
      ref_fft (x, ref, nx, ny, -1);
      for (size_t y = 0; y < ny; y++)
        for (size_t k = 0; k < half; k++) {
          size_t i = layout_index (&d.in, k, y, b);
          in_host[2 * i] = (float) ref[2 * (y * nx + k)];
          in_host[2 * i + 1] = (float) ref[2 * (y * nx + k) + 1];
        }
    }
    free (sig);
  }

  in_mem = harness_buffer (in_bytes, in_host);
  out_mem = in_place ? in_mem : harness_buffer (out_bytes, NULL);
  {
    ClfStatus st = clf_plan_enqueue (plan, in_mem, out_mem, &err);
    CHECK (st == CLF_OK, "enqueue: %s", err.message);
  }
  harness_read (out_mem, in_place ? in_bytes : out_bytes, out_host);

  for (size_t b = 0; b < d.batch; b++) {
    double e;
    /* gather the logical input of transform b */
    for (size_t y = 0; y < ny; y++)
      for (size_t k = 0; k < nx; k++) {
        size_t li = y * nx + k;
        /* an input extent: what lies beyond is taken as zero (along
         * the line in 1D, rows in 2D) */
        int beyond = d.in_extent && (d.dim == 2 ? y : k) >= d.in_extent;
        if (real_in) {
          x[2 * li] = beyond ? 0.0 : in_host[layout_index (&d.in, k, y, b)];
          x[2 * li + 1] = 0;
        } else if (real_out) {
          /* expand the half spectrum (conjugate symmetry in 2D) */
          size_t kk = k, yy = y;
          int conj = 0;
          if (k >= half) {
            kk = nx - k;
            yy = (ny - y) % ny;
            conj = 1;
          }
          size_t i = layout_index (&d.in, kk, yy, b);
          x[2 * li] = in_host[2 * i];
          x[2 * li + 1] = conj ? -in_host[2 * i + 1] : in_host[2 * i + 1];
        } else {
          size_t i = layout_index (&d.in, k, y, b);
          double re = in_host[2 * i], im = in_host[2 * i + 1];
          if (beyond)
            re = im = 0.0;
          if (mul) {
            double t = re * mul[2 * k] - im * mul[2 * k + 1];
            im = re * mul[2 * k + 1] + im * mul[2 * k];
            re = t;
          }
          x[2 * li] = re;
          x[2 * li + 1] = im;
        }
      }
    if (naive && ny == 1)
      ref_dft (x, ref, nx, sign);
    else
      ref_fft (x, ref, nx, ny, sign);
    if (d.normalize)
      for (size_t i = 0; i < 2 * total; i++)
        ref[i] /= (double) total;

    /* gather the output and compare */
    {
      /* an output extent: only the outputs before it are written (along
       * the line in 1D, rows in 2D) */
      size_t cols = d.kind == CLF_R2C ? half : d.out_extent && d.dim == 1 ?
          d.out_extent : nx;
      size_t rows = d.out_extent && d.dim == 2 ? d.out_extent : ny;
      size_t cnt = cols * rows;
      float *got = malloc (2 * sizeof (float) * cnt);
      double *want = malloc (2 * sizeof (double) * cnt);
      for (size_t y = 0; y < rows; y++)
        for (size_t k = 0; k < cols; k++) {
          size_t gi = y * cols + k, o = layout_index (&d.out, k, y, b);
          if (real_out) {
            got[2 * gi] = out_host[o];
            got[2 * gi + 1] = 0;
            want[2 * gi] = ref[2 * (y * nx + k)];
            want[2 * gi + 1] = 0;
          } else {
            got[2 * gi] = out_host[2 * o];
            got[2 * gi + 1] = out_host[2 * o + 1];
            want[2 * gi] = ref[2 * (y * nx + k)];
            want[2 * gi + 1] = ref[2 * (y * nx + k) + 1];
          }
        }
      e = ref_rel_rms_err (got, want, cnt);
      free (got);
      free (want);
    }
    if (!(e <= worst))
      worst = e;
  }

  if (!in_place)
    clReleaseMemObject (out_mem);
  clReleaseMemObject (in_mem);
  clf_plan_free (plan);
  free (in_host);
  free (out_host);
  free (mul);
  free (x);
  free (ref);
  return worst;
}

static double
run_simple (ClfTransformKind kind, ClfDirection dir, size_t nx, size_t ny,
    size_t batch)
{
  ClfPlanDesc d;
  clf_plan_desc_init (&d, kind, dir, nx, ny, batch);
  return run_case (&d, 0, 0);
}

static void
check_err (const char *what, size_t nx, size_t ny, double e)
{
  double bound = bound_for (nx, ny);
  CHECK (e <= bound, "%s %zux%zu: rel RMS error %.3g > %.3g", what, nx, ny,
      e, bound);
}

/* Sweeps go through the generic kernel (one build for every length, few
 * work-group sizes); the
 * other tests use the per-length programs plans normally get. */
static void
use_generic_kernel (int on)
{
  if (on)
    setenv ("CLFFT_SPECIALIZE", "0", 1);
  else
    unsetenv ("CLFFT_SPECIALIZE");
  /* and few work-group sizes: PoCL compiles once per size */
  clf_debug_round_work_groups (on);
}

/* The programs GPUs get, on PoCL: built for one length, fft_local rather
 * than the CPU path and, with direct_io, the first and last stages
 * reading and writing global memory (on = 0 restores the defaults of
 * what on = 1 set). */
static void
use_gpu_programs (int on, int direct_io)
{
  if (on) {
    setenv ("CLFFT_SPECIALIZE", "1", 1);
    setenv ("CLFFT_CPU_PATH", "0", 1);
  } else {
    unsetenv ("CLFFT_SPECIALIZE");
    unsetenv ("CLFFT_CPU_PATH");
  }
  if (direct_io && on)
    setenv ("CLFFT_DIRECT_IO", "1", 1);
  else if (direct_io)
    unsetenv ("CLFFT_DIRECT_IO");
}

static void
test_every_length_to_1024 (void)
{
  double worst = 0;
  use_generic_kernel (1);
  for (size_t n = 1; n <= 1024; n++) {
    ClfPlanDesc d;
    double e;
    clf_plan_desc_init (&d, CLF_C2C, n % 2 ? CLF_INVERSE : CLF_FORWARD, n, 0,
        2);
    /* the naive DFT checks FFTW too at small lengths */
    e = run_case (&d, n <= 64, 0);
    check_err ("c2c", n, 1, e);
    if (e > worst)
      worst = e;
  }
  use_generic_kernel (0);
  printf ("# every N 1..1024: worst rel RMS %.3g\n", worst);
}

/* the per-length programs on a spread of lengths and radix mixes */
static void
test_specialized_lengths (void)
{
  static const size_t sizes[] = { 1, 2, 3, 16, 60, 64, 77, 128, 143, 169,
    243, 256, 343, 500, 625, 1024, 2048, 4096, 8192
  };
  for (size_t i = 0; i < sizeof (sizes) / sizeof (sizes[0]); i++) {
    check_err ("specialised", sizes[i], 1, run_simple (CLF_C2C, CLF_FORWARD,
            sizes[i], 0, 3));
    check_err ("specialised inverse", sizes[i], 1, run_simple (CLF_C2C,
            CLF_INVERSE, sizes[i], 0, 2));
  }
}

static void
test_real_every_length_to_256 (void)
{
  use_generic_kernel (1);
  for (size_t n = 1; n <= 256; n++) {
    check_err ("r2c", n, 1, run_simple (CLF_R2C, CLF_FORWARD, n, 0, 3));
    check_err ("c2r", n, 1, run_simple (CLF_C2R, CLF_INVERSE, n, 0, 3));
  }
  use_generic_kernel (0);
}

static void
test_powers_of_two (void)
{
  for (int e = 1; e <= 20; e++) {
    size_t n = (size_t) 1 << e;
    double err = run_simple (CLF_C2C, CLF_FORWARD, n, 0, e < 12 ? 4 : 1);
    printf ("# 2^%d: rel RMS %.3g\n", e, err);
    check_err ("pow2", n, 1, err);
  }
}

static void
test_smooth_sizes (void)
{
  static const size_t sizes[] = { 1000, 1080, 1920, 2160, 3840, 4095, 6720,
    44100, 48000, 2046, 254 * 17, 29 * 31 * 8
  };
  for (size_t i = 0; i < sizeof (sizes) / sizeof (sizes[0]); i++) {
    double e = run_simple (CLF_C2C, CLF_FORWARD, sizes[i], 0, 2);
    printf ("# %zu: rel RMS %.3g\n", sizes[i], e);
    check_err ("smooth", sizes[i], 1, e);
    check_err ("smooth inverse", sizes[i], 1, run_simple (CLF_C2C,
            CLF_INVERSE, sizes[i], 0, 1));
  }
}

static void
test_primes (void)
{
  static const size_t sizes[] = { 17, 1009, 8191, 65537 };
  for (size_t i = 0; i < sizeof (sizes) / sizeof (sizes[0]); i++) {
    double e = run_simple (CLF_C2C, CLF_FORWARD, sizes[i], 0, 2);
    printf ("# prime %zu: rel RMS %.3g\n", sizes[i], e);
    check_err ("prime", sizes[i], 1, e);
    check_err ("prime r2c", sizes[i], 1, run_simple (CLF_R2C, CLF_FORWARD,
            sizes[i], 0, 1));
    check_err ("prime c2r", sizes[i], 1, run_simple (CLF_C2R, CLF_INVERSE,
            sizes[i], 0, 1));
  }
}

static void
test_2d (void)
{
  static const size_t sizes[][2] = { {1, 1}, {7, 5}, {64, 48}, {17, 19},
  {1920, 1080}, {3840, 2160}
  };
  for (size_t i = 0; i < sizeof (sizes) / sizeof (sizes[0]); i++) {
    size_t nx = sizes[i][0], ny = sizes[i][1];
    double e = run_simple (CLF_C2C, CLF_FORWARD, nx, ny, 1);
    printf ("# 2D %zux%zu: rel RMS %.3g\n", nx, ny, e);
    check_err ("2d c2c", nx, ny, e);
    if (nx * ny < 3000000) {
      check_err ("2d inverse", nx, ny, run_simple (CLF_C2C, CLF_INVERSE, nx,
              ny, 2));
      check_err ("2d r2c", nx, ny, run_simple (CLF_R2C, CLF_FORWARD, nx, ny,
              2));
      check_err ("2d c2r", nx, ny, run_simple (CLF_C2R, CLF_INVERSE, nx, ny,
              2));
    }
  }
}

/* A forward C2C plan of nx x ny describes itself with part or other
 * (want 1), or with neither (want 0): a test hook really selected the
 * path it is about to test, or the plan kept its other path. */
static void
check_plan_describes (size_t nx, size_t ny, const char *part,
    const char *other, int want)
{
  ClfPlanDesc d;
  ClfError err = { 0, };
  ClfPlan *plan;
  int has;

  clf_plan_desc_init (&d, CLF_C2C, CLF_FORWARD, nx, ny, 1);
  plan = clf_plan_new (harness_context (), &d, &err);
  has = plan && (strstr (clf_plan_describe (plan), part) ||
      strstr (clf_plan_describe (plan), other));
  CHECK (plan && has == want, "%zux%zu: %s %s: %s", nx, ny, part,
      want ? "not used" : "used",
      plan ? clf_plan_describe (plan) : err.message);
  clf_plan_free (plan);
}

static void
check_plan_uses_either (size_t nx, size_t ny, const char *part,
    const char *other)
{
  check_plan_describes (nx, ny, part, other, 1);
}

static void
check_plan_uses (size_t nx, size_t ny, const char *part)
{
  check_plan_describes (nx, ny, part, part, 1);
}

static void
check_plan_lacks (size_t nx, size_t ny, const char *part)
{
  check_plan_describes (nx, ny, part, part, 0);
}

/* d: batch forward C2C transforms of nx x ny, whose rows lie in_pitch
 * (input) and out_pitch (output) elements apart, and whose frames take
 * in_gap and out_gap elements more than their rows */
static void
padded_layout (ClfPlanDesc * d, size_t nx, size_t ny, size_t batch,
    size_t in_pitch, size_t in_gap, size_t out_pitch, size_t out_gap)
{
  clf_plan_desc_init (d, CLF_C2C, CLF_FORWARD, nx, ny, batch);
  d->in.stride[1] = in_pitch;
  d->in.dist = in_pitch * ny + in_gap;
  d->out.stride[1] = out_pitch;
  d->out.dist = out_pitch * ny + out_gap;
}

/* Forward (batch 3), inverse (batch 1) and R2C (batch 2) transforms of
 * each length, what naming the path under test */
static void
check_lengths (const char *what, const size_t * sizes, size_t count)
{
  char name[96];

  for (size_t i = 0; i < count; i++) {
    size_t n = sizes[i];
    snprintf (name, sizeof (name), "%s c2c", what);
    check_err (name, n, 1, run_simple (CLF_C2C, CLF_FORWARD, n, 0, 3));
    snprintf (name, sizeof (name), "%s inverse", what);
    check_err (name, n, 1, run_simple (CLF_C2C, CLF_INVERSE, n, 0, 1));
    snprintf (name, sizeof (name), "%s r2c", what);
    check_err (name, n, 1, run_simple (CLF_R2C, CLF_FORWARD, n, 0, 2));
  }
}

/* the two-pass column layout GPUs use for long columns */
static void
test_2d_column_split (void)
{
  static const size_t sizes[][2] = { {64, 48}, {30, 1080}, {1920, 1080} };
  clf_debug_force_column_split (1);
  /* the hook really selects the split */
  check_plan_uses (64, 48, "colfourstep");
  for (size_t i = 0; i < sizeof (sizes) / sizeof (sizes[0]); i++) {
    size_t nx = sizes[i][0], ny = sizes[i][1];
    check_err ("2d split c2c", nx, ny, run_simple (CLF_C2C, CLF_FORWARD, nx,
            ny, 2));
    check_err ("2d split inverse", nx, ny, run_simple (CLF_C2C, CLF_INVERSE,
            nx, ny, 1));
    check_err ("2d split r2c", nx, ny, run_simple (CLF_R2C, CLF_FORWARD, nx,
            ny, 2));
    check_err ("2d split c2r", nx, ny, run_simple (CLF_C2R, CLF_INVERSE, nx,
            ny, 1));
  }
  clf_debug_force_column_split (0);
}

/* the programs built for one length that GPUs run (PoCL runs them only
 * when told to), whose stages read their twiddles from stage tables:
 * every entry on rows, products of the power-of-two entries on columns */
static void
test_specialized_local (void)
{
  static const size_t sizes[] = { 1, 32, 64, 128, 960, 1024, 1080, 4096 };
  static const size_t padded[] = { 243, 1080, 4095 };
  static const size_t wide[] = { 625, 2187, 3125 };
  use_gpu_programs (1, 0);
  check_lengths ("specialised local", sizes,
      sizeof (sizes) / sizeof (sizes[0]));
  /* GPUs pad the local memory of even lengths, PoCL of none: the padded
   * form on odd and even lengths */
  setenv ("CLFFT_LDS_PAD", "1", 1);
  check_lengths ("specialised padded", padded,
      sizeof (padded) / sizeof (padded[0]));
  unsetenv ("CLFFT_LDS_PAD");
  check_err ("specialised local 2d", 64, 48, run_simple (CLF_C2C,
          CLF_FORWARD, 64, 48, 1));
  check_err ("specialised local 2d odd", 60, 45, run_simple (CLF_C2C,
          CLF_INVERSE, 60, 45, 1));
  /* a batch of frames: both axes address two batch levels, where the
   * programs keep their divisions (layout_defines in clf-plan.c) */
  check_err ("specialised local 2d batch", 60, 45, run_simple (CLF_C2C,
          CLF_FORWARD, 60, 45, 3));
  /* the composites 10 and 12: 1000 takes three stages instead of four,
   * and CLFFT_RADICES sets 1080's (PoCL's 32 values keep 8x9x15) */
  check_plan_uses (1000, 0, "local(1000:10x10x10)");
  /* 1024's radix 16 last on rows, first on columns; 32x32 where local
   * memory makes the columns planar, as on GPUs */
  check_plan_uses (1024, 0, "local(1024:8x8x16)");
  check_plan_uses_either (64, 1024, "local(1024:16x8x8)",
      "local(1024:32x32,planar)");
  /* the composites 25 and 27, where they take stages off odd lengths:
   * rows (two stages fewer), and columns of a 2D transform */
  check_plan_uses (3125, 0, "local(3125:25x25x5)");
  check_plan_uses (45, 675, "local(675:27x25)");
  check_lengths ("specialised 25 and 27", wide,
      sizeof (wide) / sizeof (wide[0]));
  check_err ("specialised 27x25 columns", 45, 675, run_simple (CLF_C2C,
          CLF_INVERSE, 45, 675, 1));
  setenv ("CLFFT_RADICES", "12x10x9", 1);
  check_plan_uses (1080, 0, "local(1080:12x10x9)");
  check_err ("specialised 12x10x9", 1080, 1, run_simple (CLF_C2C,
          CLF_INVERSE, 1080, 0, 2));
  unsetenv ("CLFFT_RADICES");
  /* and each form on the other kind of pass */
  setenv ("CLFFT_TWIDDLES", "powers", 1);
  check_err ("specialised powers rows", 1000, 1, run_simple (CLF_C2C,
          CLF_FORWARD, 1000, 0, 3));
  setenv ("CLFFT_TWIDDLES", "stage", 1);
  check_err ("specialised stage columns", 60, 45, run_simple (CLF_C2C,
          CLF_FORWARD, 60, 45, 1));
  unsetenv ("CLFFT_TWIDDLES");
  use_gpu_programs (0, 0);
}

/* programs of 8 values per thread, which GPUs run for rows of radices up
 * to 8, from 20 points (CLFFT_THREAD_VALUES=8 asks for them wherever such
 * radices exist):
 * one butterfly of radix 5, 7 or 8 a thread, one transform a group from
 * 64 threads, as many as fill a warp where a transform's threads divide
 * 32, four and five stages with radices 2 and 3 */
static void
test_eight_values (void)
{
  static const size_t sizes[] = { 24, 40, 60, 64, 80, 125, 128, 200, 256,
    343, 448, 512, 1024, 1080, 1225
  };
  static const size_t direct[] = { 24, 60, 64, 75, 125, 128, 512, 1080 };
  static const size_t warp[] = { 40, 64, 80, 128 };

  setenv ("CLFFT_THREAD_VALUES", "8", 1);
  use_gpu_programs (1, 0);
  check_plan_uses (512, 0, "local(512:8x8x8)");
  check_plan_uses (1024, 0, "local(1024:8x8x8x2)");
  check_lengths ("eight values", sizes, sizeof (sizes) / sizeof (sizes[0]));
  use_gpu_programs (1, 1);
  check_lengths ("eight values direct", direct, sizeof (direct) /
      sizeof (direct[0]));
  /* several transforms a group: 64 in warp groups of 4 transforms of 8
   * threads, as on GPUs (PoCL widens 80 and 128 to 20 and 32 threads) */
  for (size_t i = 0; i < sizeof (warp) / sizeof (warp[0]); i++)
    check_err ("eight values warp groups", warp[i], 1,
        run_simple (CLF_C2C, CLF_INVERSE, warp[i], 0, 12));
  /* no radices up to 8 (13): 16 values */
  check_err ("eight values 4095", 4095, 1, run_simple (CLF_C2C, CLF_FORWARD,
          4095, 0, 2));
  use_gpu_programs (0, 1);
  /* the generic program runs radix 16 whatever the variable says */
  setenv ("CLFFT_CPU_PATH", "0", 1);
  check_err ("eight values generic", 1024, 1, run_simple (CLF_C2C,
          CLF_FORWARD, 1024, 0, 2));
  unsetenv ("CLFFT_CPU_PATH");
  unsetenv ("CLFFT_THREAD_VALUES");
}

/* Bluestein in one fft_local pass (GPU programs): forward, inverse and
 * R2C, batches, a prime axis of columns, a padded layout, in place, the
 * padded transform in powers of two and in others (37: 75 points), in
 * local memory, through the planar exchange, and in odd lengths past a
 * GPU's local FFT limit */
static void
test_bluestein_one_pass (void)
{
  static const size_t sizes[] = { 37, 61, 127, 509 };
  const char *what = "bluestein one pass";
  char name[96];
  ClfPlanDesc d;

  use_gpu_programs (1, 1);
  check_plan_uses (37, 0, "bluestein(37->75,one pass)");
  check_plan_uses (61, 0, "bluestein(61->128,one pass)");
  check_lengths (what, sizes, sizeof (sizes) / sizeof (sizes[0]));
  snprintf (name, sizeof (name), "%s batch 64", what);
  check_err (name, 127, 1, run_simple (CLF_C2C, CLF_INVERSE, 127, 0, 64));
  snprintf (name, sizeof (name), "%s columns", what);
  check_err (name, 16, 37, run_simple (CLF_C2C, CLF_INVERSE, 16, 37, 2));
  snprintf (name, sizeof (name), "%s padded", what);
  padded_layout (&d, 61, 3, 4, 64, 5, 63, 2);
  check_err (name, 61, 3, run_case (&d, 0, 0));
  snprintf (name, sizeof (name), "%s in place", what);
  clf_plan_desc_init (&d, CLF_C2C, CLF_FORWARD, 127, 0, 3);
  check_err (name, 127, 1, run_case (&d, 0, 1));
  use_gpu_programs (1, 0);
  snprintf (name, sizeof (name), "%s, local loads", what);
  check_err (name, 127, 1, run_simple (CLF_C2C, CLF_FORWARD, 127, 0, 5));
  /* a half spectrum in, expanded first, then real output */
  use_gpu_programs (1, 1);
  check_err ("bluestein c2r", 127, 1, run_simple (CLF_C2R, CLF_INVERSE, 127,
          0, 2));
  /* through the planar exchange, as GPUs run padded lengths past 4096
   * points (CLFFT_PLANAR=1: wherever rows fit it) */
  setenv ("CLFFT_PLANAR", "1", 1);
  check_plan_uses (127, 0, "bluestein(127->256,one pass) local(256:");
  check_plan_uses (127, 0, ",planar)");
  check_lengths ("bluestein planar", sizes, 3);
  check_err ("bluestein planar c2r", 61, 1, run_simple (CLF_C2R,
          CLF_INVERSE, 61, 0, 3));
  check_err ("bluestein planar batch 33", 127, 1, run_simple (CLF_C2C,
          CLF_FORWARD, 127, 0, 33));
  check_err ("bluestein planar 8192", 3001, 1, run_simple (CLF_C2C,
          CLF_INVERSE, 3001, 0, 2));
  unsetenv ("CLFFT_PLANAR");
  /* with a GPU's 48 KiB of local memory: past 4096 points odd lengths of
   * three stages in local memory, else the planar exchange */
  clf_debug_cap_local_memory (48 * 1024);
  check_plan_uses (2053, 0, "bluestein(2053->4375,one pass) "
      "local(4375:25x25x7)");
  check_plan_uses (2729, 0, "bluestein(2729->5625,one pass) local(5625:");
  check_plan_uses (4093, 0, "bluestein(4093->8192,one pass) local(8192:");
  check_plan_uses (4093, 0, ",planar)");
  check_err ("bluestein odd past 4096", 2053, 1, run_simple (CLF_C2C,
          CLF_FORWARD, 2053, 0, 3));
  check_err ("bluestein odd past 4096 r2c", 2729, 1, run_simple (CLF_R2C,
          CLF_FORWARD, 2729, 0, 2));
  check_err ("bluestein odd past 4096 inverse", 2311, 1,
      run_simple (CLF_C2C, CLF_INVERSE, 2311, 0, 2));
  clf_debug_cap_local_memory (0);
  use_gpu_programs (0, 1);
}

/* fft_local reading and writing a group of short transforms as one span,
 * as GPUs do below 4 threads per transform (CLFFT_BLOCK_IO=1 forces it
 * wherever the layout is contiguous) */
static void
test_block_io (void)
{
  static const size_t sizes[] = { 2, 8, 16, 30, 64, 1000 };
  ClfPlanDesc d;

  use_gpu_programs (1, 0);
  setenv ("CLFFT_BLOCK_IO", "1", 1);
  /* (GPUs run 16 points in 4 values a thread) */
  check_plan_uses_either (16, 0, "local(16:16,block)", "local(16:4x4,block)");
  check_lengths ("block io", sizes, sizeof (sizes) / sizeof (sizes[0]));
  /* 16 points as 4x4 on 4 threads of 4 values, as GPUs run them; 16
   * transforms a group */
  setenv ("CLFFT_THREAD_VALUES", "4", 1);
  check_plan_uses (16, 0, "local(16:4x4,block)");
  check_err ("block io 4 values", 16, 1, run_simple (CLF_C2C, CLF_FORWARD,
          16, 0, 48));
  unsetenv ("CLFFT_THREAD_VALUES");
  /* full work-groups of many transforms */
  check_err ("block io batch 4096", 8, 1, run_simple (CLF_C2C, CLF_FORWARD,
          8, 0, 4096));
  check_err ("block io 2d", 64, 48, run_simple (CLF_C2C, CLF_INVERSE, 64,
          48, 2));
  /* a half spectrum in: transforms N/2+1 apart */
  check_err ("block io c2r", 16, 1, run_simple (CLF_C2R, CLF_INVERSE, 16, 0,
          5));
  /* rows in two batch levels, so not evenly spaced, and a work-group's
   * rows (8 of 16 points) span frames of 3 */
  padded_layout (&d, 16, 3, 8, 18, 2, 17, 4);
  check_err ("block io 2d padded batch", 16, 3, run_case (&d, 0, 0));
  unsetenv ("CLFFT_BLOCK_IO");
  /* 12 points as 4x3 on 4 threads of 4 values, read directly, as GPUs
   * run them */
  use_gpu_programs (1, 1);
  setenv ("CLFFT_THREAD_VALUES", "4", 1);
  check_plan_uses (12, 0, "local(12:4x3)");
  check_err ("4 values direct", 12, 1, run_simple (CLF_C2C, CLF_INVERSE, 12,
          0, 100));
  unsetenv ("CLFFT_THREAD_VALUES");
  use_gpu_programs (0, 1);
}

/* Short transforms each in one thread's registers, the group's block
 * read and written in rounds the program knows, as GPUs run them below
 * 32 points (one_thread_radices in ocl/clf-plan.c) */
static void
test_one_thread (void)
{
  static const size_t sizes[] = { 3, 10, 21, 30 };
  ClfPlanDesc d;

  use_gpu_programs (1, 1);
  check_plan_uses (10, 0, "local(10:10,block,one thread)");
  check_plan_uses (30, 0, "local(30:15x2,block,one thread)");
  /* 20 = 4x5 runs in 8 values on 4 threads, read directly */
  check_plan_lacks (20, 0, "one thread");
  check_lengths ("one thread", sizes, sizeof (sizes) / sizeof (sizes[0]));
  check_err ("one thread c2r", 14, 1, run_simple (CLF_C2R, CLF_INVERSE, 14,
          0, 5));
  /* many groups, the last one partial where the device allows that */
  check_err ("one thread batch 1001", 22, 1, run_simple (CLF_C2C,
          CLF_FORWARD, 22, 0, 1001));
  /* rows in two batch levels, not evenly spaced */
  padded_layout (&d, 14, 3, 8, 18, 2, 17, 4);
  check_err ("one thread 2d padded batch", 14, 3, run_case (&d, 0, 0));
  /* three stages (GPUs take two below 32 points): the middle one's
   * twiddles are not the last stage's powers of w_N */
  setenv ("CLFFT_ONE_THREAD", "64", 1);
  check_plan_uses (54, 0, "local(54:9x3x2,block,one thread)");
  check_err ("one thread three stages", 54, 1, run_simple (CLF_C2C,
          CLF_FORWARD, 54, 0, 7));
  unsetenv ("CLFFT_ONE_THREAD");
  use_gpu_programs (0, 1);
}

/* the composites 6 = 2x3 and 14 = 2x7 (GPU programs), which hold a lone
 * factor 2 where it would take a stage of its own: rows from 256 points
 * (fewest stages), below it (the lone-2 rule), in 8 values, and rows of
 * 16 values; transforms of one thread keep their stages */
static void
test_stage_cutters (void)
{
  static const size_t sizes[] = { 42, 54, 150, 210, 294, 490, 1470, 2646,
    3430
  };

  use_gpu_programs (1, 1);
  /* the rules' plans (the measured table replaces 2646's and 1458's) */
  setenv ("CLFFT_MEASURED_FORMS", "0", 1);
  check_plan_uses (1470, 0, "local(1470:14x15x7)");
  /* a lone 2 with a 7 rather than a 5 at as many stages */
  check_plan_uses (490, 0, "local(490:14x7x5)");
  check_plan_uses (3430, 0, "local(3430:14x7x7x5)");
  check_plan_uses (1250, 0, "local(1250:10x5x5x5)");
  check_plan_uses (2646, 0, "local(2646:14x9x7x3)");
  check_plan_uses (210, 0, "local(210:14x15)");
  /* no stage to take off: 1458 keeps its radix 2 */
  check_plan_uses (1458, 0, "local(1458:2x9x9x9)");
  check_plan_uses (14, 0, "local(14:7x2,block,one thread)");
  check_lengths ("radices 6 and 14", sizes,
      sizeof (sizes) / sizeof (sizes[0]));
  setenv ("CLFFT_THREAD_VALUES", "8", 1);
  check_plan_uses (42, 0, "local(42:6x7)");
  check_err ("radix 6 in 8 values", 42, 1, run_simple (CLF_C2C,
          CLF_INVERSE, 42, 0, 5));
  check_err ("radix 6 in 8 values, three stages", 384, 1,
      run_simple (CLF_C2C, CLF_FORWARD, 384, 0, 3));
  setenv ("CLFFT_THREAD_VALUES", "16", 1);
  check_err ("radix 14 in 16 values", 2520, 1, run_simple (CLF_C2C,
          CLF_FORWARD, 2520, 0, 2));
  unsetenv ("CLFFT_THREAD_VALUES");
  unsetenv ("CLFFT_MEASURED_FORMS");
  use_gpu_programs (0, 1);
}

/* The measured table of stage forms (clf-plan-forms.c) on GPU programs:
 * every entry's radices multiply to its length, and an entry a plan
 * takes as it stands (they fit a work-group, else the planner would
 * refuse them) transforms within the bound; other passes and
 * CLFFT_MEASURED_FORMS=0 keep the rules. GPUs build every entry; CPU
 * devices, where PoCL takes about a second a program, every fourth, the
 * first of each count of values and stages, and the first with each
 * radix (the wide composites 18-28 only the table takes). */
static void
test_measured_forms (void)
{
  static const size_t both[] = { 400, 4000 };
  unsigned radices[CLF_MAX_STAGES], values;
  size_t entries = 0;
  unsigned seen[33][CLF_MAX_STAGES + 1] = { {0} };
  unsigned char radix_seen[33] = { 0 };
  int all = !clf_context_is_cpu (harness_context ());

  use_gpu_programs (1, 1);
  for (size_t n = 1; n <= 8192; n++) {
    int k = clf_measured_form (n, &values, radices);
    char want[96];
    size_t product = 1;
    int len, sample, whole;

    if (k <= 0)
      continue;
    whole = values <= 32 && k <= CLF_MAX_STAGES;
    for (int s = 0; s < k; s++) {
      product *= radices[s];
      whole &= radices[s] <= values;
    }
    whole &= product == n;
    CHECK (whole, "measured form of %zu: radices multiply to %zu in %u "
        "values (none above them)", n, product, values);
    if (!whole)
      continue;
    sample = all || entries % 4 == 0 || !seen[values][k];
    for (int s = 0; s < k; s++)
      sample |= !radix_seen[radices[s]];
    entries++;
    seen[values][k] = 1;
    if (!sample)
      continue;
    for (int s = 0; s < k; s++)
      radix_seen[radices[s]] = 1;
    len = snprintf (want, sizeof want, "local(%zu:", n);
    for (int s = 0; s < k; s++)
      len += snprintf (want + len, sizeof want - len, "%s%u", s ? "x" : "",
          radices[s]);
    snprintf (want + len, sizeof want - len, ")");
    check_plan_uses (n, 0, want);
    check_err ("measured form", n, 1, run_simple (CLF_C2C, n % 2 ?
            CLF_INVERSE : CLF_FORWARD, n, 0, 3));
  }
  CHECK (entries > 0, "the measured table holds no forms");
  /* 8 values (400), 32 (4000), both directions and real rows */
  check_lengths ("measured forms", both, 2);
  /* columns are no plain rows: 8x8 columns of 4000 */
  check_err ("measured form's length as columns", 8, 4000,
      run_simple (CLF_C2C, CLF_FORWARD, 8, 4000, 1));
  setenv ("CLFFT_MEASURED_FORMS", "0", 1);
  check_plan_uses (4000, 0, "local(4000:16x10x5x5)");
  /* the rules take no wide composite (2860 = 11x13x20 in the table) */
  check_plan_uses (2860, 0, "local(2860:4x5x");
  unsetenv ("CLFFT_MEASURED_FORMS");
  use_gpu_programs (0, 1);
}

/* fft_local keeping its values in registers between stages and passing
 * them through local memory one component at a time, as GPUs run 8192
 * and 6720 (CLFFT_PLANAR=1 uses it wherever the layout allows, and
 * CLFFT_PLANAR_COLUMNS=1 for every column pass) */
static void
test_planar_exchange (void)
{
  static const size_t sizes[] = { 2, 12, 64, 1000, 4096, 8192 };

  use_gpu_programs (1, 1);
  setenv ("CLFFT_PLANAR", "1", 1);
  check_plan_uses (1000, 0, "local(1000:8x5x5x5,planar)");
  /* powers of two with radix 32 in registers where it cuts a stage */
  check_plan_uses (8192, 0, "local(8192:32x32x8,planar)");
  check_plan_uses (4096, 0, "local(4096:16x16x16,planar)");
  check_lengths ("planar", sizes, sizeof (sizes) / sizeof (sizes[0]));
  check_err ("planar c2r", 1000, 1, run_simple (CLF_C2R, CLF_INVERSE, 1000,
          0, 2));
  check_err ("planar 2d", 64, 48, run_simple (CLF_C2C, CLF_FORWARD, 64, 48,
          2));
  /* columns through it too, as GPUs run 1024-point columns */
  setenv ("CLFFT_PLANAR_COLUMNS", "1", 1);
  check_plan_uses (24, 1000, "local(1000:8x5x5x5,planar)");
  check_plan_uses (36, 1024, "local(1024:32x32,planar)");
  check_plan_uses (20, 512, "local(512:32x16,planar)");
  check_err ("planar columns", 24, 1000, run_simple (CLF_C2C, CLF_FORWARD,
          24, 1000, 2));
  check_err ("planar columns inverse", 36, 1024, run_simple (CLF_C2C,
          CLF_INVERSE, 36, 1024, 1));
  check_err ("planar columns 2048", 8, 2048, run_simple (CLF_C2C,
          CLF_FORWARD, 8, 2048, 1));
  check_err ("planar columns 512", 20, 512, run_simple (CLF_C2C,
          CLF_INVERSE, 20, 512, 3));
  unsetenv ("CLFFT_PLANAR_COLUMNS");
  unsetenv ("CLFFT_PLANAR");
  use_gpu_programs (0, 1);
}

/* The four-step twiddle on the output of the first pass (columns) or on
 * the input of the second (rows, "twiddled"), as GPUs split long
 * transforms: a power of two and lengths of 2s and 5s, one of them split
 * into an odd length of composites (CLFFT_FOUR_STEP_COLUMNS). */
static void
test_four_step_twiddles (void)
{
  static const size_t sizes[] = { 250000, 262144 };
  static const size_t odd[] = { 250000 };
  static const char *sides[] = { "store", "load" };

  use_gpu_programs (1, 1);
  for (int i = 0; i < 2; i++) {
    char name[64];
    setenv ("CLFFT_FOUR_STEP_TWIDDLE", sides[i], 1);
    /* rows of whole 32-byte sectors on both passes (500x500) rather than
     * the split of fewest stages (400x625); the split of fewest stages
     * among those, not the most equal one (512x512) */
    check_plan_uses (250000, 0, i ? "local(500:10x10x5,twiddled)" :
        "fourstep(500x500) local(500:10x10x5) local(500:10x10x5)");
    check_plan_uses (262144, 0, "fourstep(256x1024)");
    snprintf (name, sizeof (name), "four-step twiddle %s", sides[i]);
    check_lengths (name, sizes, sizeof (sizes) / sizeof (sizes[0]));
    setenv ("CLFFT_FOUR_STEP_COLUMNS", "400", 1);
    check_plan_uses (250000, 0, i ? "local(625:25x25,twiddled)" :
        "fourstep(400x625) local(400:16x5x5) local(625:25x25)");
    snprintf (name, sizeof (name), "four-step twiddle %s 400x625", sides[i]);
    check_lengths (name, odd, sizeof (odd) / sizeof (odd[0]));
    unsetenv ("CLFFT_FOUR_STEP_COLUMNS");
    snprintf (name, sizeof (name), "four-step twiddle %s c2r", sides[i]);
    check_err (name, 262144, 1, run_simple (CLF_C2R, CLF_INVERSE, 262144,
            0, 1));
  }
  unsetenv ("CLFFT_FOUR_STEP_TWIDDLE");
  use_gpu_programs (0, 1);
}

/* Programs built for one length that the device allows fewer threads
 * than planned (GPUs' register limits): fewer transforms to a work-group,
 * rebuilt; or, where even one transform's threads do not fit, the generic
 * program, which must then take the stages it knows (not radix 10). */
static void
test_work_group_cap (void)
{
  static const size_t sizes[] = { 64, 1000, 1080 };

  use_gpu_programs (1, 0);
  clf_debug_cap_work_group (64);
  /* 50 threads x 4 transforms planned: rebuilt with one */
  check_plan_uses (1000, 0, "local(1000:10x10x10)");
  check_lengths ("capped", sizes, sizeof (sizes) / sizeof (sizes[0]));
  check_err ("capped batch 4096", 64, 1, run_simple (CLF_C2C, CLF_FORWARD,
          64, 0, 4096));
  check_err ("capped 2d", 60, 45, run_simple (CLF_C2C, CLF_INVERSE, 60, 45, 2));
  clf_debug_cap_work_group (32);
  check_plan_uses (1000, 0, "generic)");
  check_lengths ("generic fallback", sizes, sizeof (sizes) / sizeof (sizes[0]));
  /* a program of 8 values (512 as 8x8x8 on 64 threads) allowed too few
   * threads: 16 values on 32 */
  setenv ("CLFFT_THREAD_VALUES", "8", 1);
  check_plan_uses (512, 0, "local(512:16x8x4)");
  check_err ("capped 8 values", 512, 1, run_simple (CLF_C2C, CLF_FORWARD,
          512, 0, 3));
  unsetenv ("CLFFT_THREAD_VALUES");
  /* Bluestein's one pass: 509 in 1024 points (on GPUs 64 threads
   * planned: 32 values on 32), 499 in 1000 (as 1000: the generic
   * program) */
  check_err ("capped bluestein", 509, 1, run_simple (CLF_C2C, CLF_INVERSE,
          509, 0, 3));
  setenv ("CLFFT_BLUESTEIN_M", "1000", 1);
  check_plan_uses (499, 0, "bluestein(499->1000,one pass) local(1000:");
  check_plan_uses (499, 0, "generic)");
  check_err ("capped bluestein generic", 499, 1, run_simple (CLF_C2C,
          CLF_FORWARD, 499, 0, 3));
  unsetenv ("CLFFT_BLUESTEIN_M");
  /* an odd padded length past a GPU's 4096 points (2053 in 4375), here
   * without direct I/O, so the one pass rather than five passes through
   * the planar exchange's length: the generic program */
  clf_debug_cap_local_memory (48 * 1024);
  check_plan_uses (2053, 0, "bluestein(2053->4375,one pass) local(4375:");
  check_err ("capped bluestein past 4096", 2053, 1, run_simple (CLF_C2C,
          CLF_FORWARD, 2053, 0, 2));
  clf_debug_cap_local_memory (0);
  clf_debug_cap_work_group (0);
  use_gpu_programs (0, 0);
}

/* Passes with a side across transforms read and write as many
 * neighbouring values as they hold transforms: at least four a
 * work-group (32 bytes), even where that passes the usual threads, as far
 * as the device allows the program threads. On a GPU 1000 points take 100
 * threads, two transforms within the 256 aimed for; PoCL's programs take
 * fewer, so the test sets 100. (NVIDIA allows that program 256 threads,
 * so two.) */
static void
test_cross_transform_groups (void)
{
  ClfPlanDesc d;
  ClfError err = { 0, };
  ClfPlan *plan;
  size_t want = 0;

  use_gpu_programs (1, 1);
  setenv ("CLFFT_LOCAL_THREADS", "100", 1);
  clf_plan_desc_init (&d, CLF_C2C, CLF_FORWARD, 16, 1000, 1);
  plan = clf_plan_new (harness_context (), &d, &err);
  if (plan && clf_debug_plan_passes (plan) == 2) {
    want = clf_debug_plan_pass_thread_limit (plan, 1) / 100;
    want = want < 4 ? want : 4;
  }
  CHECK (plan && clf_debug_plan_passes (plan) == 2 && want >= 1 &&
      clf_debug_plan_pass_transforms (plan, 1) >= want,
      "16x1000: the 1000-point columns hold %zu to a work-group, not %zu: "
      "%s", plan ? clf_debug_plan_pass_transforms (plan, 1) : 0, want,
      plan ? clf_plan_describe (plan) : err.message);
  clf_plan_free (plan);
  check_err ("1000-point columns, 100 threads each", 16, 1000,
      run_simple (CLF_C2C, CLF_FORWARD, 16, 1000, 1));
  unsetenv ("CLFFT_LOCAL_THREADS");
  use_gpu_programs (0, 1);
}

/* the three-pass split GPUs use for lengths too long for two passes */
static void
test_three_step (void)
{
  static const size_t sizes[] = { 64, 1000, 4096, 6720, 65536 };
  clf_debug_force_three_step (1);
  check_plan_uses (1000, 0, "threestep(10x10x10)");
  check_lengths ("three-step", sizes, sizeof (sizes) / sizeof (sizes[0]));
  clf_debug_force_three_step (0);
}

static void
test_strided_batched (void)
{
  ClfPlanDesc d;

  /* interleaved channels: element stride 3, distance 1, offset 5 */
  clf_plan_desc_init (&d, CLF_C2C, CLF_FORWARD, 360, 0, 3);
  d.in.offset = 5;
  d.in.stride[0] = 3;
  d.in.dist = 1;
  d.out.stride[0] = 1;
  d.out.dist = 400;
  check_err ("strided c2c", 360, 1, run_case (&d, 0, 0));

  /* the same with a length that needs two passes */
  clf_plan_desc_init (&d, CLF_C2C, CLF_INVERSE, 48000, 0, 2);
  d.in.stride[0] = 2;
  d.in.dist = 1;
  d.out.offset = 3;
  d.out.dist = 48010;
  check_err ("strided four-step", 48000, 1, run_case (&d, 0, 0));

  /* Bluestein with strides */
  clf_plan_desc_init (&d, CLF_C2C, CLF_FORWARD, 1009, 0, 2);
  d.in.stride[0] = 2;
  d.in.dist = 1;
  d.out.stride[0] = 2;
  d.out.dist = 1;
  check_err ("strided bluestein", 1009, 1, run_case (&d, 0, 0));

  /* R2C of interleaved stereo into padded rows */
  clf_plan_desc_init (&d, CLF_R2C, CLF_FORWARD, 1022, 0, 2);
  d.in.stride[0] = 2;
  d.in.dist = 1;
  d.out.dist = 600;
  check_err ("strided r2c", 1022, 1, run_case (&d, 0, 0));

  /* 2D batch with padded rows */
  clf_plan_desc_init (&d, CLF_C2C, CLF_FORWARD, 30, 20, 3);
  d.in.stride[1] = 32;
  d.in.dist = 32 * 21;
  d.out.stride[1] = 31;
  d.out.dist = 31 * 20 + 4;
  check_err ("2d padded batch", 30, 20, run_case (&d, 0, 0));

  /* large batch of small transforms */
  check_err ("batch 4096", 64, 1, run_simple (CLF_C2C, CLF_FORWARD, 64, 0,
          4096));
}

static void
test_in_place (void)
{
  static const size_t sizes[] = { 8, 1000, 6720, 1009, 65536 };
  for (size_t i = 0; i < sizeof (sizes) / sizeof (sizes[0]); i++) {
    ClfPlanDesc d;
    clf_plan_desc_init (&d, CLF_C2C, CLF_FORWARD, sizes[i], 0, 2);
    check_err ("in place", sizes[i], 1, run_case (&d, 0, 1));
  }
  {
    ClfPlanDesc d;
    clf_plan_desc_init (&d, CLF_C2C, CLF_INVERSE, 640, 480, 1);
    check_err ("2d in place", 640, 480, run_case (&d, 0, 1));
  }
}

/* inverse(forward(x)) / N = x, through the normalize flag */
static void
test_round_trip (void)
{
  static const size_t sizes[] = { 1, 2, 3, 97, 1024, 1080, 6720, 65537 };
  ClfContext *ctx = harness_context ();
  for (size_t i = 0; i < sizeof (sizes) / sizeof (sizes[0]); i++) {
    size_t n = sizes[i];
    ClfPlanDesc fd, id;
    ClfError err = { 0, };
    ClfPlan *f, *inv;
    float *x = malloc (2 * sizeof (float) * n), *y =
        malloc (2 * sizeof (float) * n);
    double *xd = malloc (2 * sizeof (double) * n);
    cl_mem mem;

    ref_fill_random (x, 2 * n, (unsigned) n);
    for (size_t j = 0; j < 2 * n; j++)
      xd[j] = x[j];
    clf_plan_desc_init (&fd, CLF_C2C, CLF_FORWARD, n, 0, 1);
    clf_plan_desc_init (&id, CLF_C2C, CLF_INVERSE, n, 0, 1);
    id.normalize = 1;
    f = clf_plan_new (ctx, &fd, &err);
    inv = clf_plan_new (ctx, &id, &err);
    CHECK (f && inv, "round trip plans %zu: %s", n, err.message);
    if (f && inv) {
      double e;
      mem = harness_buffer (2 * sizeof (float) * n, x);
      clf_plan_enqueue (f, mem, mem, &err);
      clf_plan_enqueue (inv, mem, mem, &err);
      harness_read (mem, 2 * sizeof (float) * n, y);
      clReleaseMemObject (mem);
      e = ref_rel_rms_err (y, xd, n);
      /* two transforms: twice the single-transform bound */
      CHECK (e <= 2 * bound_for (n, 1), "round trip %zu: %.3g", n, e);
    }
    clf_plan_free (f);
    clf_plan_free (inv);
    free (x);
    free (y);
    free (xd);
  }
}

/* The CPU path's composites of 11 and 31 (22, 33, 62: 2046, clfftspectrum's
 * length at bands=1024, in two passes instead of three), forced on any
 * device: 33 as the last stage, 22 the first, and 33 the first through
 * CLFFT_CPU_RADICES. */
static void
test_cpu_path_composites (void)
{
  static const size_t sizes[] = { 528, 1364, 2046 };
  setenv ("CLFFT_CPU_PATH", "1", 1);
  check_plan_uses (528, 0, "cput(528:16x33)");
  check_plan_uses (1364, 0, "cput(1364:22x62)");
  check_plan_uses (2046, 0, "cput(2046:62x33)");
  check_lengths ("cpu composites", sizes, sizeof (sizes) / sizeof (sizes[0]));
  setenv ("CLFFT_CPU_RADICES", "33x62", 1);
  setenv ("CLFFT_CPU_ORDER", "1", 1);
  check_plan_uses (2046, 0, "cput(2046:33x62)");
  check_err ("cpu composite 33 first", 2046, 1, run_simple (CLF_C2C,
          CLF_INVERSE, 2046, 0, 3));
  unsetenv ("CLFFT_CPU_ORDER");
  unsetenv ("CLFFT_CPU_RADICES");
  /* CLFFT_CPU_RADICES sets the stages where they multiply to the length,
   * in the order CLFFT_CPU_ORDER asks for */
  setenv ("CLFFT_CPU_RADICES", "7x4", 1);
  setenv ("CLFFT_CPU_ORDER", "1", 1);
  check_plan_uses (28, 0, "cput(28:7x4");
  check_err ("cpu radices from the environment", 28, 1,
      run_simple (CLF_C2C, CLF_INVERSE, 28, 0, 9));
  unsetenv ("CLFFT_CPU_ORDER");
  check_plan_uses (28, 0, "cpu(28:7x4");
  check_plan_lacks (30, 0, "7x4");
  unsetenv ("CLFFT_CPU_RADICES");
  unsetenv ("CLFFT_CPU_PATH");
}

/* Rows past whole rows on the CPU path (and, with CLFFT_CPU_WHOLE=0, the
 * rows of 65 to 225 points that run whole): the transposed order ends in
 * no stage of 4 butterflies or fewer and takes no radix above 32 across
 * as few work-items (FEW_LANES_COST), so 84 is no longer 2x42 nor 124
 * 2x62; no radix above 32 runs two butterflies along the vector lanes
 * (SCALAR_WIDE_COST): 98 is no longer 2x49. */
static void
test_cpu_path_few_lanes (void)
{
  static const size_t sizes[] = { 84, 98, 105, 124, 186, 189, 450, 576,
    620, 693, 729, 1116, 1260
  };
  /* lengths that run whole by default, transformed in stages too */
  static const size_t staged[] = { 84, 98, 105 };
  setenv ("CLFFT_CPU_PATH", "1", 1);
  setenv ("CLFFT_CPU_WHOLE", "0", 1);
  check_plan_uses (84, 0, "cput(84:12x7");
  check_plan_uses (105, 0, "cput(105:15x7");
  check_plan_uses (98, 0, "cput(98:14x7");
  /* a rest of lanes in the last stage, not of work-items in the first
   * (LAST_STAGE_REST) */
  check_plan_uses (120, 0, "cput(120:15x8");
  check_lengths ("cpu few lanes staged", staged,
      sizeof (staged) / sizeof (staged[0]));
  unsetenv ("CLFFT_CPU_WHOLE");
  check_plan_uses (124, 0, "cput(124:31x4");
  check_plan_uses (186, 0, "cput(186:6x31");
  /* but a radix of 50 or more across 9 to 12 lanes pays its second
   * vector whole (WIDE_LANES_REST): 576 is no longer 9x64 */
  check_plan_uses (576, 0, "cput(576:24x24");
  check_plan_uses (693, 0, "cput(693:21x33");
  /* and any radix across 9 or 10 lanes (SPARSE_SECOND_VECTOR): 189 is no
   * longer 9x21 nor 450 10x45; 11 lanes keep their stages */
  check_plan_uses (189, 0, "cput(189:21x9");
  check_plan_uses (450, 0, "cput(450:18x25");
  check_plan_uses (440, 0, "cput(440:11x40");
  /* two stages of wide radices rather than three of short ones, up to
   * 4096 points (STAGE_PASS_COST); longer rows keep three */
  check_plan_uses (729, 0, "cput(729:27x27");
  check_plan_uses (1260, 0, "cput(1260:30x42");
  check_plan_uses (4096, 0, "cput(4096:64x64");
  check_plan_uses (6144, 0, "cput(6144:16x16x24");
  /* 31 and a radix twice the other rather than 62 at as many stages
   * (RADIX_62_COST); 1364 keeps 22x62 (4x11x31 takes a stage more) */
  check_plan_uses (620, 0, "cput(620:31x20");
  check_plan_uses (1116, 0, "cput(1116:31x36");
  check_plan_uses (1364, 0, "cput(1364:22x62");
  check_lengths ("cpu few lanes", sizes, sizeof (sizes) / sizeof (sizes[0]));
  unsetenv ("CLFFT_CPU_PATH");
}

/* Rows of up to 4096 points on the CPU path take a whole-row composite
 * of 66 to 81 points as a stage where it saves one (ROW_LONG_MAX), but
 * not where their three stages end in a multiple of 8 (1560) nor in
 * columns. */
static void
test_cpu_path_long_stages (void)
{
  static const size_t sizes[] = { 858, 1190, 2187, 3430 };
  setenv ("CLFFT_CPU_PATH", "1", 1);
  check_plan_uses (858, 0, "cput(858:13x66)");
  check_plan_uses (1190, 0, "cput(1190:70x17)");
  check_plan_uses (2187, 0, "cput(2187:27x81)");
  check_plan_uses (3430, 0, "cput(3430:70x49)");
  check_plan_uses (1560, 0, "cput(1560:13x15x8)");
  check_plan_uses (4, 3430, "cpucols(3430:");
  check_plan_lacks (4, 3430, "cpucols(3430:70");
  check_plan_lacks (4, 3430, "x70");
  check_lengths ("cpu long stages", sizes, sizeof (sizes) / sizeof (sizes[0]));
  check_err ("cpu long stages 2d", 4, 3430, run_simple (CLF_C2C, CLF_FORWARD,
          4, 3430, 1));
  unsetenv ("CLFFT_CPU_PATH");
}

/* The CPU path (ocl/clf-plan-cpu.c, on PoCL by default, forced here on
 * any device) in small chunks, so that chunk edges, partial last chunks
 * and the column rest launches all run, in both orders of the rows. */
static void
test_cpu_path_chunks (void)
{
  static const char *orders[] = { "0", "1" };
  setenv ("CLFFT_CPU_PATH", "1", 1);
  setenv ("CLFFT_CPU_CHUNK", "65536", 1);
  {
    /* the hook really chunks: columns of 100 in chunks of 80 and a rest */
    ClfPlanDesc d;
    ClfError err = { 0, };
    ClfPlan *plan;
    clf_plan_desc_init (&d, CLF_C2C, CLF_FORWARD, 100, 90, 3);
    plan = clf_plan_new (harness_context (), &d, &err);
    CHECK (plan && strstr (clf_plan_describe (plan), "cpucols(90:") &&
        strstr (clf_plan_describe (plan), "chunks of 80"),
        "CPU path not chunked: %s", plan ? clf_plan_describe (plan) :
        err.message);
    clf_plan_free (plan);
  }
  for (int o = 0; o < 2; o++) {
    ClfPlanDesc d;
    setenv ("CLFFT_CPU_ORDER", orders[o], 1);
    check_err ("cpu chunks c2c", 1000, 1, run_simple (CLF_C2C, CLF_FORWARD,
            1000, 0, 37));
    check_err ("cpu chunks inverse", 1960, 1, run_simple (CLF_C2C,
            CLF_INVERSE, 1960, 0, 9));
    check_err ("cpu chunks r2c", 1960, 1, run_simple (CLF_R2C, CLF_FORWARD,
            1960, 0, 5));
    check_err ("cpu chunks c2r", 1922, 1, run_simple (CLF_C2R, CLF_INVERSE,
            1922, 0, 5));
    check_err ("cpu chunks 2d c2c", 100, 90, run_simple (CLF_C2C,
            CLF_FORWARD, 100, 90, 3));
    check_err ("cpu chunks 2d inverse", 96, 81, run_simple (CLF_C2C,
            CLF_INVERSE, 96, 81, 2));
    check_err ("cpu chunks 2d r2c", 130, 48, run_simple (CLF_R2C,
            CLF_FORWARD, 130, 48, 2));
    check_err ("cpu chunks 2d c2r", 130, 48, run_simple (CLF_C2R,
            CLF_INVERSE, 130, 48, 2));

    /* interleaved channels: transforms adjacent (columns of 3) */
    clf_plan_desc_init (&d, CLF_C2C, CLF_FORWARD, 360, 0, 3);
    d.in.offset = 5;
    d.in.stride[0] = 3;
    d.in.dist = 1;
    d.out.stride[0] = 3;
    d.out.dist = 1;
    check_err ("cpu chunks interleaved", 360, 1, run_case (&d, 0, 0));

    /* 2D batch with padded rows, normalised inverse, in place */
    clf_plan_desc_init (&d, CLF_C2C, CLF_INVERSE, 120, 70, 3);
    d.in.stride[1] = 128;
    d.in.dist = 128 * 71;
    d.out = d.in;
    d.normalize = 1;
    check_err ("cpu chunks 2d padded in place", 120, 70, run_case (&d, 0,
            1));
  }
  unsetenv ("CLFFT_CPU_ORDER");
  unsetenv ("CLFFT_CPU_CHUNK");
  unsetenv ("CLFFT_CPU_PATH");
}

/* C2R on the CPU path: its first stage reads the half spectrum forwards
 * for its first inputs and mirrored for the last, with one input that
 * crosses n/2 when the first radix is odd. Lengths with even and odd
 * first radices (CLFFT_CPU_ORDER 0 and 1 plan some differently), odd
 * lengths, single stages, a padded batch. */
static void
test_cpu_path_c2r (void)
{
  static const size_t sizes[] = { 15, 16, 45, 98, 135, 250, 726, 1000,
    1125, 1215, 1922, 2046, 3072
  };
  static const char *orders[] = { "0", "1" };
  setenv ("CLFFT_CPU_PATH", "1", 1);
  for (int o = 0; o < 2; o++) {
    ClfPlanDesc d;
    setenv ("CLFFT_CPU_ORDER", orders[o], 1);
    for (size_t i = 0; i < sizeof (sizes) / sizeof (sizes[0]); i++)
      check_err ("cpu c2r", sizes[i], 1, run_simple (CLF_C2R, CLF_INVERSE,
              sizes[i], 0, 3));
    check_err ("cpu 2d c2r", 135, 20, run_simple (CLF_C2R, CLF_INVERSE, 135,
            20, 2));
    /* transforms 700 half spectra apart, offset into the buffer */
    clf_plan_desc_init (&d, CLF_C2R, CLF_INVERSE, 1125, 0, 3);
    d.in.offset = 7;
    d.in.dist = 700;
    check_err ("cpu c2r padded", 1125, 1, run_case (&d, 0, 0));
  }
  unsetenv ("CLFFT_CPU_ORDER");
  unsetenv ("CLFFT_CPU_PATH");
}

/* A plan of d describes itself with part (present) or without it */
static void
check_desc_uses (const ClfPlanDesc * d, const char *part, int present)
{
  ClfError err = { 0, };
  ClfPlan *plan = clf_plan_new (harness_context (), d, &err);

  CHECK (plan && (strstr (clf_plan_describe (plan), part) != NULL) == present,
      "%zu-point kind %d: %s %s: %s", d->n[0], (int) d->kind, part,
      present ? "not used" : "used", plan ? clf_plan_describe (plan) :
      err.message);
  clf_plan_free (plan);
}

/* C2R of a half spectrum whose first and last bins (DC and, n even,
 * Nyquist) have imaginary parts, as no real signal's spectrum has: a
 * real output drops them (as FFTW's c2r does), at half length and at
 * the whole (real_half off) alike. */
static void
check_c2r_drops_edge_imaginary (size_t n, int whole)
{
  ClfPlanDesc d;
  ClfError err = { 0, };
  ClfPlan *plan;
  size_t half = n / 2 + 1;
  float *spec = malloc (2 * sizeof (float) * half);
  float *got = malloc (sizeof (float) * n);
  double *full = calloc (2 * n, sizeof (double));
  double *ref = malloc (2 * sizeof (double) * n);
  cl_mem in, out;

  ref_fill_random (spec, 2 * half, (unsigned) n);
  for (size_t k = 0; k < half; k++) {
    /* the spectrum a real output sees: U[n-k] = conj U[k], U[0] and
     * U[n/2] real */
    int edge = k == 0 || 2 * k == n;
    full[2 * k] = spec[2 * k];
    full[2 * k + 1] = edge ? 0.0 : spec[2 * k + 1];
    if (k > 0 && !edge) {
      full[2 * (n - k)] = spec[2 * k];
      full[2 * (n - k) + 1] = -spec[2 * k + 1];
    }
  }
  ref_fft (full, ref, n, 1, 1);
  for (size_t t = 0; t < n; t++)
    ref[t] = ref[2 * t];

  if (whole)
    setenv ("CLFFT_CPU_REAL_HALF", "0", 1);
  clf_plan_desc_init (&d, CLF_C2R, CLF_INVERSE, n, 0, 1);
  plan = clf_plan_new (harness_context (), &d, &err);
  unsetenv ("CLFFT_CPU_REAL_HALF");
  CHECK (plan != NULL, "c2r %zu: %s", n, err.message);
  if (plan) {
    CHECK ((strstr (clf_plan_describe (plan), "as merged") == NULL) == whole,
        "c2r %zu: %s", n, clf_plan_describe (plan));
    in = harness_buffer (2 * sizeof (float) * half, spec);
    out = harness_buffer (sizeof (float) * n, NULL);
    CHECK (clf_plan_enqueue (plan, in, out, &err) == CLF_OK, "enqueue: %s",
        err.message);
    harness_read (out, sizeof (float) * n, got);
    check_err (whole ? "c2r edge imaginary, whole" :
        "c2r edge imaginary, half", n, 1, ref_rel_rms_err_real (got, ref, n));
    clReleaseMemObject (in);
    clReleaseMemObject (out);
    clf_plan_free (plan);
  }
  free (spec);
  free (got);
  free (full);
  free (ref);
}

/* Real transforms of even length on the CPU path run as complex ones of
 * half the length between kernels/fft_real.cl's passes, where the real
 * side's values are adjacent at even offsets; lengths whose half is one
 * radix or less and other layouts keep the whole length. */
static void
test_cpu_path_real_half (void)
{
  static const size_t sizes[] = { 4, 6, 10, 30, 64, 126, 1000, 1922, 2046,
    3072
  };
  ClfPlanDesc d;

  setenv ("CLFFT_CPU_PATH", "1", 1);
  clf_plan_desc_init (&d, CLF_R2C, CLF_FORWARD, 2046, 0, 2);
  check_desc_uses (&d, "2046 as split 1023:", 1);
  clf_plan_desc_init (&d, CLF_C2R, CLF_INVERSE, 1000, 0, 2);
  check_desc_uses (&d, "1000 as merged 500:", 1);
  for (size_t i = 0; i < sizeof (sizes) / sizeof (sizes[0]); i++) {
    check_err ("cpu half r2c", sizes[i], 1, run_simple (CLF_R2C,
            CLF_FORWARD, sizes[i], 0, 3));
    check_err ("cpu half c2r", sizes[i], 1, run_simple (CLF_C2R,
            CLF_INVERSE, sizes[i], 0, 3));
  }
  check_err ("cpu half 2d r2c", 136, 20, run_simple (CLF_R2C, CLF_FORWARD,
          136, 20, 2));
  check_err ("cpu half 2d c2r", 136, 20, run_simple (CLF_C2R, CLF_INVERSE,
          136, 20, 2));

  /* real rows at an even offset, 1010 apart: halved */
  clf_plan_desc_init (&d, CLF_R2C, CLF_FORWARD, 1000, 0, 3);
  d.in.offset = 6;
  d.in.dist = 1010;
  d.out.offset = 3;
  d.out.dist = 520;
  check_desc_uses (&d, "as split", 1);
  check_err ("cpu half r2c padded", 1000, 1, run_case (&d, 0, 0));
  /* at an odd offset: the whole length */
  d.in.offset = 5;
  check_desc_uses (&d, "as split", 0);
  check_err ("cpu whole r2c odd offset", 1000, 1, run_case (&d, 0, 0));
  /* real outputs 1001 apart: the whole length */
  clf_plan_desc_init (&d, CLF_C2R, CLF_INVERSE, 1000, 0, 3);
  d.out.dist = 1001;
  check_desc_uses (&d, "as merged", 0);
  check_err ("cpu whole c2r odd distance", 1000, 1, run_case (&d, 0, 0));
  /* in place, rows padded to 2 (n/2 + 1) reals, normalised */
  clf_plan_desc_init (&d, CLF_R2C, CLF_FORWARD, 1000, 0, 3);
  d.in.dist = 1002;
  d.out.dist = 501;
  check_err ("cpu half r2c in place", 1000, 1, run_case (&d, 0, 1));
  clf_plan_desc_init (&d, CLF_C2R, CLF_INVERSE, 1000, 0, 3);
  d.in.dist = 501;
  d.out.dist = 1002;
  d.normalize = 1;
  check_desc_uses (&d, "as merged", 1);
  check_err ("cpu half c2r in place", 1000, 1, run_case (&d, 0, 1));
  check_c2r_drops_edge_imaginary (1000, 0);
  check_c2r_drops_edge_imaginary (1000, 1);
  unsetenv ("CLFFT_CPU_PATH");
}

/* n random complex values in a new device buffer */
static cl_mem
random_multiplier (size_t n, unsigned seed)
{
  float *m = malloc (2 * sizeof (float) * n);
  cl_mem mem;

  ref_fill_random (m, 2 * n, seed);
  mem = harness_buffer (2 * sizeof (float) * n, m);
  free (m);
  return mem;
}

/* 1D C2C with an input extent (garbage beyond it, taken as zero), an
 * input multiplier and an output extent, alone and together */
static void
check_extents (const char *what, size_t n, size_t batch, ClfDirection dir,
    size_t in_extent, int multiply, size_t out_extent)
{
  ClfPlanDesc d;
  char label[160];

  clf_plan_desc_init (&d, CLF_C2C, dir, n, 0, batch);
  d.in_extent = in_extent;
  d.out_extent = out_extent;
  d.in_multiplier = multiply ? random_multiplier (n, (unsigned) n) : NULL;
  snprintf (label, sizeof (label), "%s (input<%zu%s, output<%zu)", what,
      in_extent, multiply ? " multiplied" : "", out_extent);
  check_err (label, n, 1, run_case (&d, 0, 0));
  check_err (label, n, 1, run_case (&d, 0, 1));
  /* strided and adjacent transforms: the CPU path's column mode */
  d.in.stride[0] = batch;
  d.in.dist = 1;
  d.out.stride[0] = batch;
  d.out.dist = 1;
  check_err (label, n, 1, run_case (&d, 0, 0));
  if (d.in_multiplier)
    clReleaseMemObject (d.in_multiplier);
}

/* 2D with input and output extents over rows (garbage in the input's
 * rows past its extent) */
static void
check_extents_2d (ClfTransformKind kind, ClfDirection dir, size_t nx,
    size_t ny, size_t batch, size_t in_extent, size_t out_extent)
{
  static const char *kinds[] = { "c2c", "r2c", "c2r" };
  ClfPlanDesc d;
  char label[160];

  clf_plan_desc_init (&d, kind, dir, nx, ny, batch);
  d.in_extent = in_extent;
  d.out_extent = out_extent;
  snprintf (label, sizeof (label), "2D %s %zux%zu extents (rows: input<%zu, "
      "output<%zu)", kinds[kind], nx, ny, in_extent, out_extent);
  check_err (label, nx, ny, run_case (&d, 0, 0));
  if (kind == CLF_C2C)
    check_err (label, nx, ny, run_case (&d, 0, 1));
}

static void
check_extent_cases (void)
{
  check_extents ("extents", 3072, 5, CLF_FORWARD, 1920, 0, 0);
  check_extents ("extents", 2240, 3, CLF_INVERSE, 0, 1, 1080);
  check_extents ("extents", 1000, 9, CLF_INVERSE, 700, 1, 999);
  check_extents ("extents", 64, 16, CLF_FORWARD, 1, 1, 1);
  check_extents ("extents", 1009, 2, CLF_FORWARD, 500, 1, 300);
  /* a frame at the top of a convolution's grid, and its result */
  check_extents_2d (CLF_R2C, CLF_FORWARD, 96, 70, 3, 33, 0);
  check_extents_2d (CLF_C2R, CLF_INVERSE, 96, 70, 3, 0, 33);
  check_extents_2d (CLF_R2C, CLF_FORWARD, 128, 112, 2, 54, 54);
  check_extents_2d (CLF_C2C, CLF_FORWARD, 60, 48, 2, 20, 20);
  check_extents_2d (CLF_C2C, CLF_INVERSE, 45, 32, 3, 1, 31);
  check_extents_2d (CLF_C2R, CLF_INVERSE, 50, 91, 1, 0, 1);
}

/* Rows of up to 64 points of prime factors up to 31, and 31 lengths of
 * 65 to 225 points (whole_long_set), run whole in one stage on the CPU
 * path, eight transforms in a work-item's lanes (MODE 5 of
 * kernels/fft_cpu.cl): the composites only whole rows take, lengths
 * below 4 and every remainder of 4 (rows loaded 4 values at a time),
 * batches that leave a partial group, chunks, in place, rows of other
 * strides and an output extent. "every length 1..1024" runs the other
 * lengths (batches of 2). */
static void
test_cpu_path_whole_rows (void)
{
  static const size_t sizes[] = { 2, 3, 5, 6, 7, 12, 26, 28, 31, 34, 38,
    39, 44, 46, 51, 52, 55, 57, 58, 62, 64, 66, 81, 99, 110, 121, 125, 126
  };
  ClfPlanDesc d;

  setenv ("CLFFT_CPU_PATH", "1", 1);
  check_plan_uses (28, 0, "cpuw(28:28)");
  check_plan_uses (58, 0, "cpuw(58:58)");
  check_plan_uses (81, 0, "cpuw(81:81)");
  check_plan_uses (125, 0, "cpuw(125:125)");
  check_plan_uses (225, 0, "cpuw(225:225)");
  check_plan_lacks (68, 0, "cpuw");
  check_plan_lacks (130, 0, "cpuw");
  check_plan_lacks (37, 0, "cpuw(37");
  setenv ("CLFFT_CPU_WHOLE", "0", 1);
  check_plan_lacks (28, 0, "cpuw");
  unsetenv ("CLFFT_CPU_WHOLE");
  for (size_t i = 0; i < sizeof (sizes) / sizeof (sizes[0]); i++)
    check_err ("whole rows c2c", sizes[i], 1, run_simple (CLF_C2C,
            CLF_FORWARD, sizes[i], 0, 13));
  check_err ("whole rows inverse", 7, 1, run_simple (CLF_C2C, CLF_INVERSE, 7,
          0, 13));
  check_err ("whole rows inverse", 58, 1, run_simple (CLF_C2C, CLF_INVERSE,
          58, 0, 16));
  check_err ("whole rows inverse", 100, 1, run_simple (CLF_C2C, CLF_INVERSE,
          100, 0, 11));
  check_err ("whole rows 2d", 12, 10, run_simple (CLF_C2C, CLF_FORWARD, 12,
          10, 3));
  /* real rows of 2n points as n complex values (real_half) */
  {
    ClfContext *ctx = harness_context ();
    ClfError err = { 0, };
    ClfPlan *plan;
    clf_plan_desc_init (&d, CLF_R2C, CLF_FORWARD, 56, 0, 9);
    plan = clf_plan_new (ctx, &d, &err);
    CHECK (plan && strstr (clf_plan_describe (plan), "cpuw(56 as split 28:28"),
        "R2C 56 not as whole rows of 28: %s", plan ?
        clf_plan_describe (plan) : err.message);
    clf_plan_free (plan);
  }
  check_err ("whole rows r2c", 56, 1, run_simple (CLF_R2C, CLF_FORWARD, 56, 0,
          9));
  check_err ("whole rows c2r", 56, 1, run_simple (CLF_C2R, CLF_INVERSE, 56, 0,
          9));
  check_err ("whole rows r2c", 14, 1, run_simple (CLF_R2C, CLF_FORWARD, 14, 0,
          19));
  check_err ("whole rows c2r", 128, 1, run_simple (CLF_C2R, CLF_INVERSE, 128,
          0, 3));
  check_err ("whole rows r2c", 256, 1, run_simple (CLF_R2C, CLF_FORWARD, 256,
          0, 5));

  /* in place, normalised; chunks of 24 transforms and a partial last */
  clf_plan_desc_init (&d, CLF_C2C, CLF_INVERSE, 28, 0, 101);
  d.normalize = 1;
  check_err ("whole rows in place", 28, 1, run_case (&d, 0, 1));
  setenv ("CLFFT_CPU_CHUNK", "4096", 1);
  check_err ("whole rows in chunks", 28, 1, run_case (&d, 0, 0));
  check_err ("whole rows in chunks in place", 28, 1, run_case (&d, 0, 1));
  unsetenv ("CLFFT_CPU_CHUNK");

  /* elements two apart, rows at odd distances: lanes loaded one by one */
  clf_plan_desc_init (&d, CLF_C2C, CLF_FORWARD, 12, 0, 11);
  d.in.stride[0] = 2;
  d.in.dist = 25;
  d.out.offset = 3;
  d.out.dist = 13;
  check_err ("whole rows strided", 12, 1, run_case (&d, 0, 0));

  /* an output extent: vector stores below it, single values at its edge */
  check_extents ("whole rows extent", 60, 11, CLF_INVERSE, 0, 0, 37);
  unsetenv ("CLFFT_CPU_PATH");
}

/* ClfPlanDesc's input extent, multiplier and output extent: on the
 * device's own path (PoCL: CPU passes, in both orders and in chunks),
 * through the pass that applies them before other transforms, and
 * refused where they do not apply */
static void
test_extents_and_multiplier (void)
{
  static const char *orders[] = { "0", "1" };
  ClfContext *ctx = harness_context ();
  ClfError err = { 0, };
  ClfPlanDesc d;
  ClfPlan *plan;

  check_extent_cases ();
  setenv ("CLFFT_CPU_PATH", "1", 1);
  setenv ("CLFFT_CPU_CHUNK", "65536", 1);
  for (int o = 0; o < 2; o++) {
    setenv ("CLFFT_CPU_ORDER", orders[o], 1);
    check_extent_cases ();
  }
  unsetenv ("CLFFT_CPU_ORDER");
  unsetenv ("CLFFT_CPU_CHUNK");
  unsetenv ("CLFFT_CPU_PATH");
  use_gpu_programs (1, 0);
  check_extent_cases ();
  use_gpu_programs (0, 0);

  /* extents of the whole length add no pass where passes apply them */
  use_gpu_programs (1, 0);
  clf_plan_desc_init (&d, CLF_C2C, CLF_FORWARD, 1000, 0, 4);
  d.in_extent = 1000;
  d.out_extent = 1000;
  plan = clf_plan_new (ctx, &d, &err);
  CHECK (plan && !strstr (clf_plan_describe (plan), "input<"),
      "whole-length extent planned as one: %s", plan ?
      clf_plan_describe (plan) : err.message);
  CHECK (plan && clf_debug_plan_passes (plan) == 1,
      "whole-length extent added a pass (%d)", plan ?
      clf_debug_plan_passes (plan) : -1);
  clf_plan_free (plan);
  use_gpu_programs (0, 0);

  clf_plan_desc_init (&d, CLF_C2R, CLF_INVERSE, 64, 64, 1);
  d.in_extent = 10;
  plan = clf_plan_new (ctx, &d, &err);
  CHECK (!plan && err.code == CLF_ERROR_INVALID_ARG,
      "input extent of a 2D half spectrum accepted");
  clf_plan_desc_init (&d, CLF_R2C, CLF_FORWARD, 64, 32, 1);
  d.out_extent = 33;
  plan = clf_plan_new (ctx, &d, &err);
  CHECK (!plan && err.code == CLF_ERROR_INVALID_ARG,
      "2D extent beyond the rows accepted");
  clf_plan_desc_init (&d, CLF_C2C, CLF_FORWARD, 64, 64, 1);
  d.in_multiplier = random_multiplier (64, 1);
  plan = clf_plan_new (ctx, &d, &err);
  CHECK (!plan && err.code == CLF_ERROR_INVALID_ARG, "2D multiplier accepted");
  clReleaseMemObject (d.in_multiplier);
  clf_plan_desc_init (&d, CLF_R2C, CLF_FORWARD, 64, 0, 1);
  d.out_extent = 10;
  plan = clf_plan_new (ctx, &d, &err);
  CHECK (!plan && err.code == CLF_ERROR_INVALID_ARG, "R2C extent accepted");
  clf_plan_desc_init (&d, CLF_C2C, CLF_FORWARD, 64, 0, 1);
  d.in_extent = 65;
  plan = clf_plan_new (ctx, &d, &err);
  CHECK (!plan && err.code == CLF_ERROR_INVALID_ARG,
      "extent beyond the length accepted");
  d.in_extent = 0;
  d.in_multiplier = random_multiplier (63, 1);
  plan = clf_plan_new (ctx, &d, &err);
  CHECK (!plan && err.code == CLF_ERROR_INVALID_ARG,
      "multiplier of 63 values for 64 accepted");
  clReleaseMemObject (d.in_multiplier);
}

/* The lines of a pair's test, and the chunks its hooks were given */
typedef struct
{
  cl_mem from, to;              /* before copies from to buf, after from buf */
  cl_mem buf;
  size_t n, batch;
  int in_rows;
  size_t next;                  /* where the next chunk must start */
  int chunks, bad;
} PairLines;

/* Copies lines [from, from + count) of one buffer to another */
static ClfStatus
copy_lines (PairLines * pl, cl_mem src, cl_mem dst, size_t from,
    size_t count, ClfError * err)
{
  size_t f2 = 2 * sizeof (float);
  size_t origin[3] = { pl->in_rows ? from * f2 : from * pl->n * f2, 0, 0 };
  size_t region[3] = { pl->in_rows ? count * f2 : count * pl->n * f2,
    pl->in_rows ? pl->n : 1, 1
  };
  size_t pitch = pl->in_rows ? pl->batch * f2 : 0;
  cl_int e = clEnqueueCopyBufferRect (clf_context_get_queue
      (harness_context ()), src, dst, origin, origin, region, pitch, 0,
      pitch, 0, 0, NULL, NULL);

  return e == CL_SUCCESS ? CLF_OK : clf_set_cl_error (err, e,
      "clEnqueueCopyBufferRect");
}

/* before: the chunk's lines into place, chunks in order and adjacent */
static ClfStatus
pair_before (size_t from, size_t count, void *data, ClfError * err)
{
  PairLines *pl = data;

  if (from != pl->next || count == 0 || from + count > pl->batch)
    pl->bad++;
  pl->next = from + count;
  pl->chunks++;
  return copy_lines (pl, pl->from, pl->buf, from, count, err);
}

static ClfStatus
pair_after (size_t from, size_t count, void *data, ClfError * err)
{
  PairLines *pl = data;

  if (from + count != pl->next)
    pl->bad++;
  return copy_lines (pl, pl->buf, pl->to, from, count, err);
}

/* A forward transform of the first extent values of each line, then an
 * inverse one of the spectrum times mul, through clf_plan_enqueue_pair
 * (a line convolution, as clf-convolve-lines.c runs it), its hooks
 * copying each chunk's lines in before and out after: every line
 * against FFTW in double precision. in_rows: the lines side by side
 * (element stride batch), the CPU path's column mode. inv_chunk: the
 * inverse plan's CLFFT_CPU_CHUNK, where not the forward's. pair: whether
 * the plans must run chunk by chunk. */
static void
check_pair (const char *what, size_t n, size_t batch, size_t extent,
    int in_rows, const char *inv_chunk, int pair)
{
  ClfContext *ctx = harness_context ();
  ClfError err = { 0, };
  ClfPlanDesc d;
  ClfPlan *fwd, *inv;
  size_t count = n * batch, bytes = 2 * sizeof (float) * count;
  float *host = malloc (bytes), *orig = malloc (bytes), *mul =
      malloc (2 * sizeof (float) * n), *got = malloc (2 * sizeof (float) * n);
  double *x = malloc (2 * sizeof (double) * n), *y =
      malloc (2 * sizeof (double) * n), worst = 0.0;
  PairLines pl = { NULL, NULL, NULL, n, batch, in_rows, 0, 0, 0 };
  cl_mem kspec;
  /* the forward error reaches the output scaled by |mul| at most
   * sqrt(3) times its RMS (parts uniform in [-1, 1)); the inverse adds
   * its own */
  double bound = (1.0 + sqrt (3.0)) * BOUND_SMOOTH;

  ref_fill_random (mul, 2 * n, 5);
  ref_fill_random (orig, 2 * count, 9);
  /* what the transforms would read where before copied nothing */
  ref_fill_random (host, 2 * count, 11);
  kspec = harness_buffer (2 * sizeof (float) * n, mul);
  pl.from = harness_buffer (bytes, orig);
  pl.buf = harness_buffer (bytes, host);
  pl.to = harness_buffer (bytes, host);
  clf_plan_desc_init (&d, CLF_C2C, CLF_FORWARD, n, 0, batch);
  if (in_rows) {
    d.in.stride[0] = d.out.stride[0] = batch;
    d.in.dist = d.out.dist = 1;
  }
  d.in_extent = extent;
  fwd = clf_plan_new (ctx, &d, &err);
  d.direction = CLF_INVERSE;
  d.in_extent = 0;
  d.in_multiplier = kspec;
  {
    const char *chunk = getenv ("CLFFT_CPU_CHUNK");
    char *keep = chunk ? strdup (chunk) : NULL;
    if (inv_chunk)
      setenv ("CLFFT_CPU_CHUNK", inv_chunk, 1);
    inv = clf_plan_new (ctx, &d, &err);
    if (keep)
      setenv ("CLFFT_CPU_CHUNK", keep, 1);
    else
      unsetenv ("CLFFT_CPU_CHUNK");
    free (keep);
  }
  CHECK (fwd && inv, "%s: plans: %s", what, err.message);
  if (fwd && inv) {
    CHECK (clf_debug_plans_pair (fwd, inv) == pair,
        "%s: plans %s chunk by chunk (%s; %s)", what, pair ? "not run" :
        "run", clf_plan_describe (fwd), clf_plan_describe (inv));
    CHECK (clf_plan_enqueue_pair (fwd, pl.buf, pl.buf, inv, pl.buf, pl.buf,
            pair_before, pair_after, &pl, &err) == CLF_OK,
        "%s: enqueue: %s", what, err.message);
    harness_read (pl.to, bytes, host);
    CHECK (!pl.bad && pl.next == batch && (pair ? pl.chunks > 1 :
            pl.chunks == 1), "%s: chunks given to the hooks: %d, %d "
        "out of order, up to %zu of %zu", what, pl.chunks, pl.bad, pl.next,
        batch);
    for (size_t b = 0; b < batch; b++) {
      double e;
      for (size_t k = 0; k < n; k++) {
        size_t i = in_rows ? k * batch + b : b * n + k;
        x[2 * k] = k < extent ? orig[2 * i] : 0.0;
        x[2 * k + 1] = k < extent ? orig[2 * i + 1] : 0.0;
      }
      ref_fft (x, y, n, 1, -1);
      for (size_t k = 0; k < n; k++) {
        double re = y[2 * k], im = y[2 * k + 1];
        x[2 * k] = re * mul[2 * k] - im * mul[2 * k + 1];
        x[2 * k + 1] = re * mul[2 * k + 1] + im * mul[2 * k];
      }
      ref_fft (x, y, n, 1, 1);
      for (size_t k = 0; k < n; k++) {
        size_t i = in_rows ? k * batch + b : b * n + k;
        got[2 * k] = host[2 * i];
        got[2 * k + 1] = host[2 * i + 1];
      }
      e = ref_rel_rms_err (got, y, n);
      if (!(e <= worst))
        worst = e;
    }
    CHECK (worst <= bound, "%s: rel RMS error %.3g > %.3g", what, worst, bound);
  }
  clf_plan_free (fwd);
  clf_plan_free (inv);
  clReleaseMemObject (pl.from);
  clReleaseMemObject (pl.buf);
  clReleaseMemObject (pl.to);
  clReleaseMemObject (kspec);
  free (host);
  free (orig);
  free (mul);
  free (got);
  free (x);
  free (y);
}

/* Plans run in pairs chunk by chunk on the CPU path where their chunks
 * match, one after the other where they do not (and on GPUs, whose
 * plans have no chunks) */
static void
test_plan_pairs (void)
{
  setenv ("CLFFT_CPU_PATH", "1", 1);
  setenv ("CLFFT_CPU_CHUNK", "65536", 1);
  check_pair ("pair of rows", 1000, 37, 700, 0, NULL, 1);
  check_pair ("pair of columns", 1120, 61, 540, 1, NULL, 1);
  check_pair ("pair of short rows", 100, 300, 60, 0, NULL, 1);
  /* chunks of other sizes */
  check_pair ("unmatched pair", 1000, 37, 700, 0, "131072", 0);
  unsetenv ("CLFFT_CPU_CHUNK");
  /* one chunk: nothing to interleave */
  check_pair ("pair in one chunk", 1000, 37, 700, 0, NULL, 0);
  unsetenv ("CLFFT_CPU_PATH");
  use_gpu_programs (1, 0);
  check_pair ("pair on GPU programs", 1000, 37, 700, 0, NULL, 0);
  use_gpu_programs (0, 0);
}

static void
test_errors (void)
{
  ClfContext *ctx = harness_context ();
  ClfPlanDesc d;
  ClfError err = { 0, };
  ClfPlan *plan;

  clf_plan_desc_init (&d, CLF_C2C, CLF_FORWARD, 0, 0, 1);
  plan = clf_plan_new (ctx, &d, &err);
  CHECK (!plan && err.code == CLF_ERROR_INVALID_ARG, "length 0 accepted");

  clf_plan_desc_init (&d, CLF_C2C, CLF_FORWARD, 16, 0, 0);
  plan = clf_plan_new (ctx, &d, &err);
  CHECK (!plan && err.code == CLF_ERROR_INVALID_ARG, "batch 0 accepted");

  clf_plan_desc_init (&d, CLF_C2C, CLF_FORWARD, 1u << 20, 1u << 12, 1);
  plan = clf_plan_new (ctx, &d, &err);
  CHECK (!plan && err.code == CLF_ERROR_INVALID_ARG,
      "2^32 elements accepted");

  d.dim = 3;
  plan = clf_plan_new (ctx, &d, &err);
  CHECK (!plan && err.code == CLF_ERROR_INVALID_ARG, "dim 3 accepted");

  /* an allocation failure comes back as an error, and the next plan works */
  clf_plan_desc_init (&d, CLF_C2C, CLF_FORWARD, 1009, 0, 1);
  clf_debug_fail_alloc_after (1);
  plan = clf_plan_new (ctx, &d, &err);
  CHECK (!plan && err.code == CLF_ERROR_OUT_OF_MEMORY,
      "injected allocation failure not reported (code %d)", err.code);
  clf_debug_fail_alloc_after (-1);
  plan = clf_plan_new (ctx, &d, &err);
  CHECK (plan != NULL, "plan after failure: %s", err.message);
  clf_plan_free (plan);

  /* a buffer too small for the plan is refused, not overrun */
  {
    cl_mem small = harness_buffer (64, NULL);
    clf_plan_desc_init (&d, CLF_C2C, CLF_FORWARD, 1024, 0, 1);
    plan = clf_plan_new (ctx, &d, &err);
    CHECK (plan && clf_plan_enqueue (plan, small, small,
            &err) == CLF_ERROR_INVALID_ARG, "small buffer accepted");
    clf_plan_free (plan);
    clReleaseMemObject (small);
  }

  /* a device spec that matches nothing */
  {
    ClfContext *none = clf_context_new ("no-such-device-xyz", &err);
    CHECK (!none && err.code == CLF_ERROR_NO_DEVICE,
        "unknown device accepted");
  }
}

int
main (int argc, char **argv)
{
  harness_context ();
  harness_run ("errors", test_errors);
  harness_run ("specialised fft_local", test_specialized_local);
  harness_run ("fft_local block I/O", test_block_io);
  harness_run ("fft_local one thread a transform", test_one_thread);
  harness_run ("fft_local 8 values", test_eight_values);
  harness_run ("fft_local radices 6 and 14", test_stage_cutters);
  harness_run ("measured stage forms", test_measured_forms);
  harness_run ("Bluestein in one pass", test_bluestein_one_pass);
  harness_run ("fft_local planar exchange", test_planar_exchange);
  harness_run ("four-step twiddle on either pass", test_four_step_twiddles);
  harness_run ("work-groups smaller than planned", test_work_group_cap);
  harness_run ("transforms a group across columns",
      test_cross_transform_groups);
  harness_run ("three-pass split", test_three_step);
  harness_run ("every length 1..1024", test_every_length_to_1024);
  harness_run ("real every length 1..256", test_real_every_length_to_256);
  harness_run ("specialised lengths", test_specialized_lengths);
  harness_run ("powers of two to 2^20", test_powers_of_two);
  harness_run ("smooth sizes", test_smooth_sizes);
  harness_run ("primes (Bluestein)", test_primes);
  harness_run ("2D", test_2d);
  harness_run ("2D, columns in two passes", test_2d_column_split);
  harness_run ("strided and batched", test_strided_batched);
  harness_run ("in place", test_in_place);
  harness_run ("round trip", test_round_trip);
  harness_run ("CPU path composites of 11 and 31", test_cpu_path_composites);
  harness_run ("CPU path whole rows", test_cpu_path_whole_rows);
  harness_run ("CPU path rows past whole rows", test_cpu_path_few_lanes);
  harness_run ("CPU path long stages", test_cpu_path_long_stages);
  harness_run ("CPU path in chunks", test_cpu_path_chunks);
  harness_run ("CPU path C2R first stages", test_cpu_path_c2r);
  harness_run ("CPU path real transforms at half length",
      test_cpu_path_real_half);
  harness_run ("input and output extents, input multiplier",
      test_extents_and_multiplier);
  harness_run ("plans in pairs", test_plan_pairs);
  return harness_finish ();
}

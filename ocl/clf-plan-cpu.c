/* clf-plan-cpu.c: axis transforms as barrier-free Stockham passes
 * (kernels/fft_cpu.cl) on CPU devices.
 *
 * PoCL runs a work-group as loops over its work-items and vectorises the
 * innermost one. fft_local (kernels/fft.cl) keeps a transform in local
 * memory with barriers between stages: on PoCL that means generic code
 * (its compiler aborts on the per-length programs), runtime radix switches
 * and context saved at every barrier, about 10-30x slower than FFTW. Here
 * each stage is one launch over global memory, every work-item one
 * butterfly, consecutive work-items on consecutive addresses: the stages
 * run close to the memory bandwidth. Lengths and strides are run-time
 * arguments, so one program serves every length with the same radix. */
#include "clf-plan-cpu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ONE_LEVEL 0xffffffffu
#define MAX_CPU_STAGES 32

/* work-items per work-group: the vectorised loop runs over dimension 0 */
#define WG_TARGET 64

int
clf_plan_cpu_enabled (ClfContext * ctx)
{
  const char *env = getenv ("CLFFT_CPU_PATH");
  if (env && env[0])
    return env[0] != '0';
  return clf_context_is_cpu (ctx);
}

/* Radices of the CPU kernels, largest powers of two first. Returns the
 * number of stages, -1 if n has another prime factor. */
static int
cpu_radices (size_t n, unsigned *radices)
{
  static const unsigned odd[] = { 13, 11, 7, 5, 3 };
  int count = 0, e = 0;

  while (n % 2 == 0) {
    n /= 2;
    e++;
  }
  while (e >= 4) {
    radices[count++] = 16;
    e -= 4;
  }
  if (e > 0)
    radices[count++] = 1u << e;
  for (unsigned i = 0; i < sizeof (odd) / sizeof (odd[0]); i++)
    while (n % odd[i] == 0) {
      if (count >= MAX_CPU_STAGES)
        return -1;
      radices[count++] = odd[i];
      n /= odd[i];
    }
  return n == 1 ? count : -1;
}

static size_t
largest_divisor_upto (size_t n, size_t limit)
{
  for (size_t d = limit < n ? limit : n; d > 1; d--)
    if (n % d == 0)
      return d;
  return 1;
}

static ClfCpuAddr
packed_rows (size_t n)
{
  ClfCpuAddr a = { 0, 1, (cl_uint) n, 0, 0, ONE_LEVEL, 1 };
  return a;
}

/* element e of column c of outer transform o at (o*n + e)*cols + c */
static ClfCpuAddr
packed_columns (size_t n, size_t cols)
{
  ClfCpuAddr a = { 0, (cl_uint) cols, 1, (cl_uint) (n * cols), 0,
    (cl_uint) cols, ONE_LEVEL
  };
  return a;
}

static cl_uint8
addr_to_cl (ClfCpuAddr a)
{
  cl_uint8 v = { {a.off, a.stride, a.d0, a.d1, a.d2, a.nb0, a.nb1, 0} };
  return v;
}

/* Transforms adjacent in memory on both sides, at one stride: vectorise
 * across transforms. Returns the number of adjacent transforms, 0 if the
 * layout is not like that. */
static size_t
column_count (const ClfCpuAxis * ax)
{
  const ClfCpuAddr *i = &ax->in, *o = &ax->out;
  size_t ci = i->nb0 == ONE_LEVEL ? ax->batch : i->nb0;
  size_t co = o->nb0 == ONE_LEVEL ? ax->batch : o->nb0;

  if (i->stride == 1 || o->stride == 1 || i->d0 != 1 || o->d0 != 1)
    return 0;
  if (ci != co || ci < 2 || ax->batch % ci != 0)
    return 0;
  /* a single level must really cover the batch */
  if ((i->nb0 == ONE_LEVEL) != (o->nb0 == ONE_LEVEL))
    return 0;
  return ci;
}

static float *
stage_twiddles (size_t n, const unsigned *radices, int ns, size_t *floats,
    cl_uint * offsets)
{
  size_t total = 0, ns_prod = radices[0], pos = 0;
  float *t;

  for (int s = 1; s < ns; s++) {
    total += (radices[s] - 1) * ns_prod;
    ns_prod *= radices[s];
  }
  t = malloc (2 * sizeof (float) * (total ? total : 1));
  if (!t)
    return NULL;
  ns_prod = radices[0];
  offsets[0] = 0;
  for (int s = 1; s < ns; s++) {
    size_t R = radices[s], L = ns_prod * R;
    offsets[s] = (cl_uint) pos;
    for (size_t r = 1; r < R; r++)
      for (size_t k = 0; k < ns_prod; k++) {
        /* exp(-2 pi i r k / L), the angle reduced exactly first */
        double a = -2.0 * M_PI * (double) ((r * k) % L) / (double) L;
        t[2 * pos] = (float) cos (a);
        t[2 * pos + 1] = (float) sin (a);
        pos++;
      }
    ns_prod = L;
  }
  (void) n;
  *floats = 2 * total;
  return t;
}

int
clf_plan_cpu_add_axis (ClfPlan * plan, const ClfCpuAxis * ax,
    ClfStatus * status, ClfError * err)
{
  ClfContext *ctx = clf_plan_get_context (plan);
  unsigned radices[MAX_CPU_STAGES];
  cl_uint tw_off[MAX_CPU_STAGES];
  size_t n = ax->n, batch = ax->batch, cols, ns_prod, floats = 0;
  int ns, scratch[2] = { -1, -1 }, src;
  cl_mem tw;
  float *table;
  char note[256];

  if (!clf_plan_cpu_enabled (ctx))
    return 0;
  ns = cpu_radices (n, radices);
  /* one stage would read and write the same buffer in place */
  if (ns < 2)
    return 0;

  cols = column_count (ax);

  table = stage_twiddles (n, radices, ns, &floats, tw_off);
  if (!table) {
    *status = clf_set_error (err, CLF_ERROR_OUT_OF_MEMORY, "host memory");
    return 1;
  }
  tw = clf_plan_add_table (plan, table, floats ? floats : 2, err);
  free (table);
  if (!tw) {
    *status = err ? err->code : CLF_ERROR_OPENCL;
    return 1;
  }
  for (int i = 0; i < (ns > 2 ? 2 : 1); i++) {
    scratch[i] = clf_plan_shared_scratch (plan, i,
        n * batch * sizeof (cl_float2), err);
    if (scratch[i] < 0) {
      *status = err ? err->code : CLF_ERROR_OUT_OF_MEMORY;
      return 1;
    }
  }

  snprintf (note, sizeof (note), " cpu%s(%zu:", cols ? "cols" : "", n);
  for (int s = 0; s < ns; s++)
    snprintf (note + strlen (note), sizeof (note) - strlen (note), "%s%u",
        s ? "x" : "", radices[s]);
  strncat (note, ")", sizeof (note) - strlen (note) - 1);
  clf_plan_describe_add (plan, note);

  src = ax->src;
  ns_prod = 1;
  for (int s = 0; s < ns; s++) {
    int first = s == 0, last = s == ns - 1;
    unsigned R = radices[s];
    size_t q_ext = n / (ns_prod * R), e0, e1, global[2], local[2];
    int mode, dst = last ? ax->dst : scratch[s % 2];
    ClfCpuAddr in, out;
    cl_uint8 params, in_cl, out_cl;
    char defines[256];
    cl_kernel k;
    cl_int e = 0;
    float scale = last ? ax->scale : 1.0f;
    float sign_in = first && (ax->flags & CLF_CPU_CONJ_IN) ? -1.0f : 1.0f;
    float sign_out = last && (ax->flags & CLF_CPU_CONJ_OUT) ? -1.0f : 1.0f;

    if (cols) {
      mode = 2;
      e0 = cols;
      e1 = n / R;
    } else if (first || ns_prod < 8) {
      mode = 1;
      e0 = q_ext;
      e1 = ns_prod;
    } else {
      mode = 0;
      e0 = ns_prod;
      e1 = q_ext;
    }
    in = first ? ax->in : cols ? packed_columns (n, cols) : packed_rows (n);
    out = last ? ax->out : cols ? packed_columns (n, cols) : packed_rows (n);
    if (cols) {
      if (in.nb0 == ONE_LEVEL)
        in.nb0 = (cl_uint) cols;
      if (out.nb0 == ONE_LEVEL)
        out.nb0 = (cl_uint) cols;
    }

    snprintf (defines, sizeof (defines), "-DR=%u -DMODE=%d%s -DIN_KIND=%d%s%s"
        "%s%s", R, mode, first ? " -DFIRST" : "",
        !first ? 0 : (ax->flags & CLF_CPU_IN_REAL) ? 1 :
        (ax->flags & CLF_CPU_IN_HERMITIAN) ? 2 : 0,
        last && (ax->flags & CLF_CPU_OUT_REAL) ? " -DOUT_REAL" : "",
        last && ax->count < n ? " -DLIMIT" : "",
        in.stride == 1 ? " -DIN_UNIT" : "",
        out.stride == 1 ? " -DOUT_UNIT" : "");

    global[0] = e0;
    global[1] = e1 * (cols ? batch / cols : batch);
    local[0] = largest_divisor_upto (e0, WG_TARGET);
    local[1] = largest_divisor_upto (global[1], WG_TARGET / local[0]);

    k = clf_plan_add_kernel_pass (plan, "fft_cpu", defines, "fft_cpu_pass",
        src, dst, global, local, err);
    if (!k) {
      *status = err ? err->code : CLF_ERROR_OPENCL;
      return 1;
    }
    params = (cl_uint8) { {(cl_uint) n, (cl_uint) ns_prod,
            ax->count < n ? ax->count : (cl_uint) n, tw_off[s],
        (cl_uint) e1, 0, 0, 0}
    };
    in_cl = addr_to_cl (in);
    out_cl = addr_to_cl (out);
    e |= clSetKernelArg (k, 2, sizeof (in_cl), &in_cl);
    e |= clSetKernelArg (k, 3, sizeof (out_cl), &out_cl);
    e |= clSetKernelArg (k, 4, sizeof (params), &params);
    e |= clSetKernelArg (k, 5, sizeof (tw), &tw);
    e |= clSetKernelArg (k, 6, sizeof (scale), &scale);
    e |= clSetKernelArg (k, 7, sizeof (sign_in), &sign_in);
    e |= clSetKernelArg (k, 8, sizeof (sign_out), &sign_out);
    if (e != CL_SUCCESS) {
      *status = clf_set_cl_error (err, e, "clSetKernelArg (fft_cpu_pass)");
      return 1;
    }
    src = dst;
    ns_prod *= R;
  }
  *status = CLF_OK;
  return 1;
}

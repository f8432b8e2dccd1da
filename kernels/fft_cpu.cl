/* fft_cpu.cl: barrier-free Stockham passes for CPU devices (PoCL).
 *
 * One launch per stage: work-item (k, q, b) does butterfly j = q*NS + k of
 * transform b: it reads x[j + r*N/R], multiplies by w_{NS*R}^{r*k} and
 * writes y[q*NS*R + r*NS + k] (Stockham order; MODE 3/4 keep the data
 * transposed between stages instead). No barriers, no local memory,
 * straight-line code on scalars: PoCL turns the work-item loop into vector
 * code (8 work-items per instruction) when adjacent work-items touch
 * adjacent addresses. Complex values are pairs of floats, never float2:
 * LLVM's loop vectoriser gives up on vector-typed instructions.
 *
 * Compile-time parameters (one program per combination, see
 * ocl/clf-plan-cpu.c):
 *   R         the radix of this stage
 *   MODE      0: rows, k fastest (NS >= 8); 1: rows, q fastest (small NS);
 *             2: columns (transform index c fastest, c adjacent in memory);
 *             3: rows in transposed order, q fastest; 4: the last stage
 *             of the transposed order, GROUP consecutive k in the lanes
 *             of a work-item's vectors (last_stage); 5: rows of N = R
 *             points in one stage, GROUP transforms in the lanes of a
 *             work-item's vectors (whole_rows)
 *   FIRST     first stage (NS = 1): no twiddles
 *   IN_KIND   0 complex, 1 real, 2 Hermitian half spectrum
 *   OUT_REAL  store the real part only
 *   LIMIT     store only outputs below params.s2 (R2C, output extents)
 *   IN_EXTENT, IN_MULTIPLY   first stage of a complex input: elements
 *             from params.s7 on are taken as zero; element e is
 *             multiplied by mul[e] (ClfPlanDesc's in_extent and
 *             in_multiplier)
 *   IN_NZ     with IN_EXTENT: inputs r >= IN_NZ are zero in every
 *             butterfly, constants the compiler folds
 *   IN_UNIT, OUT_UNIT   element stride 1 (rows)
 *
 * Addressing as in fft.cl: transform b, element e at
 *   s0 + e*s1 + (b % s5)*s2 + ((b / s5) % s6)*s3 + (b / (s5*s6))*s4
 * In column mode b = c + s5 * ob (ob: outer transform, from the second
 * global id) and the columns are adjacent (s2 = 1): c + outer(ob).
 */

#define INL __attribute__((always_inline)) inline

#ifndef MODE
#define MODE 0
#endif

/* The parts of a complex value: one butterfly's (PoCL vectorises across
 * work-items), or in MODE 4 those of the GROUP butterflies of one
 * work-item in the lanes of a vector (see last_stage), in MODE 5 those of
 * GROUP whole transforms (whole_rows) */
#if MODE >= 4
#define GROUP 8
typedef float8 real_t;
#else
typedef float real_t;
#endif

typedef struct
{
  real_t r, i;
} cf;

INL cf
mk (real_t r, real_t i)
{
  cf c;
  c.r = r;
  c.i = i;
  return c;
}

INL cf
cadd (cf a, cf b)
{
  return mk (a.r + b.r, a.i + b.i);
}

INL cf
csub (cf a, cf b)
{
  return mk (a.r - b.r, a.i - b.i);
}

INL cf
cmul (cf a, cf b)
{
  return mk (a.r * b.r - a.i * b.i, a.r * b.i + a.i * b.r);
}

/* times -i */
INL cf
cmi (cf a)
{
  return mk (a.i, -a.r);
}

INL cf
cscale (cf a, float s)
{
  return mk (a.r * s, a.i * s);
}

/* ---- butterflies, forward direction (exp(-2 pi i nk/R)) --------------- */

INL void
dft2 (cf * v)
{
  cf a = v[0], b = v[1];
  v[0] = cadd (a, b);
  v[1] = csub (a, b);
}

INL void
dft4 (cf * v)
{
  cf t0 = cadd (v[0], v[2]), t1 = csub (v[0], v[2]);
  cf t2 = cadd (v[1], v[3]), t3 = cmi (csub (v[1], v[3]));
  v[0] = cadd (t0, t2);
  v[2] = csub (t0, t2);
  v[1] = cadd (t1, t3);
  v[3] = csub (t1, t3);
}

#define C8 0.70710678118654752440f

INL void
dft8 (cf * v)
{
  cf e[4], o[4];
  e[0] = v[0];
  e[1] = v[2];
  e[2] = v[4];
  e[3] = v[6];
  o[0] = v[1];
  o[1] = v[3];
  o[2] = v[5];
  o[3] = v[7];
  dft4 (e);
  dft4 (o);
  o[1] = mk ((o[1].r + o[1].i) * C8, (o[1].i - o[1].r) * C8);
  o[2] = cmi (o[2]);
  o[3] = mk ((o[3].i - o[3].r) * C8, -(o[3].r + o[3].i) * C8);
  _Pragma ("unroll")
  for (int k = 0; k < 4; k++) {
    v[k] = cadd (e[k], o[k]);
    v[k + 4] = csub (e[k], o[k]);
  }
}

/* #twiddles lines become tables of w_N^k at build time (embed-kernels.py) */
#twiddles ri w16 16 4

/* w_16^m, m < 16 */
INL cf
w16 (int m)
{
  cf w = mk (w16r[m & 3], w16i[m & 3]);
  if ((m & 4) != 0)
    w = cmi (w);
  if ((m & 8) != 0)
    w = mk (-w.r, -w.i);
  return w;
}

INL void
dft16 (cf * v)
{
  /* 4 x 4: columns of stride 4, twiddle w16^(n1*k2), rows */
  cf t[16];
  _Pragma ("unroll")
  for (int n1 = 0; n1 < 4; n1++) {
    cf c[4];
    c[0] = v[n1];
    c[1] = v[n1 + 4];
    c[2] = v[n1 + 8];
    c[3] = v[n1 + 12];
    dft4 (c);
    _Pragma ("unroll")
    for (int k2 = 0; k2 < 4; k2++)
      t[k2 * 4 + n1] = (n1 * k2 == 0) ? c[k2] : cmul (c[k2], w16 (n1 * k2));
  }
  _Pragma ("unroll")
  for (int k2 = 0; k2 < 4; k2++) {
    cf r[4];
    r[0] = t[k2 * 4];
    r[1] = t[k2 * 4 + 1];
    r[2] = t[k2 * 4 + 2];
    r[3] = t[k2 * 4 + 3];
    dft4 (r);
    _Pragma ("unroll")
    for (int k1 = 0; k1 < 4; k1++)
      v[k2 + 4 * k1] = r[k1];
  }
}

/* Odd radix R: y_k = a0 + sum_n (a_n + a_{R-n}) cos(2 pi nk/R)
 *                   - i sum_n (a_n - a_{R-n}) sin(2 pi nk/R) */
#define DFT_ODD(RR, COS, SIN)                                           \
INL void                                                                \
dft##RR (cf * v)                                                        \
{                                                                       \
  cf u[(RR - 1) / 2], d[(RR - 1) / 2];                                  \
  cf a0 = v[0], sum = v[0];                                             \
  _Pragma ("unroll")                                                    \
  for (int n = 1; n <= (RR - 1) / 2; n++) {                             \
    u[n - 1] = cadd (v[n], v[RR - n]);                                  \
    d[n - 1] = csub (v[n], v[RR - n]);                                  \
    sum = cadd (sum, u[n - 1]);                                         \
  }                                                                     \
  _Pragma ("unroll")                                                    \
  for (int k = 1; k <= (RR - 1) / 2; k++) {                             \
    cf A = a0, B = mk (0.0f, 0.0f);                                     \
    _Pragma ("unroll")                                                  \
    for (int n = 1; n <= (RR - 1) / 2; n++) {                           \
      int m = (n * k) % RR;                                             \
      A = cadd (A, cscale (u[n - 1], COS[m]));                          \
      B = cadd (B, cscale (d[n - 1], SIN[m]));                          \
    }                                                                   \
    v[k] = cadd (A, cmi (B));                                           \
    v[RR - k] = csub (A, cmi (B));                                      \
  }                                                                     \
  v[0] = sum;                                                           \
}

#include "odd-radix-tables.clh"

DFT_ODD (3, clf_cos3, clf_sin3)
DFT_ODD (5, clf_cos5, clf_sin5)
DFT_ODD (7, clf_cos7, clf_sin7)
DFT_ODD (11, clf_cos11, clf_sin11)
DFT_ODD (13, clf_cos13, clf_sin13)

/* primes 17 to 31 (lengths such as spectrum's 2046 = 2x3x11x31), built
 * only into the programs of those radices and of the composites made of
 * them */
#if R == 17 || R == 19 || R == 23 || R == 29 || R == 31 || R == 62 || \
    R == 34 || R == 38 || R == 46 || R == 51 || R == 57 || R == 58
#include "big-radix-tables.clh"
DFT_ODD (17, clf_cos17, clf_sin17)
DFT_ODD (19, clf_cos19, clf_sin19)
DFT_ODD (23, clf_cos23, clf_sin23)
DFT_ODD (29, clf_cos29, clf_sin29)
DFT_ODD (31, clf_cos31, clf_sin31)
#endif


/* ---- composite radices R1 x R2 in registers ---------------------------
 * x[n1 + R1*n2]: DFTs of length R2 over n2, twiddle w_R^(n1*k2), DFTs of
 * length R1 over n1, output k2 + R2*k1. The twiddles are constants
 * (computed in double precision at build time, #twiddles ri); the
 * multiplications by 1, -i, -1 and i fold away after unrolling. */

INL cf
wconst (cf a, int m, int RR, __constant float *WR, __constant float *WI)
{
  m %= RR;
  if (m == 0)
    return a;
  if (4 * m == RR)
    return cmi (a);
  if (2 * m == RR)
    return mk (-a.r, -a.i);
  if (4 * m == 3 * RR)
    return mk (-a.i, a.r);
  return cmul (a, mk (WR[m], WI[m]));
}

#define DFT_COMPOSITE(RR, R1, R2)                                       \
INL void                                                                \
dft##RR (cf * v)                                                        \
{                                                                       \
  cf t[RR];                                                             \
  _Pragma ("unroll")                                                    \
  for (int n1 = 0; n1 < R1; n1++) {                                     \
    cf c[R2];                                                           \
    _Pragma ("unroll")                                                  \
    for (int n2 = 0; n2 < R2; n2++)                                     \
      c[n2] = v[n1 + R1 * n2];                                          \
    dft##R2 (c);                                                        \
    _Pragma ("unroll")                                                  \
    for (int k2 = 0; k2 < R2; k2++)                                     \
      t[k2 * R1 + n1] = wconst (c[k2], n1 * k2, RR, cpu_w##RR##r,       \
          cpu_w##RR##i);                                                \
  }                                                                     \
  _Pragma ("unroll")                                                    \
  for (int k2 = 0; k2 < R2; k2++) {                                     \
    cf r[R1];                                                           \
    _Pragma ("unroll")                                                  \
    for (int n1 = 0; n1 < R1; n1++)                                     \
      r[n1] = t[k2 * R1 + n1];                                          \
    dft##R1 (r);                                                        \
    _Pragma ("unroll")                                                  \
    for (int k1 = 0; k1 < R1; k1++)                                     \
      v[k2 + R2 * k1] = r[k1];                                          \
  }                                                                     \
}

/* composites of up to 15 points, also the building blocks of the larger
 * ones (always compiled: small) */
#twiddles ri cpu_w6 6
DFT_COMPOSITE (6, 2, 3)
#twiddles ri cpu_w9 9
DFT_COMPOSITE (9, 3, 3)
#twiddles ri cpu_w10 10
DFT_COMPOSITE (10, 2, 5)
#twiddles ri cpu_w12 12
DFT_COMPOSITE (12, 4, 3)
#twiddles ri cpu_w14 14
DFT_COMPOSITE (14, 2, 7)
#twiddles ri cpu_w15 15
DFT_COMPOSITE (15, 3, 5)

/* the larger composites the planner may pick (clf-plan-cpu.c), one per
 * program */
#if R == 18
#twiddles ri cpu_w18 18
DFT_COMPOSITE (18, 2, 9)
#elif R == 20
#twiddles ri cpu_w20 20
DFT_COMPOSITE (20, 4, 5)
#elif R == 21
#twiddles ri cpu_w21 21
DFT_COMPOSITE (21, 3, 7)
#elif R == 22
#twiddles ri cpu_w22 22
DFT_COMPOSITE (22, 2, 11)
#elif R == 24
#twiddles ri cpu_w24 24
DFT_COMPOSITE (24, 8, 3)
#elif R == 25
#twiddles ri cpu_w25 25
DFT_COMPOSITE (25, 5, 5)
#elif R == 27
#twiddles ri cpu_w27 27
DFT_COMPOSITE (27, 3, 9)
#elif R == 28
#twiddles ri cpu_w28 28
DFT_COMPOSITE (28, 4, 7)
#elif R == 30
#twiddles ri cpu_w30 30
DFT_COMPOSITE (30, 6, 5)
#elif R == 32
#twiddles ri cpu_w32 32
DFT_COMPOSITE (32, 4, 8)
#elif R == 33
#twiddles ri cpu_w33 33
DFT_COMPOSITE (33, 3, 11)
#elif R == 35
#twiddles ri cpu_w35 35
DFT_COMPOSITE (35, 5, 7)
#elif R == 36
#twiddles ri cpu_w36 36
DFT_COMPOSITE (36, 4, 9)
#elif R == 40
#twiddles ri cpu_w40 40
DFT_COMPOSITE (40, 8, 5)
#elif R == 42
#twiddles ri cpu_w42 42
DFT_COMPOSITE (42, 6, 7)
#elif R == 45
#twiddles ri cpu_w45 45
DFT_COMPOSITE (45, 9, 5)
#elif R == 48
#twiddles ri cpu_w48 48
DFT_COMPOSITE (48, 16, 3)
#elif R == 49
#twiddles ri cpu_w49 49
DFT_COMPOSITE (49, 7, 7)
#elif R == 50
#twiddles ri cpu_w50 50
DFT_COMPOSITE (50, 10, 5)
#elif R == 54
#twiddles ri cpu_w54 54
DFT_COMPOSITE (54, 6, 9)
#elif R == 56
#twiddles ri cpu_w56 56
DFT_COMPOSITE (56, 8, 7)
#elif R == 60
#twiddles ri cpu_w60 60
DFT_COMPOSITE (60, 4, 15)
#elif R == 62
#twiddles ri cpu_w62 62
DFT_COMPOSITE (62, 2, 31)
#elif R == 63
#twiddles ri cpu_w63 63
DFT_COMPOSITE (63, 9, 7)
#elif R == 64
#twiddles ri cpu_w64 64
DFT_COMPOSITE (64, 8, 8)
/* composites that whole rows alone take (MODE 5; the stages of longer
 * transforms keep their prime factors apart) */
#elif R == 26
#twiddles ri cpu_w26 26
DFT_COMPOSITE (26, 2, 13)
#elif R == 34
#twiddles ri cpu_w34 34
DFT_COMPOSITE (34, 2, 17)
#elif R == 38
#twiddles ri cpu_w38 38
DFT_COMPOSITE (38, 2, 19)
#elif R == 39
#twiddles ri cpu_w39 39
DFT_COMPOSITE (39, 3, 13)
#elif R == 44
#twiddles ri cpu_w44 44
DFT_COMPOSITE (44, 4, 11)
#elif R == 46
#twiddles ri cpu_w46 46
DFT_COMPOSITE (46, 2, 23)
#elif R == 51
#twiddles ri cpu_w51 51
DFT_COMPOSITE (51, 3, 17)
#elif R == 52
#twiddles ri cpu_w52 52
DFT_COMPOSITE (52, 4, 13)
#elif R == 55
#twiddles ri cpu_w55 55
DFT_COMPOSITE (55, 5, 11)
#elif R == 57
#twiddles ri cpu_w57 57
DFT_COMPOSITE (57, 3, 19)
#elif R == 58
#twiddles ri cpu_w58 58
DFT_COMPOSITE (58, 2, 29)
/* whole rows past 64 points (whole_long_set in clf-plan-cpu.c) */
#elif R == 66
#twiddles ri cpu_w66 66
DFT_COMPOSITE (66, 6, 11)
#elif R == 70
#twiddles ri cpu_w70 70
DFT_COMPOSITE (70, 10, 7)
#elif R == 72
#twiddles ri cpu_w72 72
DFT_COMPOSITE (72, 8, 9)
#elif R == 75
#twiddles ri cpu_w75 75
DFT_COMPOSITE (75, 15, 5)
#elif R == 77
#twiddles ri cpu_w77 77
DFT_COMPOSITE (77, 11, 7)
#elif R == 78
#twiddles ri cpu_w78 78
DFT_COMPOSITE (78, 6, 13)
#elif R == 80
#twiddles ri cpu_w80 80
DFT_COMPOSITE (80, 16, 5)
#elif R == 81
#twiddles ri cpu_w81 81
DFT_COMPOSITE (81, 9, 9)
#elif R == 84
#twiddles ri cpu_w84 84
DFT_COMPOSITE (84, 12, 7)
#elif R == 88
#twiddles ri cpu_w88 88
DFT_COMPOSITE (88, 8, 11)
#elif R == 90
#twiddles ri cpu_w90 90
DFT_COMPOSITE (90, 10, 9)
#elif R == 91
#twiddles ri cpu_w91 91
DFT_COMPOSITE (91, 7, 13)
#elif R == 96
#twiddles ri cpu_w96 96
DFT_COMPOSITE (96, 16, 6)
#elif R == 98
#twiddles ri cpu_w98 98
DFT_COMPOSITE (98, 14, 7)
#elif R == 99
#twiddles ri cpu_w99 99
DFT_COMPOSITE (99, 9, 11)
#elif R == 100
#twiddles ri cpu_w100 100
DFT_COMPOSITE (100, 10, 10)
#elif R == 104
#twiddles ri cpu_w104 104
DFT_COMPOSITE (104, 8, 13)
#elif R == 105
#twiddles ri cpu_w105 105
DFT_COMPOSITE (105, 15, 7)
#elif R == 108
#twiddles ri cpu_w108 108
DFT_COMPOSITE (108, 12, 9)
#elif R == 110
#twiddles ri cpu_w110 110
DFT_COMPOSITE (110, 10, 11)
#elif R == 112
#twiddles ri cpu_w112 112
DFT_COMPOSITE (112, 16, 7)
#elif R == 117
#twiddles ri cpu_w117 117
DFT_COMPOSITE (117, 9, 13)
#elif R == 120
#twiddles ri cpu_w120 120
DFT_COMPOSITE (120, 8, 15)
#elif R == 121
#twiddles ri cpu_w121 121
DFT_COMPOSITE (121, 11, 11)
#elif R == 125
#twiddles ri cpu_w25 25
DFT_COMPOSITE (25, 5, 5)
#twiddles ri cpu_w125 125
DFT_COMPOSITE (125, 5, 25)
#elif R == 126
#twiddles ri cpu_w126 126
DFT_COMPOSITE (126, 14, 9)
#elif R == 128
#twiddles ri cpu_w128 128
DFT_COMPOSITE (128, 16, 8)
#elif R == 135
#twiddles ri cpu_w135 135
DFT_COMPOSITE (135, 15, 9)
#elif R == 144
#twiddles ri cpu_w144 144
DFT_COMPOSITE (144, 12, 12)
#elif R == 160
#twiddles ri cpu_w160 160
DFT_COMPOSITE (160, 16, 10)
#elif R == 225
#twiddles ri cpu_w225 225
DFT_COMPOSITE (225, 15, 15)
#endif

#define DFT_R_(x) dft##x
#define DFT_R(x) DFT_R_(x)

#ifndef IN_KIND
#define IN_KIND 0
#endif

#include "inline.clh"
#include "cpu-addr.clh"

/* Complex values in memory are float pairs. Two adjacent float stores of
 * isomorphic expressions are a seed for clang's SLP vectoriser, which
 * runs before PoCL builds the work-item loops and turns the butterflies
 * into <2 x float> code; the loop vectoriser then refuses the work-item
 * loop ("instruction return type cannot be vectorized") and every
 * work-item runs alone, 2-3x slower. The imaginary part is therefore
 * stored through fma (x * s + 0, the same value as x * s) and the real
 * part through a multiplication: different operations, no SLP tree. */
INL cf
ldc (__global const float *p)
{
  return mk (p[0], p[1]);
}

INL void
stc (__global float *p, float re, float im_factor, float im)
{
  p[0] = re;
  p[1] = fma (im, im_factor, 0.0f);
}

#if MODE >= 4
/* a[c] = column c of the rows a[0..7] (unpack, pairs, halves: 24
 * shuffles) */
INL void
transpose8 (float8 * a)
{
  float8 t[8], u[8];
  _Pragma ("unroll")
  for (int j = 0; j < 8; j += 2) {
    float8 x = a[j], y = a[j + 1];
    t[j] = (float8) (x.s0, y.s0, x.s1, y.s1, x.s4, y.s4, x.s5, y.s5);
    t[j + 1] = (float8) (x.s2, y.s2, x.s3, y.s3, x.s6, y.s6, x.s7, y.s7);
  }
  _Pragma ("unroll")
  for (int h = 0; h < 8; h += 4) {
    _Pragma ("unroll")
    for (int j = 0; j < 2; j++) {
      float8 x = t[h + j], y = t[h + j + 2];
      u[h + 2 * j] = (float8) (x.s01, y.s01, x.s45, y.s45);
      u[h + 2 * j + 1] = (float8) (x.s23, y.s23, x.s67, y.s67);
    }
  }
  _Pragma ("unroll")
  for (int c = 0; c < 4; c++) {
    a[c] = (float8) (u[c].lo, u[c + 4].lo);
    a[c + 4] = (float8) (u[c].hi, u[c + 4].hi);
  }
}

/* Element i of each of the 8 rows, as the lanes of one vector, and lane
 * j of a vector: spelled out, since indexing a vector is an extension
 * of clang's that other compilers of this file need not take */
INL float8
lanes_at (__global const float **row, int i)
{
  return (float8) (row[0][i], row[1][i], row[2][i], row[3][i], row[4][i],
      row[5][i], row[6][i], row[7][i]);
}

INL float
lane (float8 v, int j)
{
  return j < 4 ? (j < 2 ? (j ? v.s1 : v.s0) : (j == 3 ? v.s3 : v.s2)) :
      (j < 6 ? (j == 5 ? v.s5 : v.s4) : (j == 7 ? v.s7 : v.s6));
}

/* v[r0..r0+3] of the GROUP rows: 8x8 floats loaded and transposed */
INL void
load4 (__global const float **row, int r0, cf * v, float sign_in)
{
  float8 a[GROUP];
  _Pragma ("unroll")
  for (int j = 0; j < GROUP; j++)
    a[j] = vload8 (0, row[j] + 2 * r0);
  transpose8 (a);
  _Pragma ("unroll")
  for (int c = 0; c < 4; c++)
    v[r0 + c] = mk (a[2 * c], sign_in * a[2 * c + 1]);
}

/* The last stage of the transposed order: butterfly k reads x[k*R + r],
 * r < R, and writes y[k + r*NS]. Vectorised across work-items, PoCL
 * loaded those R-apart values with gathers (vgatherqps, 4 floats each):
 * 4096 x256's last stage took 250-280 us a 4 MiB chunk against 140-180
 * for its first. Here a work-item does the GROUP butterflies from k0 in
 * the lanes of float8 values: it loads each butterfly's inputs as
 * vectors and transposes them in registers, 8x8 floats (4 complex
 * values of 8 butterflies) at a time. The last group of a transform may
 * be partial (NS not a multiple of GROUP): its extra lanes repeat
 * butterfly NS - 1 and are not stored; their twiddles are read from the
 * table's padding (stage_twiddles in clf-plan-cpu.c). */
#ifdef OUT_REAL
#define OUT_FLOATS 1
#else
#define OUT_FLOATS 2
#endif

/* The GROUP outputs of one r, at unit stride from p */
INL void
store_group (__global float *p, cf v, float scale, float sign_out)
{
  float8 re = scale * v.r;
#ifdef OUT_REAL
  vstore8 (re, 0, p);
#else
  float8 im = (sign_out * scale) * v.i;
  vstore8 ((float8) (re.s0, im.s0, re.s1, im.s1, re.s2, im.s2, re.s3,
          im.s3), 0, p);
  vstore8 ((float8) (re.s4, im.s4, re.s5, im.s5, re.s6, im.s6, re.s7,
          im.s7), 0, p + 8);
#endif
}

INL void
last_stage (__global const float *restrict src, __global float *restrict dst,
    size_t in_base, size_t out_base, uint k0, uint NS, uint os,
    uint limit, uint tw_off, __global const float *restrict tw,
    float scale, float sign_in, float sign_out)
{
  __global const float *row[GROUP];
  cf v[R];
  int r;

  _Pragma ("unroll")
  for (int j = 0; j < GROUP; j++)
    row[j] = src + 2 * (in_base + (size_t) min (k0 + j, NS - 1) * R);
  _Pragma ("unroll")
  for (r = 0; r + 4 <= R; r += 4)
    load4 (row, r, v, sign_in);
  _Pragma ("unroll")
  for (; r < R; r++)
    v[r] = mk (lanes_at (row, 2 * r), sign_in * lanes_at (row, 2 * r + 1));

  {
    __global const float *w = tw + 2 * ((size_t) tw_off + k0);
    _Pragma ("unroll")
    for (r = 1; r < R; r++, w += 2 * NS) {
      float16 t = vload16 (0, w);
      v[r] = cmul (v[r], mk (t.even, t.odd));
    }
  }

  DFT_R (R) (v);

#ifdef OUT_UNIT
  /* a whole group of outputs below the limit: vector stores */
  if (k0 + GROUP <= NS && k0 + (R - 1) * NS + GROUP <= limit) {
    _Pragma ("unroll")
    for (r = 0; r < R; r++)
      store_group (dst + OUT_FLOATS * (out_base + k0 + r * NS), v[r],
          scale, sign_out);
    return;
  }
#endif
  /* The rest: groups past the transform's end or the limit, lane by
   * lane. In loops, not unrolled: unrolled, R x GROUP conditional stores
   * took PoCL's code generator 8 of the 11 s a radix-64 program took to
   * compile (2 s now), at no cost to the vector path above; the copy
   * keeps v itself in registers. */
  {
    cf vs[R];
    _Pragma ("unroll")
    for (r = 0; r < R; r++)
      vs[r] = v[r];
    _Pragma ("nounroll")
    for (r = 0; r < R; r++) {
      /* output element of lane 0 */
      uint e = k0 + r * NS;
      float re[GROUP], im[GROUP];
#if defined(OUT_UNIT) && defined(LIMIT)
      /* with a limit (an output extent), the groups of the last values of
       * r alone reach past it */
      if (k0 + GROUP <= NS && e + GROUP <= limit) {
        store_group (dst + OUT_FLOATS * (out_base + e), vs[r], scale,
            sign_out);
        continue;
      }
#endif
      vstore8 (scale * vs[r].r, 0, re);
      vstore8 ((sign_out * scale) * vs[r].i, 0, im);
      _Pragma ("nounroll")
      for (int j = 0; j < GROUP; j++)
        if (k0 + j < NS && e + j < limit) {
          __global float *p = dst + OUT_FLOATS * (out_base +
              (size_t) (e + j) * os);
          p[0] = re[j];
#ifndef OUT_REAL
          p[1] = im[j];
#endif
        }
    }
  }
}

/* MODE 5: the GROUP transforms from b0 whole in one work-item, one in
 * each lane (the last group repeats its last transform, nb of them are
 * real; ib0/ob0: b0's index in the input's and the output's addressing),
 * every stage of R = N in registers: one pass over memory with every
 * lane busy, where two stages of short radices leave lanes idle (28 as
 * 7x4 fills 7 of 8 lanes in the last stage, 4 in the first). Rows of
 * unit stride are loaded and stored 4 values at a time, transposed 8x8
 * floats in registers; where 4 does not divide R, the last 4 values again
 * (loaded twice, stored twice: the same values). */
INL void
store4 (__global float **orow, int r0, cf * v, float scale, float sign_out)
{
  float8 a[GROUP];
  _Pragma ("unroll")
  for (int c = 0; c < 4; c++) {
    a[2 * c] = scale * v[r0 + c].r;
    a[2 * c + 1] = (sign_out * scale) * v[r0 + c].i;
  }
  transpose8 (a);
  _Pragma ("unroll")
  for (int j = 0; j < GROUP; j++)
    vstore8 (a[j], 0, orow[j] + 2 * r0);
}

#if R < 4
/* float e of each of the GROUP rows of 2R floats in span, in lanes */
INL float8
span_lanes (const float8 * span, int e)
{
  float x[GROUP];
  _Pragma ("unroll")
  for (int j = 0; j < GROUP; j++) {
    int f = j * 2 * R + e;
    x[j] = lane (span[f / 8], f % 8);
  }
  return (float8) (x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7]);
}

/* floats 8i to 8i+7 of the GROUP rows' span, scaled (the inverse of
 * span_lanes) */
INL float8
span_part (const cf * v, int i, float scale_re, float scale_im)
{
  float x[8];
  _Pragma ("unroll")
  for (int k = 0; k < 8; k++) {
    int f = 8 * i + k, j = f / (2 * R), w = f % (2 * R);
    x[k] = w % 2 ? scale_im * lane (v[w / 2].i, j) :
        scale_re * lane (v[w / 2].r, j);
  }
  return (float8) (x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7]);
}
#endif

/* batch_offset (a, b0 + d) for d < GROUP: one step on from b0 where the
 * group stays within one run of level 0 (always for packed rows), as the
 * divisions for every transform cost short rows a quarter of their time */
INL uint
group_offset (clf_addr a, uint b0, uint d)
{
  uint q = b0 / a.s5;
  if (b0 - q * a.s5 + GROUP <= a.s5)
    return (b0 - q * a.s5 + d) * a.s2 + outer_offset (a, q);
  return batch_offset (a, b0 + d);
}

INL void
whole_rows (__global const float *restrict src, __global float *restrict dst,
    clf_addr in, clf_addr out, uint ib0, uint ob0, uint nb, uint is,
    uint os, uint limit, float scale, float sign_in, float sign_out)
{
  __global const float *row[GROUP];
  __global float *orow[GROUP];
  cf v[R];
  int r = 0;

  _Pragma ("unroll")
  for (int j = 0; j < GROUP; j++) {
    uint d = min ((uint) j, nb - 1);
    row[j] = src + 2 * (size_t) (in.s0 + group_offset (in, ib0, d));
    orow[j] = dst + OUT_FLOATS * (size_t) (out.s0 + group_offset (out, ob0,
            d));
  }
#ifdef IN_UNIT
  _Pragma ("unroll")
  for (; r + 4 <= R; r += 4)
    load4 (row, r, v, sign_in);
  if (R > 4 && r < R) {
    load4 (row, R - 4, v, sign_in);
    r = R;
  }
#if R < 4
  /* rows of 2 or 3 values next to each other: the group's span as
   * vectors, taken apart in registers */
  if (row[GROUP - 1] == row[0] + 2 * R * (GROUP - 1)) {
    float8 span[2 * R];
    _Pragma ("unroll")
    for (int i = 0; i < 2 * R; i++)
      span[i] = vload8 (i, row[0]);
    _Pragma ("unroll")
    for (r = 0; r < R; r++)
      v[r] = mk (span_lanes (span, 2 * r), sign_in * span_lanes (span,
              2 * r + 1));
  }
#endif
#endif
  if (r < R) {
    _Pragma ("unroll")
    for (r = 0; r < R; r++)
      v[r] = mk (lanes_at (row, 2 * r * is), sign_in * lanes_at (row,
              2 * r * is + 1));
  }

  DFT_R (R) (v);

#if defined(OUT_UNIT) && !defined(OUT_REAL)
  /* (loops of a constant count: unrolled, no warnings from PoCL) */
  if (R >= 4 && nb == GROUP && limit >= R) {
    _Pragma ("unroll")
    for (r = 0; r + 4 <= R; r += 4)
      store4 (orow, r, v, scale, sign_out);
    if (r < R)
      store4 (orow, R - 4, v, scale, sign_out);
    return;
  }
#if R < 4
  if (nb == GROUP && limit >= R &&
      orow[GROUP - 1] == orow[0] + 2 * R * (GROUP - 1)) {
    _Pragma ("unroll")
    for (int i = 0; i < 2 * R; i++)
      vstore8 (span_part (v, i, scale, sign_out * scale), i, orow[0]);
    return;
  }
#endif
#endif
  _Pragma ("unroll")
  for (r = 0; r < R; r++) {
    float8 re = scale * v[r].r;
    float8 im = (sign_out * scale) * v[r].i;
    if (r < limit) {
      _Pragma ("unroll")
      for (int j = 0; j < GROUP; j++)
        if (j < nb) {
          __global float *p = orow[j] + OUT_FLOATS * r * os;
          p[0] = lane (re, j);
#ifndef OUT_REAL
          p[1] = lane (im, j);
#endif
        }
    }
  }
}
#endif

/* One stage of radix R for a batch of transforms of length N.
 * params: s0 N, s1 NS (product of the earlier radices), s2 outputs kept
 * (LIMIT), s3 offset of this stage's twiddles in tw (complex values:
 * w_{NS*R}^{r*k} at (r-1)*NS + k), s4 extent of the index folded with the
 * batch into the second global id (see MODE), s5 and s6: chunks (below).
 * base: where the launch starts, s1 in the second global id, s0 (column
 * mode) in the columns. Chunks start there through this argument, not a
 * global work offset, for which PoCL would compile the kernel a second
 * time (it specialises on a zero offset); launches of a scalar rest of
 * rows, a work-group size of their own, keep one in the first id. */
__kernel void
fft_cpu_pass (__global const float *restrict src, __global float *restrict dst,
    clf_addr in,
    clf_addr out, uint8 params, __global const float *restrict tw,
    float scale, float sign_in_arg, float sign_out,
    __global const float *restrict mul, uint2 base)
{
  /* UNIT_SIGN_IN: the plan passes sign_in 1 (every stage but a
   * conjugating first): a constant spares a multiplication a value. (The
   * same for scale and sign_out let clang's SLP vectoriser pair the two
   * stores again, see stc: 1000 x1024 ran 1.6x slower.) */
#ifdef UNIT_SIGN_IN
  const float sign_in = 1.0f;
#else
  const float sign_in = sign_in_arg;
#endif
#if MODE == 5
  {
    /* dimension 1: groups of GROUP transforms, a launch a chunk's;
     * params.s6: transforms in all */
    uint bl = get_global_id (1) * GROUP;
    uint b0 = bl + base.s1 * GROUP;
#ifdef IN_UNIT
    const uint is = 1;
#else
    const uint is = in.s1;
#endif
#ifdef OUT_UNIT
    const uint os = 1;
#else
    const uint os = out.s1;
#endif
#ifdef LIMIT
    const uint limit = params.s2;
#else
    const uint limit = R;
#endif
    if (b0 < params.s6)
      whole_rows (src, dst, in, out, (params.s5 & 1) ? bl : b0,
          (params.s5 & 2) ? bl : b0, min ((uint) GROUP, params.s6 - b0), is,
          os, limit, scale, sign_in, sign_out);
    return;
  }
#else
  const uint N = params.s0, NS = params.s1, E1 = params.s4;
  const uint M = N / R, Q = M / NS;
  uint k, q, in_base, out_base;
  /* column mode: the work-item's column in the input and in the output
   * (0 in the other modes) */
  size_t in_col = 0, out_col = 0;
  /* element indices of input 0 and output 0 of this butterfly and the
   * steps to the next ones */
  uint in_off, in_step, out_off, out_step;

  {
    /* A launch covers one chunk of the transforms (from base): the
     * user's buffers are addressed by the transform's index, scratch
     * buffers that hold one chunk (params.s5 bit 0: input, bit 1: output)
     * by its index within the chunk; in column mode the chunk is a range
     * of columns, which may be launched in two parts (params.s6: where
     * this launch starts within the chunk). */
    uint g1 = get_global_id (1) + base.s1;
    uint b = g1 / E1, x1 = g1 - b * E1;
    uint bl = b - base.s1 / E1;
    uint ib = (params.s5 & 1) ? bl : b, ob = (params.s5 & 2) ? bl : b;
#if MODE == 0
    k = get_global_id (0);
    q = x1;
#elif MODE == 4
    k = get_global_id (0) * GROUP;
    q = x1;
#elif MODE == 1 || MODE == 3
    q = get_global_id (0);
    k = x1;
#endif
#if MODE != 2
    in_base = in.s0 + batch_offset (in, ib);
    out_base = out.s0 + batch_offset (out, ob);
#else
    {
      /* columns are adjacent (s2 = 1, see column_count in
       * clf-plan-cpu.c): the column index goes into the pointers as
       * get_global_id (0) plus a uniform shift, so that the vectoriser
       * sees consecutive work-items at consecutive addresses; as a uint
       * times s2 it made every load a gather and every store a scatter,
       * 2-3x slower */
      size_t c = get_global_id (0);
      in_col = c + ((params.s5 & 1) ? params.s6 : base.s0);
      out_col = c + ((params.s5 & 2) ? params.s6 : base.s0);
      q = x1 / NS;
      k = x1 - q * NS;
      in_base = in.s0 + outer_offset (in, ib);
      out_base = out.s0 + outer_offset (out, ob);
    }
#endif
  }

#ifdef FIRST
  k = 0;
#endif

#if MODE <= 2
  /* Stockham order: butterfly q*NS + k reads x[q*NS + k + r*M] and writes
   * y[q*NS*R + r*NS + k] */
  in_off = q * NS + k;
  in_step = M;
  out_off = q * NS * R + k;
  out_step = NS;
#elif MODE == 3
  /* transposed order (rows): the data between stages is stored as
   * [r*NS + k][q], so that loads and stores both walk q; the last stage
   * (MODE 4) turns it back into the natural order */
  in_off = k * (N / NS) + q;
  in_step = Q;
  out_off = k * Q + q;
  out_step = NS * Q;
#endif

#if defined(IN_UNIT) && MODE != 2
  const uint is = 1;
#else
  const uint is = in.s1;
#endif
#if defined(OUT_UNIT) && MODE != 2
  const uint os = 1;
#else
  const uint os = out.s1;
#endif

#if MODE == 4
  /* the input is the previous stage's scratch, rows of unit stride */
#ifndef IN_UNIT
#error "MODE 4 reads unit-stride rows"
#endif
#ifdef LIMIT
  const uint limit = params.s2;
#else
  const uint limit = N;
#endif
  last_stage (src, dst, in_base, out_base, k, NS, os, limit, params.s3, tw,
      scale, sign_in, sign_out);
#else

  cf v[R];
  {
    /* addresses by pointer steps: index arithmetic per r would be turned
     * into short vectors before the work-item loops exist, which stops
     * the vectorisation across work-items */
#if IN_KIND == 1
    __global const float *p = src + in_col + in_base +
        (size_t) in_off * is;
    const size_t step = (size_t) in_step * is;
    _Pragma ("unroll")
    for (int r = 0; r < R; r++, p += step)
      v[r] = mk (p[0], 0.0f);
#elif IN_KIND == 2
    /* Half spectrum of a real signal, X[N-e] = conj(X[e]). Input r is
     * element e = q + r*M (M = N/R; first stage, every mode): for r below
     * R/2 the work-items read X[e] a step apart, from r = R/2 on (R even)
     * or (R+1)/2 on (R odd) they read conj(X[N-e]), N-e falling as q
     * rises; at e = N/2 (R even, q = 0) the imaginary part's sign is
     * lost in the real output either way. Odd R leave r = (R-1)/2, where
     * e crosses N/2, to a select between clamped addresses. With an
     * address chosen per r and work-item (as for that r) PoCL vectorised
     * none of the loads: a 2-core EPYC ran C2R rows of 2048 points 4x
     * slower than R2C ones. */
    __global const float2 *base = (__global const float2 *) src + in_col +
        in_base;
    __global const float2 *p = base + (size_t) in_off * is;
    __global const float2 *m = base + (size_t) (N - in_off) * is;
    const size_t step = (size_t) in_step * is;
    _Pragma ("unroll")
    for (int r = 0; r < R; r++, p += step, m -= step) {
      cf x;
      float s = sign_in;
      if (2 * r + 1 < R) {
        x = ldc ((__global const float *) p);
      } else if (2 * r >= R) {
        x = ldc ((__global const float *) m);
        s = -sign_in;
      } else {
        uint e = in_off + r * in_step;
        uint d = min (e, (uint) (N / 2)), h = N - max (e, (uint) (N - N / 2));
        cf xd = ldc ((__global const float *) (base + (size_t) d * is));
        cf xh = ldc ((__global const float *) (base + (size_t) h * is));
        x.r = e <= N / 2 ? xd.r : xh.r;
        x.i = e <= N / 2 ? xd.i : -xh.i;
      }
      v[r] = mk (x.r, s * x.i);
    }
#else
    __global const float2 *p = (__global const float2 *) src + in_col +
        in_base + (size_t) in_off * is;
    const size_t step = (size_t) in_step * is;
    /* the natural index of input r (first stage, every mode) */
    uint e = in_off;
    _Pragma ("unroll")
    for (int r = 0; r < R; r++, p += step, e += in_step) {
#ifdef IN_NZ
      /* past the extent for every butterfly (clf-plan-cpu.c) */
      if (r >= IN_NZ) {
        v[r] = mk (0.0f, 0.0f);
        continue;
      }
#endif
#ifdef IN_EXTENT
      /* loaded and dropped: as a load under a condition (masked) PoCL
       * ran 3072-point rows' first stage 2x slower */
      cf x = ldc ((__global const float *) p);
      x.r = e < params.s7 ? x.r : 0.0f;
      x.i = e < params.s7 ? x.i : 0.0f;
#else
      cf x = ldc ((__global const float *) p);
#endif
#ifdef IN_MULTIPLY
      x = cmul (x, ldc (mul + 2 * (size_t) e));
#endif
      v[r] = mk (x.r, sign_in * x.i);
    }
#endif
  }

#ifndef FIRST
  {
    __global const float2 *w = (__global const float2 *) tw + params.s3 + k;
    _Pragma ("unroll")
    for (int r = 1; r < R; r++, w += NS)
      v[r] = cmul (v[r], ldc ((__global const float *) w));
  }
#endif

  DFT_R (R) (v);

  {
    const size_t step = (size_t) out_step * os;
#ifdef OUT_REAL
    __global float *p = dst + out_col + out_base + (size_t) out_off * os;
#else
    __global float2 *p = (__global float2 *) dst + out_col + out_base +
        (size_t) out_off * os;
#endif
    _Pragma ("unroll")
    for (int r = 0; r < R; r++, p += step) {
#ifdef LIMIT
      /* the last stage writes the natural order */
      if (out_off + r * out_step < params.s2)
#endif
      {
#ifdef OUT_REAL
        p[0] = scale * v[r].r;
#else
        stc ((__global float *) p, scale * v[r].r, sign_out * scale,
            v[r].i);
#endif
      }
    }
  }
#endif
#endif
}

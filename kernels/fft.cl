/* fft.cl: mixed-radix Stockham FFT passes (local memory) and Bluestein helpers. */

/* Addressing of one side of a pass, in elements of that side (float2 for
 * complex, float for real data). Transform b, element j lives at
 *   s0 + j*s1 + (b % s5)*s2 + ((b / s5) % s6)*s3 + (b / (s5*s6))*s4
 * which covers rows, columns, 2D batches and the four-step layouts. */
typedef uint8 clf_addr;

/* Pass flags, mirrored in ocl/clf-plan.c */
#define CLF_CONJ_IN        (1u << 0)
#define CLF_CONJ_OUT       (1u << 1)
#define CLF_LOAD_BFAST     (1u << 2)        /* transforms adjacent in memory: g fastest */
#define CLF_STORE_BFAST    (1u << 3)
#define CLF_POST_TWIDDLE   (1u << 4)        /* four-step twiddle on the output */
#define CLF_IN_REAL        (1u << 5)        /* input is real floats */
#define CLF_IN_HERMITIAN   (1u << 6)        /* input is a half spectrum */
#define CLF_OUT_REAL       (1u << 7)        /* store the real part only */
#define CLF_BLOCK_IO       (1u << 8)        /* a group's transforms as one span */
#define CLF_PRE_TWIDDLE    (1u << 10)       /* four-step twiddle on the input */

/* (nb0 and nb1 apart from a: programs built for one layout pass them as
 * constants, which turns the divisions into shifts and multiplies) */
inline uint
clf_batch_offset_of (clf_addr a, uint b, uint nb0, uint nb1)
{
  uint q = b / nb0;
  return (b - q * nb0) * a.s2 + (q % nb1) * a.s3 + (q / nb1) * a.s4;
}

/* (a single batch level, s5 = ~0, puts the transforms s2 apart: no
 * division where the program does not know the layout) */
inline uint
clf_batch_offset (clf_addr a, uint b)
{
  return a.s5 == 0xffffffffu ? b * a.s2 :
      clf_batch_offset_of (a, b, a.s5, a.s6);
}

inline float2
cmul (float2 a, float2 b)
{
  return (float2) (a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

inline float2
conj2 (float2 a)
{
  return (float2) (a.x, -a.y);
}

/* multiply by -i (forward direction rotation) */
inline float2
mul_mi (float2 a)
{
  return (float2) (a.y, -a.x);
}

/* ---- Radix butterflies, forward direction (exp(-2 pi i nk/R)) ---------- */

#define C8 0.70710678118654752440f

inline void
dft2 (float2 * v)
{
  float2 a = v[0], b = v[1];
  v[0] = a + b;
  v[1] = a - b;
}

inline void
dft4 (float2 * v)
{
  float2 t0 = v[0] + v[2], t1 = v[0] - v[2];
  float2 t2 = v[1] + v[3], t3 = mul_mi (v[1] - v[3]);
  v[0] = t0 + t2;
  v[2] = t0 - t2;
  v[1] = t1 + t3;
  v[3] = t1 - t3;
}

inline void
dft8 (float2 * v)
{
  float2 e[4] = { v[0], v[2], v[4], v[6] };
  float2 o[4] = { v[1], v[3], v[5], v[7] };
  dft4 (e);
  dft4 (o);
  /* o[k] *= exp(-2 pi i k/8) */
  o[1] = (float2) ((o[1].x + o[1].y) * C8, (o[1].y - o[1].x) * C8);
  o[2] = mul_mi (o[2]);
  o[3] = (float2) ((o[3].y - o[3].x) * C8, -(o[3].x + o[3].y) * C8);
  for (int k = 0; k < 4; k++) {
    v[k] = e[k] + o[k];
    v[k + 4] = e[k] - o[k];
  }
}

/* #twiddles lines become tables of w_N^k at build time (embed-kernels.py) */
#twiddles float2 clf_w16 16 4

inline void
dft16 (float2 * v)
{
  /* 4 x 4: columns of stride 4, twiddle w16^(n1*k2), rows */
  float2 t[16];
  for (int n1 = 0; n1 < 4; n1++) {
    float2 c[4] = { v[n1], v[n1 + 4], v[n1 + 8], v[n1 + 12] };
    dft4 (c);
    for (int k2 = 0; k2 < 4; k2++) {
      int m = n1 * k2;          /* 0..9 */
      float2 w;
      if (m < 4)
        w = clf_w16[m];
      else if (m < 8)
        w = mul_mi (clf_w16[m - 4]);
      else
        w = -clf_w16[m - 8];
      t[k2 * 4 + n1] = (m == 0) ? c[k2] : cmul (c[k2], w);
    }
  }
  for (int k2 = 0; k2 < 4; k2++) {
    float2 r[4] = { t[k2 * 4], t[k2 * 4 + 1], t[k2 * 4 + 2], t[k2 * 4 + 3] };
    dft4 (r);
    for (int k1 = 0; k1 < 4; k1++)
      v[k2 + 4 * k1] = r[k1];
  }
}

/* Odd radix R: y_k = a0 + sum_n (a_n + a_{R-n}) cos(2 pi nk/R)
 *                   - i sum_n (a_n - a_{R-n}) sin(2 pi nk/R) */
#define DFT_ODD(R, COS, SIN)                                            \
inline void                                                             \
dft##R (float2 * v)                                                     \
{                                                                       \
  float2 u[(R - 1) / 2], d[(R - 1) / 2];                                \
  float2 a0 = v[0], sum = v[0];                                         \
  for (int n = 1; n <= (R - 1) / 2; n++) {                              \
    u[n - 1] = v[n] + v[R - n];                                         \
    d[n - 1] = v[n] - v[R - n];                                         \
    sum += u[n - 1];                                                    \
  }                                                                     \
  for (int k = 1; k <= (R - 1) / 2; k++) {                              \
    float2 A = a0, B = (float2) (0.0f, 0.0f);                           \
    for (int n = 1; n <= (R - 1) / 2; n++) {                            \
      int m = (n * k) % R;                                              \
      A += u[n - 1] * COS[m];                                           \
      B += d[n - 1] * SIN[m];                                           \
    }                                                                   \
    v[k] = A + mul_mi (B);                                              \
    v[R - k] = A - mul_mi (B);                                          \
  }                                                                     \
  v[0] = sum;                                                           \
}

#include "odd-radix-tables.clh"

#include "big-radix-tables.clh"

DFT_ODD (3, clf_cos3, clf_sin3)
DFT_ODD (5, clf_cos5, clf_sin5)
DFT_ODD (7, clf_cos7, clf_sin7)
DFT_ODD (11, clf_cos11, clf_sin11)
DFT_ODD (13, clf_cos13, clf_sin13)
DFT_ODD (17, clf_cos17, clf_sin17)
DFT_ODD (19, clf_cos19, clf_sin19)
DFT_ODD (23, clf_cos23, clf_sin23)
DFT_ODD (29, clf_cos29, clf_sin29)
DFT_ODD (31, clf_cos31, clf_sin31)

#ifdef CLF_COMPOSITE_RADICES
/* Composite radix R = A*B in registers (Cooley-Tukey): B-point DFTs of
 * the A interleaved columns x[n1 + A n2], twiddles w_R^(n1 k2) (W holds
 * exp(-2 pi i m/R)), then A-point DFTs; X[k2 + B k1] comes out. One stage
 * of radix 9, 10, 12 or 15 replaces two local-memory passes (1080 =
 * 12x10x9; 6, 10, 12 and 14 only in programs built for one length). */
#define DFT_COMPOSITE(R, A, B, W)                                       \
inline void                                                             \
dft##R (float2 * v)                                                     \
{                                                                       \
  float2 t[R];                                                          \
  for (int n1 = 0; n1 < A; n1++) {                                      \
    float2 c[B];                                                        \
    for (int n2 = 0; n2 < B; n2++)                                      \
      c[n2] = v[n1 + A * n2];                                           \
    dft##B (c);                                                         \
    for (int k2 = 0; k2 < B; k2++)                                      \
      t[k2 * A + n1] = n1 * k2 == 0 ? c[k2] : cmul (c[k2], W[n1 * k2]);  \
  }                                                                     \
  for (int k2 = 0; k2 < B; k2++) {                                      \
    float2 r[A];                                                        \
    for (int n1 = 0; n1 < A; n1++)                                      \
      r[n1] = t[k2 * A + n1];                                           \
    dft##A (r);                                                         \
    for (int k1 = 0; k1 < A; k1++)                                      \
      v[k2 + B * k1] = r[k1];                                           \
  }                                                                     \
}

#twiddles float2 clf_w9 9 9
#twiddles float2 clf_w15 15 15
#twiddles float2 clf_w6 6 3
#twiddles float2 clf_w14 14 7
#twiddles float2 clf_w10 10 5
#twiddles float2 clf_w12 12 7

/* the composites above 16 (programs of 32 values per thread built for one
 * length; 32 in planar ones): W up to index (A-1)(B-1) */
#twiddles float2 clf_w25 25 17
#twiddles float2 clf_w27 27 17
#twiddles float2 clf_w32 32 22

/* the wider composites of 32 values per thread that only the measured
 * table (clf-plan-forms.c) and CLFFT_RADICES take: each takes a stage off
 * a length whose factors no radix of 16 or 25, 27, 32 pairs (2860 =
 * 20x11x13, 3276 = 28x9x13) */
#twiddles float2 clf_w18 18 9
#twiddles float2 clf_w20 20 13
#twiddles float2 clf_w21 21 13
#twiddles float2 clf_w22 22 11
#twiddles float2 clf_w24 24 15
#twiddles float2 clf_w26 26 13
#twiddles float2 clf_w28 28 19

DFT_COMPOSITE (6, 2, 3, clf_w6)
DFT_COMPOSITE (9, 3, 3, clf_w9)
DFT_COMPOSITE (10, 2, 5, clf_w10)
DFT_COMPOSITE (12, 4, 3, clf_w12)
DFT_COMPOSITE (14, 2, 7, clf_w14)
DFT_COMPOSITE (15, 3, 5, clf_w15)
DFT_COMPOSITE (25, 5, 5, clf_w25)
DFT_COMPOSITE (27, 3, 9, clf_w27)
DFT_COMPOSITE (32, 4, 8, clf_w32)
DFT_COMPOSITE (18, 2, 9, clf_w18)
DFT_COMPOSITE (20, 4, 5, clf_w20)
DFT_COMPOSITE (21, 3, 7, clf_w21)
DFT_COMPOSITE (22, 2, 11, clf_w22)
DFT_COMPOSITE (24, 8, 3, clf_w24)
DFT_COMPOSITE (26, 2, 13, clf_w26)
DFT_COMPOSITE (28, 4, 7, clf_w28)
#endif

/* Radix codes (4 bits per stage), mirrored in ocl/clf-factor.c */
inline uint
clf_radix_of_code (uint code)
{
  switch (code) {
    case 0: return 2;
    case 1: return 3;
    case 2: return 4;
    case 3: return 5;
    case 4: return 7;
    case 5: return 8;
    case 6: return 11;
    case 7: return 13;
    case 8: return 16;
    case 9: return 17;
    case 10: return 19;
    case 11: return 23;
    case 12: return 29;
    case 13: return 31;
    case 14: return 9;
    default: return 15;
  }
}

/* w^r, the twiddle of input r of a radix-R butterfly, from a table that
 * holds w^b at origin + b * stride for the powers of two b: the product
 * of the entries at r's set bits.
 * In programs built for one length that read the natural table (not
 * CLF_STAGE_TW, below: CLFFT_TWIDDLES=products), radices 4, 8 and 16
 * take it from tw[b * base]: 4 table reads instead of 15 for radix 16.
 * The H100 ran batched 4096-point transforms 483 -> 378 us, 1024 points
 * 418 -> 381 us (errors 1.22e-7 -> 1.36e-7): the twiddle reads missed its
 * L1, which local memory fills. Odd radices read the table (4095 =
 * 9x5x7x13 ran 1.9x slower with products), and so does the generic
 * program. CLF_TW_TABLE reads the table always: the plan sets it for
 * lengths without a radix 4, 8 or 16 stage, where the products would
 * only cost registers (4095: 182 us with the table, 222 without). */
inline float2
clf_tw_power (__global const float2 * tw, uint origin, uint stride, uint r)
{
  float2 w = (float2) (1.0f, 0.0f);
  int first = 1;
  for (uint bit = 1; bit <= r; bit <<= 1)
    if (r & bit) {
      float2 e = tw[origin + bit * stride];
      w = first ? e : cmul (w, e);
      first = 0;
    }
  return w;
}

#if defined (CLF_TW_TABLE) || !defined (CLF_FIXED)
#define CLF_TW(R, base, r) tw[(r) * (base)]
#else
#define CLF_TW(R, base, r) ((R) == 4 || (R) == 8 || (R) == 16 ?             \
    clf_tw_power (tw, 0, base, r) : tw[(r) * (base)])
#endif

/* CLF_STAGE_TW (programs built for one length): every stage reads its
 * twiddles from its own table, after the N entries of the natural one:
 * w_{Ns*R}^(r*k), for input r of butterfly k of the stage at offset to,
 * sits at to + (r-1)*Ns + k (clf_stage_twiddle_table in
 * ocl/clf-tables.c). A warp's butterflies read neighbouring entries
 * there, where tw[r*k*N/(Ns*R)] spread them over up to 32 cache lines.
 * CLF_STAGE_TW=2 reads only the entries of r = 1, 2, 4 and 8 and
 * multiplies them for the others (clf_tw_power, with w^b of butterfly k
 * at to + (b-1)*Ns + k): fewer loads for more arithmetic. It reads from
 * tw + k, so that the offsets of the powers fold into the loads (as LAT
 * below); for CLF_STAGE_TW=1 that form took a register more and ran 1000
 * x65536 5% slower on the H200. */
#if defined (CLF_FIXED) && defined (CLF_R0) && defined (CLF_STAGE_TW)
#if CLF_STAGE_TW == 2
#define CLF_TW_AT(R, k, step, r)                                        \
    clf_tw_power (tw + (k), N + to - Ns, Ns, r)
#else
#define CLF_TW_AT(R, k, step, r) tw[N + to + ((r) - 1) * Ns + (k)]
#endif
#else
/* (also where a program for one length has no stages spelled out: N = 1) */
#define CLF_TW_AT(R, k, step, r) CLF_TW (R, (k) * (step), r)
#endif

/* Gather of butterfly j: inputs x[j + r*N/R], times w_{Ns*R}^{r*k}
 * (CLF_TW_AT: w_{Ns*R}^{m} = tw[m * N/(Ns*R)] in the natural table). The
 * first stage (Ns = 1, no twiddles) reads straight from global memory
 * through the kernel's CLF_DIRECT_LOAD (j, d) (element j + d) when its
 * direct_load is set. */
#define STAGE_LOAD(R, v, j)                                             \
  {                                                                     \
    uint k_ = (j) % Ns;                                                 \
    uint step_ = N / (Ns * R);                                          \
    for (uint r = 0; r < R; r++) {                                      \
      if (s == 0 && direct_load) {                                      \
        v[r] = CLF_DIRECT_LOAD ((j), r * (N / R));                      \
      } else {                                                          \
        float2 x_ = LAT (x, (j), r * (N / R));                          \
        v[r] = r == 0 || Ns == 1 ? x_ :                                 \
            cmul (x_, CLF_TW_AT (R, k_, step_, r));                     \
      }                                                                 \
    }                                                                   \
  }

/* Butterfly j and its scatter to x[(j/Ns)*Ns*R + j%Ns + r*Ns]; the last
 * stage (Ns*R = N) writes element j + r*Ns of the output directly, through
 * the kernel's CLF_DIRECT_STORE (j, d, value) (element j + d), when
 * direct_store is set. */
#define STAGE_STORE(R, v, j)                                            \
  {                                                                     \
    uint k_ = (j) % Ns;                                                 \
    uint o_ = ((j) / Ns) * Ns * R + k_;                                 \
    dft##R (v);                                                         \
    for (uint r = 0; r < R; r++) {                                      \
      if (s + 1 == nstages && direct_store)                             \
        CLF_DIRECT_STORE (o_, r * Ns, v[r]);                            \
      else                                                              \
        LAT (x, o_, r * Ns) = v[r];                                     \
    }                                                                   \
  }

/* Butterflies one thread computes per stage: about CLF_VALUES values in
 * registers whatever the radix. Mirrored in ocl/clf-plan.c. */
#ifndef CLF_VALUES
#define CLF_VALUES 32
#endif
#define BPT(R) ((R) >= 17 ? 1 : (R) >= 11 ? CLF_VALUES / 16 : CLF_VALUES / (R))

/* OP (R, values, j) for each of a thread's B butterflies j of a stage
 * (BPT (R) in the generic program; programs built for one length get
 * each stage's count as CLF_Bi, the fewest that cover the stage with T
 * threads): STAGE_LOAD gathers (loads and twiddles), STAGE_STORE does
 * the butterflies and scatters. A round that every thread fills (t < T)
 * tests no index, and stage_live is the kernel's test of the thread's
 * transform: unconditional code that the compiler schedules across
 * butterflies. */
#define STAGE_EACH_B(R, B, OP)                                          \
  _Pragma ("unroll")                                                    \
  for (uint q = 0; q < (B); q++) {                                      \
    uint jb = t + q * T;                                                \
    if (((q + 1) * T <= N / R || jb < N / R) && stage_live)             \
      OP (R, (v + q * R), jb);                                          \
  }
#define STAGE_EACH(R, OP) STAGE_EACH_B (R, BPT (R), OP)
#define STAGE_RUN_LOAD(R) STAGE_EACH (R, STAGE_LOAD)
#define STAGE_RUN_STORE(R) STAGE_EACH (R, STAGE_STORE)

#define STAGE_CASE_LOAD(R) case R: STAGE_RUN_LOAD (R) break;
#define STAGE_CASE_STORE(R) case R: STAGE_RUN_STORE (R) break;

/* Unrolling the stage loop folds each stage's radix and span into
 * constants in programs built for one length. */
/* First stage from global memory, last stage to it (saves two local
 * round trips on GPUs); CLF_NO_DIRECT_IO stages everything through local
 * memory, which PoCL runs faster. Radices 17 to 31 are compiled in only
 * with CLF_BIG_RADICES: the larger generic kernel runs slower on PoCL. */
#ifdef CLF_NO_DIRECT_IO
#define CLF_DIRECT_IO 0
#else
#define CLF_DIRECT_IO 1
#endif

/* Local-memory index of element i of a transform. On GPUs one float2 of
 * padding per 16 (CLF_LDS_PAD) turns the first stages' stride-R scatter,
 * which hit one bank 16 or 32 times, into conflict-free writes. Mirrored
 * by local_stride () in ocl/clf-plan.c. */
#ifdef CLF_LDS_PAD
#define LX(i) ((i) + ((i) >> 4))
#else
#define LX(i) (i)
#endif

/* Element i + d of local array p, where d is a constant of the stage.
 * Unpadded, the address is p + i plus an offset the compiler folds into
 * the access. As p[i + d], the unsigned sum could wrap, so NVIDIA's
 * compiler added, widened to 64 bits and shifted for every access: 2187
 * had 1149 PTX instructions a thread, now 885. On the H200 2187 x8192
 * ran 111-113 us against 114-117, 2401 x4096 65-66 against 68-72, 3125
 * x4096 75-76 against 78-81 (docs/benchmarks.md, eighteenth session). */
#ifdef CLF_LDS_PAD
#define LAT(p, i, d) (p)[LX ((i) + (d))]
#else
#define LAT(p, i, d) ((p) + (i))[d]
#endif

#ifdef CLF_FIXED
#define CLF_STAGE_LOOP_HINT _Pragma ("unroll")
#else
#define CLF_STAGE_LOOP_HINT
#endif

/* Radices 17 to 31 are compiled in only with CLF_BIG_RADICES */
#ifdef CLF_BIG_RADICES
#define STAGE_BIG_CASES(CASE) CASE (17) CASE (19) CASE (23) CASE (29) CASE (31)
#else
#define STAGE_BIG_CASES(CASE)
#endif
/* and the register composites 9 and 15 with CLF_COMPOSITE_RADICES: with
 * them compiled in, the H100 ran 1000 = 8x5x5x5 40% slower */
#ifdef CLF_COMPOSITE_RADICES
#define STAGE_COMPOSITE_CASES(CASE) CASE (9) CASE (15)
#else
#define STAGE_COMPOSITE_CASES(CASE)
#endif

/* All stages of one transform per group of T threads on x (local memory),
 * result in natural order in x. Uses the kernel's N, nstages, codes, T,
 * t, stage_live, tw, x and direct-IO hooks (direct_load, direct_store).
 *
 * Programs built for one length get their radices as CLF_R0, CLF_R1, ...
 * and compile each stage for its radix alone. Through the generic loop,
 * every unrolled stage held every radix's butterflies until the compiler
 * folded the radix, and NVIDIA's build of one length took about 1 s. */
#if defined (CLF_ONE_THREAD) && defined (CLF_FIXED) && defined (CLF_R0)
/* CLF_ONE_THREAD (short transforms read as one block): one thread holds
 * a whole transform, a_ in registers, and each stage's butterflies,
 * twiddles and scatter are known to the compiler: no barrier and no
 * round trip through local memory between stages. Its twiddles
 * w_{Ns*R}^{r*k} = w_N^{r*k*N/(Ns*R)} come from the natural table, the
 * same entries for every thread. */
#define CLF_STAGE_OF_(R, B)                                             \
  {                                                                     \
    _Pragma ("unroll")                                                  \
    for (uint j = 0; j < N / (R); j++) {                                \
      uint k_ = j % Ns, o_ = (j / Ns) * Ns * (R) + k_;                  \
      float2 w_[R];                                                     \
      _Pragma ("unroll")                                                \
      for (uint r = 0; r < (R); r++)                                    \
        w_[r] = r == 0 || Ns == 1 ? a_[j + r * (N / (R))] :             \
            cmul (a_[j + r * (N / (R))], tw[r * k_ * (N / (Ns * (R)))]); \
      dft##R (w_);                                                      \
      _Pragma ("unroll")                                                \
      for (uint r = 0; r < (R); r++)                                    \
        c_[o_ + r * Ns] = w_[r];                                        \
    }                                                                   \
    _Pragma ("unroll")                                                  \
    for (uint i = 0; i < N; i++)                                        \
      a_[i] = c_[i];                                                    \
    Ns *= (R);                                                          \
  }
#else
#define CLF_STAGE_OF_(R, B)                                             \
  {                                                                     \
    STAGE_EACH_B (R, B, STAGE_LOAD)                                     \
    barrier (CLK_LOCAL_MEM_FENCE);                                      \
    STAGE_EACH_B (R, B, STAGE_STORE)                                    \
    barrier (CLK_LOCAL_MEM_FENCE);                                      \
    to += ((R) - 1) * Ns;                                               \
    Ns *= (R);                                                          \
    s++;                                                                \
  }
#endif
/* one more expansion, so that CLF_Ri is a number where dft##R pastes it */
#define CLF_STAGE_OF(R, B) CLF_STAGE_OF_ (R, B)

#ifdef CLF_R0
#define CLF_STAGE_0 CLF_STAGE_OF (CLF_R0, CLF_B0)
#else
#define CLF_STAGE_0
#endif
#ifdef CLF_R1
#define CLF_STAGE_1 CLF_STAGE_OF (CLF_R1, CLF_B1)
#else
#define CLF_STAGE_1
#endif
#ifdef CLF_R2
#define CLF_STAGE_2 CLF_STAGE_OF (CLF_R2, CLF_B2)
#else
#define CLF_STAGE_2
#endif
#ifdef CLF_R3
#define CLF_STAGE_3 CLF_STAGE_OF (CLF_R3, CLF_B3)
#else
#define CLF_STAGE_3
#endif
#ifdef CLF_R4
#define CLF_STAGE_4 CLF_STAGE_OF (CLF_R4, CLF_B4)
#else
#define CLF_STAGE_4
#endif
#ifdef CLF_R5
#define CLF_STAGE_5 CLF_STAGE_OF (CLF_R5, CLF_B5)
#else
#define CLF_STAGE_5
#endif
#ifdef CLF_R6
#define CLF_STAGE_6 CLF_STAGE_OF (CLF_R6, CLF_B6)
#else
#define CLF_STAGE_6
#endif
#ifdef CLF_R7
#define CLF_STAGE_7 CLF_STAGE_OF (CLF_R7, CLF_B7)
#else
#define CLF_STAGE_7
#endif
#ifdef CLF_R8
#define CLF_STAGE_8 CLF_STAGE_OF (CLF_R8, CLF_B8)
#else
#define CLF_STAGE_8
#endif
#ifdef CLF_R9
#define CLF_STAGE_9 CLF_STAGE_OF (CLF_R9, CLF_B9)
#else
#define CLF_STAGE_9
#endif
#ifdef CLF_R10
#define CLF_STAGE_10 CLF_STAGE_OF (CLF_R10, CLF_B10)
#else
#define CLF_STAGE_10
#endif
#ifdef CLF_R11
#define CLF_STAGE_11 CLF_STAGE_OF (CLF_R11, CLF_B11)
#else
#define CLF_STAGE_11
#endif

#if defined (CLF_ONE_THREAD) && defined (CLF_FIXED) && defined (CLF_R0)
/* the thread's transform from x (or its input), its result to x (or its
 * output) */
#define CLF_RUN_STAGES()                                                \
  {                                                                     \
    uint Ns = 1;                                                        \
    float2 a_[CLF_N], c_[CLF_N];                                        \
    if (stage_live) {                                                   \
      _Pragma ("unroll")                                                \
      for (uint i = 0; i < N; i++)                                      \
        a_[i] = direct_load ? CLF_DIRECT_LOAD (i, 0) : LAT (x, i, 0);   \
      CLF_STAGE_0 CLF_STAGE_1 CLF_STAGE_2 CLF_STAGE_3                   \
      CLF_STAGE_4 CLF_STAGE_5 CLF_STAGE_6 CLF_STAGE_7                   \
      CLF_STAGE_8 CLF_STAGE_9 CLF_STAGE_10 CLF_STAGE_11                 \
      _Pragma ("unroll")                                                \
      for (uint i = 0; i < N; i++)                                      \
        if (direct_store)                                               \
          CLF_DIRECT_STORE (i, 0, a_[i]);                               \
        else                                                            \
          LAT (x, i, 0) = a_[i];                                        \
    }                                                                   \
    barrier (CLK_LOCAL_MEM_FENCE);                                      \
  }
#elif defined (CLF_FIXED) && defined (CLF_R0)
#define CLF_RUN_STAGES()                                                \
  {                                                                     \
    uint Ns = 1, s = 0, to = 0;                                         \
    float2 v[32];                                                       \
    CLF_STAGE_0 CLF_STAGE_1 CLF_STAGE_2 CLF_STAGE_3                     \
    CLF_STAGE_4 CLF_STAGE_5 CLF_STAGE_6 CLF_STAGE_7                     \
    CLF_STAGE_8 CLF_STAGE_9 CLF_STAGE_10 CLF_STAGE_11                   \
  }
#else
#define CLF_RUN_STAGES()                                                \
  {                                                                     \
    uint Ns = 1;                                                        \
    float2 v[32];                                                       \
    CLF_STAGE_LOOP_HINT                                                 \
    for (uint s = 0; s < nstages; s++) {                                \
      uint R = clf_radix_of_code ((uint) (codes >> (4 * s)) & 15u);     \
      switch (R) {                                                      \
        STAGE_CASE_LOAD (2)                                             \
        STAGE_CASE_LOAD (3)                                             \
        STAGE_CASE_LOAD (4)                                             \
        STAGE_CASE_LOAD (5)                                             \
        STAGE_CASE_LOAD (7)                                             \
        STAGE_CASE_LOAD (8)                                             \
        STAGE_CASE_LOAD (11)                                            \
        STAGE_CASE_LOAD (13)                                            \
        STAGE_CASE_LOAD (16)                                            \
        STAGE_BIG_CASES (STAGE_CASE_LOAD)                               \
        STAGE_COMPOSITE_CASES (STAGE_CASE_LOAD)                         \
      }                                                                 \
      barrier (CLK_LOCAL_MEM_FENCE);                                    \
      switch (R) {                                                      \
        STAGE_CASE_STORE (2)                                            \
        STAGE_CASE_STORE (3)                                            \
        STAGE_CASE_STORE (4)                                            \
        STAGE_CASE_STORE (5)                                            \
        STAGE_CASE_STORE (7)                                            \
        STAGE_CASE_STORE (8)                                            \
        STAGE_CASE_STORE (11)                                           \
        STAGE_CASE_STORE (13)                                           \
        STAGE_CASE_STORE (16)                                           \
        STAGE_BIG_CASES (STAGE_CASE_STORE)                              \
        STAGE_COMPOSITE_CASES (STAGE_CASE_STORE)                        \
      }                                                                 \
      barrier (CLK_LOCAL_MEM_FENCE);                                    \
      Ns *= R;                                                          \
    }                                                                   \
  }
#endif

/* ---- Stages with the values in registers (CLF_PLANAR_EXCHANGE) -------------
 * A transform too long for local memory as float2 (8192 points: 64 KiB
 * against 48) keeps its values in registers from stage to stage and
 * passes them through local memory one component at a time: real parts,
 * then imaginary parts, N floats. Four barriers a stage instead of two,
 * one pass over global memory instead of the two of a four-step split.
 * Reads the input and writes the output directly (direct_load and
 * direct_store must hold). Butterfly j's inputs and outputs sit where
 * STAGE_LOAD and STAGE_STORE put them. */

#define PLANAR_OP_LOAD0(R, w, j)                                         \
  for (uint r = 0; r < R; r++)                                          \
    w[r] = CLF_DIRECT_LOAD ((j), r * (N / R));
#define PLANAR_OP_GET_X(R, w, j)                                         \
  for (uint r = 0; r < R; r++)                                          \
    w[r].x = LAT (xs, (j), r * (N / R));
#define PLANAR_OP_GET_Y(R, w, j)                                         \
  for (uint r = 0; r < R; r++)                                          \
    w[r].y = LAT (xs, (j), r * (N / R));
#define PLANAR_OP_TWIDDLE(R, w, j)                                       \
  {                                                                     \
    uint k_ = (j) % Ns, step_ = N / (Ns * R);                           \
    for (uint r = 1; r < R; r++)                                        \
      w[r] = cmul (w[r], CLF_TW_AT (R, k_, step_, r));                  \
  }
#define PLANAR_OP_DFT(R, w, j) dft##R (w);
/* outputs of the stage of span SPAN: this stage's (Ns) or the last one's */
#define PLANAR_OP_PUT(R, w, j, SPAN, C)                                  \
  {                                                                     \
    uint o_ = ((j) / SPAN) * SPAN * R + (j) % SPAN;                     \
    for (uint r = 0; r < R; r++)                                        \
      LAT (xs, o_, r * SPAN) = w[r].C;                                  \
  }
#define PLANAR_OP_PUT_X(R, w, j) PLANAR_OP_PUT (R, w, j, Ns, x)
#define PLANAR_OP_PUT_PREV_Y(R, w, j) PLANAR_OP_PUT (R, w, j, Nsp, y)
#define PLANAR_OP_STORE(R, w, j)                                         \
  {                                                                     \
    uint o_ = ((j) / Ns) * Ns * R + (j) % Ns;                           \
    for (uint r = 0; r < R; r++)                                        \
      CLF_DIRECT_STORE (o_, r * Ns, w[r]);                              \
  }

/* One planar stage of radix R (a number) after a stage of radix RP: its
 * inputs come in as real parts, then the last stage's imaginary parts go
 * out from the same registers (still in that stage's order), then they
 * come in. Only programs for one length take the planar form (fits_planar
 * in ocl/clf-plan.c): through a loop over every radix it ran slower than
 * two passes and took up to a minute to build. */
#define PLANAR_STEP(R, B, STEP) STAGE_EACH_B (R, B, PLANAR_OP_##STEP)
/* the inputs of a stage of radix R from the outputs of one of radix RP */
#define PLANAR_GET(R, B, RP, BP)                                         \
  PLANAR_STEP (R, B, GET_X)                                             \
  barrier (CLK_LOCAL_MEM_FENCE);                                        \
  PLANAR_STEP (RP, BP, PUT_PREV_Y)                                      \
  barrier (CLK_LOCAL_MEM_FENCE);                                        \
  PLANAR_STEP (R, B, GET_Y)                                             \
  barrier (CLK_LOCAL_MEM_FENCE);
#define PLANAR_STAGE_OF_(R, B, RP, BP)                                  \
  {                                                                     \
    if (s == 0) {                                                       \
      PLANAR_STEP (R, B, LOAD0)                                         \
    } else {                                                            \
      PLANAR_GET (R, B, RP, BP)                                         \
      PLANAR_STEP (R, B, TWIDDLE)                                       \
    }                                                                   \
    PLANAR_STEP (R, B, DFT)                                             \
    if (s + 1 == nstages) {                                             \
      PLANAR_STEP (R, B, STORE)                                         \
    } else {                                                            \
      PLANAR_STEP (R, B, PUT_X)                                         \
      barrier (CLK_LOCAL_MEM_FENCE);                                    \
    }                                                                   \
    Nsp = Ns;                                                           \
    to += ((R) - 1) * Ns;                                               \
    Ns *= (R);                                                          \
    s++;                                                                \
  }
#define PLANAR_STAGE_OF(R, B, RP, BP) PLANAR_STAGE_OF_ (R, B, RP, BP)

#ifdef CLF_R0
#define CLF_PSTAGE_0 PLANAR_STAGE_OF (CLF_R0, CLF_B0, CLF_R0, CLF_B0)
#else
#define CLF_PSTAGE_0
#endif
#ifdef CLF_R1
#define CLF_PSTAGE_1 PLANAR_STAGE_OF (CLF_R1, CLF_B1, CLF_R0, CLF_B0)
#else
#define CLF_PSTAGE_1
#endif
#ifdef CLF_R2
#define CLF_PSTAGE_2 PLANAR_STAGE_OF (CLF_R2, CLF_B2, CLF_R1, CLF_B1)
#else
#define CLF_PSTAGE_2
#endif
#ifdef CLF_R3
#define CLF_PSTAGE_3 PLANAR_STAGE_OF (CLF_R3, CLF_B3, CLF_R2, CLF_B2)
#else
#define CLF_PSTAGE_3
#endif
#ifdef CLF_R4
#define CLF_PSTAGE_4 PLANAR_STAGE_OF (CLF_R4, CLF_B4, CLF_R3, CLF_B3)
#else
#define CLF_PSTAGE_4
#endif
#ifdef CLF_R5
#define CLF_PSTAGE_5 PLANAR_STAGE_OF (CLF_R5, CLF_B5, CLF_R4, CLF_B4)
#else
#define CLF_PSTAGE_5
#endif
#ifdef CLF_R6
#define CLF_PSTAGE_6 PLANAR_STAGE_OF (CLF_R6, CLF_B6, CLF_R5, CLF_B5)
#else
#define CLF_PSTAGE_6
#endif
#ifdef CLF_R7
#define CLF_PSTAGE_7 PLANAR_STAGE_OF (CLF_R7, CLF_B7, CLF_R6, CLF_B6)
#else
#define CLF_PSTAGE_7
#endif
#ifdef CLF_R8
#define CLF_PSTAGE_8 PLANAR_STAGE_OF (CLF_R8, CLF_B8, CLF_R7, CLF_B7)
#else
#define CLF_PSTAGE_8
#endif
#ifdef CLF_R9
#define CLF_PSTAGE_9 PLANAR_STAGE_OF (CLF_R9, CLF_B9, CLF_R8, CLF_B8)
#else
#define CLF_PSTAGE_9
#endif
#ifdef CLF_R10
#define CLF_PSTAGE_10 PLANAR_STAGE_OF (CLF_R10, CLF_B10, CLF_R9, CLF_B9)
#else
#define CLF_PSTAGE_10
#endif
#ifdef CLF_R11
#define CLF_PSTAGE_11 PLANAR_STAGE_OF (CLF_R11, CLF_B11, CLF_R10, CLF_B10)
#else
#define CLF_PSTAGE_11
#endif

#if defined (CLF_FIXED) && defined (CLF_R0)
#define CLF_RUN_STAGES_PLANAR()                                          \
  {                                                                     \
    uint Ns = 1, Nsp = 1, s = 0, to = 0;                                \
    float2 v[32];                                                       \
    CLF_PSTAGE_0 CLF_PSTAGE_1 CLF_PSTAGE_2 CLF_PSTAGE_3                 \
    CLF_PSTAGE_4 CLF_PSTAGE_5 CLF_PSTAGE_6 CLF_PSTAGE_7                 \
    CLF_PSTAGE_8 CLF_PSTAGE_9 CLF_PSTAGE_10 CLF_PSTAGE_11               \
  }
#elif defined (CLF_PLANAR_EXCHANGE)
#error "the planar exchange is built for one length only (CLF_FIXED, CLF_R0, ...)"
#endif

/* Bluestein's one pass: post_tw holds the chirp that multiplies the
 * input (CLF_BLUESTEIN_N entries, the length of the transform the pass
 * stands for), the chirp that multiplies the output (as many), then the
 * filter's spectrum (N entries, the padded length) */
#ifdef CLF_BLUESTEIN_N
#define CLF_BLUESTEIN_OUT CLF_BLUESTEIN_N
#define CLF_BLUESTEIN_FILTER (2 * CLF_BLUESTEIN_N)
#endif

/* Bluestein's one pass through the planar exchange (CLF_BLUESTEIN_N,
 * whose padded length needs it): the forward transform's last stage puts
 * its outputs out like any other (the stages run with nstages one
 * higher), and the inverse transform's first stage gets them like any
 * other, from a last stage of radix CLF_RL (CLF_BL butterflies), then
 * takes the filter and the conjugation instead of twiddles. */
#define PLANAR_OP_FILTER(R, w, j)                                        \
  for (uint r = 0; r < R; r++)                                          \
    w[r] = conj2 (cmul (w[r],                                           \
            post_tw[CLF_BLUESTEIN_FILTER + (j) + r * (N / R)]));
#define PLANAR_BLUESTEIN_TURN_(R, B, RL, BL)                             \
  {                                                                     \
    Ns = 1;                                                             \
    to = 0;                                                             \
    PLANAR_GET (R, B, RL, BL)                                           \
    PLANAR_STEP (R, B, FILTER)                                          \
    PLANAR_STEP (R, B, DFT)                                             \
    PLANAR_STEP (R, B, PUT_X)                                           \
    barrier (CLK_LOCAL_MEM_FENCE);                                      \
    Nsp = Ns;                                                           \
    to += ((R) - 1) * Ns;                                               \
    Ns *= (R);                                                          \
    s = 1;                                                              \
  }
#define PLANAR_BLUESTEIN_TURN(R, B, RL, BL) \
  PLANAR_BLUESTEIN_TURN_ (R, B, RL, BL)
#if defined (CLF_PLANAR_EXCHANGE) && defined (CLF_BLUESTEIN_N)
#ifndef CLF_R1
#error "Bluestein's planar pass needs two stages or more"
#endif
#define CLF_RUN_BLUESTEIN_PLANAR()                                       \
  {                                                                     \
    uint Ns = 1, Nsp = 1, s = 0, to = 0;                                \
    float2 v[32];                                                       \
    {                                                                   \
      const uint nstages = CLF_NSTAGES + 1;                             \
      CLF_PSTAGE_0 CLF_PSTAGE_1 CLF_PSTAGE_2 CLF_PSTAGE_3               \
      CLF_PSTAGE_4 CLF_PSTAGE_5 CLF_PSTAGE_6 CLF_PSTAGE_7               \
      CLF_PSTAGE_8 CLF_PSTAGE_9 CLF_PSTAGE_10 CLF_PSTAGE_11             \
    }                                                                   \
    PLANAR_BLUESTEIN_TURN (CLF_R0, CLF_B0, CLF_RL, CLF_BL)              \
    CLF_PSTAGE_1 CLF_PSTAGE_2 CLF_PSTAGE_3                              \
    CLF_PSTAGE_4 CLF_PSTAGE_5 CLF_PSTAGE_6 CLF_PSTAGE_7                 \
    CLF_PSTAGE_8 CLF_PSTAGE_9 CLF_PSTAGE_10 CLF_PSTAGE_11               \
  }
#endif

/* Element j of the input of transform b as complex. */
inline float2
clf_load (__global const float2 * src, __global const float *srcr,
    clf_addr a, uint flags, uint N, uint base, uint j)
{
  float2 val;
  if (flags & CLF_IN_REAL) {
    val = (float2) (srcr[base + j * a.s1], 0.0f);
  } else if (flags & CLF_IN_HERMITIAN) {
    /* half spectrum of a real signal: X[N-j] = conj(X[j]) */
    if (j <= N / 2)
      val = src[base + j * a.s1];
    else
      val = conj2 (src[base + (N - j) * a.s1]);
  } else {
    val = src[base + j * a.s1];
  }
  return (flags & CLF_CONJ_IN) ? conj2 (val) : val;
}

/* exp(-2 pi i m/n) from clf_split_twiddle_table (L = 2^shift entries of
 * the low part, then the high part) */
inline float2
clf_four_step_twiddle (__global const float2 * tw, uint shift, uint m)
{
  uint L = 1u << shift;
  return cmul (tw[m & (L - 1)], tw[L + (m >> shift)]);
}

/* The four-step index n2 of transform b, whose twiddle of element j is
 * that of n2 * j (fft_local's post_div and post_mod, params.s7) */
inline uint
clf_four_step_column (uint b, uint post_div, uint post_mod)
{
  return (b / post_div) % post_mod;
}

/* The four-step twiddle of element j + d of transform b (column n2),
 * w(n2 (j + d)). The first and last stages load and store element
 * j + r*N/R of butterfly j as (j, r*N/R). Where a warp's threads walk
 * the elements of one transform (split), w(n2 j) w(n2 d) costs a
 * thread one scattered read of both tables a butterfly, w(n2 d) being
 * one address across the warp: 2^20 x64's rows ran 399 us instead of
 * 437 on the H200. Where they walk neighbouring columns, n2 differs from
 * thread to thread and both factors would be scattered reads: w(n2 (j +
 * d)) at once (2^19 x128's columns 381 us against 444 split). */
inline float2
clf_four_step_twiddle_of (__global const float2 * tw, uint shift, uint n2,
    uint j, uint d, int split)
{
  if (!split)
    return clf_four_step_twiddle (tw, shift, n2 * (j + d));
  float2 w = clf_four_step_twiddle (tw, shift, n2 * j);
  return d ? cmul (w, clf_four_step_twiddle (tw, shift, n2 * d)) : w;
}

/* Element j + d of the input of transform b, with the four-step twiddle
 * where the pass takes it on its input */
inline float2
clf_load_twiddled (__global const float2 * src, __global const float *srcr,
    clf_addr a, uint flags, uint N, uint base, uint j, uint d,
    __global const float2 * post_tw, uint post_shift, uint n2, int split)
{
#ifdef CLF_BLUESTEIN_N
  /* Bluestein's one pass: the input times the chirp (post_tw), zeros
   * from CLF_BLUESTEIN_N on, which are not read */
  if (j + d >= CLF_BLUESTEIN_N)
    return (float2) (0.0f, 0.0f);
  return cmul (clf_load (src, srcr, a, flags, N, base, j + d),
      post_tw[j + d]);
#else
  float2 val = clf_load (src, srcr, a, flags, N, base, j + d);
  if (flags & CLF_PRE_TWIDDLE)
    val = cmul (val, clf_four_step_twiddle_of (post_tw, post_shift, n2, j,
            d, split));
  return val;
#endif
}

/* Element j + d of the output of a transform: four-step twiddle,
 * direction, scale, real part, and the R2C limit on the whole
 * transform's index. */
inline void
clf_store (__global float2 * dst, __global float *dstr, uint flags,
    uint base, uint stride, uint j, uint d, uint first, uint step,
    uint count, float2 val, float scale, __global const float2 * post_tw,
    uint post_shift, uint n2, int split)
{
  uint i = j + d;
  if (first + i * step >= count)
    return;
  if (flags & CLF_POST_TWIDDLE)
    val = cmul (val, clf_four_step_twiddle_of (post_tw, post_shift, n2, j,
            d, split));
  if (flags & CLF_CONJ_OUT)
    val = conj2 (val);
#ifdef CLF_BLUESTEIN_N
  /* Bluestein's one pass: the output's chirp (CLF_BLUESTEIN_OUT) */
  val = cmul (val, post_tw[CLF_BLUESTEIN_OUT + i]);
#endif
  val *= scale;
  if (flags & CLF_OUT_REAL)
    dstr[base + i * stride] = val.x;
  else
    dst[base + i * stride] = val;
}

#if !defined (CLF_HELPERS_ONLY) && !defined (CLF_LINE_PASS)
/* fft_local's first stage reads its input, the last writes its output */
#define CLF_GLOBAL_LOAD(j, d) clf_load_twiddled (src, srcr, in, flags, N, \
    in_base, j, d, post_tw, post_shift, n2, !bfast)
#define CLF_DIRECT_LOAD(j, d) CLF_GLOBAL_LOAD (j, d)
#define CLF_DIRECT_STORE(j, d, val) clf_store (dst, dstr, flags,         \
    out_base, out.s1, j, d, first_out, store_step, count, val, scale,     \
    post_tw, post_shift, n2, !bfast)

/* Programs built for one length learn where the divisions of the
 * addressing fall away, or take constant divisors (clf-plan.c's
 * layout_defines): CLF_IN_ONE_LEVEL and CLF_OUT_ONE_LEVEL, that side's
 * transforms lie s2 apart (one batch level); else CLF_IN_NB0/NB1 and
 * CLF_OUT_NB0/NB1, its levels' sizes. CLF_STORE_ALL, every transform
 * keeps its outputs from the first (store_mod 1; other programs test for
 * it at run time, which spares the block store a division per element),
 * else CLF_STORE_MOD. CLF_POST_DIV and CLF_POST_MOD, the four-step
 * column's divisors. A division by a run-time value costs NVIDIA's
 * compiler about twenty instructions a thread. CLF_IN_UNIT and
 * CLF_OUT_UNIT, that side's element stride s1 is 1. */
#ifdef CLF_IN_ONE_LEVEL
#define CLF_IN_OFFSET(a, b) ((b) * (a).s2)
#elif defined (CLF_IN_NB0)
#define CLF_IN_OFFSET(a, b) clf_batch_offset_of (a, b, CLF_IN_NB0, CLF_IN_NB1)
#else
#define CLF_IN_OFFSET(a, b) clf_batch_offset (a, b)
#endif
#ifdef CLF_OUT_ONE_LEVEL
#define CLF_OUT_OFFSET(a, b) ((b) * (a).s2)
#elif defined (CLF_OUT_NB0)
#define CLF_OUT_OFFSET(a, b) clf_batch_offset_of (a, b, CLF_OUT_NB0, \
    CLF_OUT_NB1)
#else
#define CLF_OUT_OFFSET(a, b) clf_batch_offset (a, b)
#endif
#ifdef CLF_STORE_ALL
#define CLF_STORE_FIRST(b, mod) 0u
#elif defined (CLF_STORE_MOD)
#define CLF_STORE_FIRST(b, mod) ((b) % CLF_STORE_MOD)
#else
#define CLF_STORE_FIRST(b, mod) ((mod) > 1 ? (b) % (mod) : 0u)
#endif
#ifdef CLF_POST_MOD
#define CLF_FOUR_STEP_COLUMN(b) clf_four_step_column (b, CLF_POST_DIV, \
    CLF_POST_MOD)
#else
#define CLF_FOUR_STEP_COLUMN(b) clf_four_step_column (b, post_div, post_mod)
#endif

/* Block I/O (CLF_BLOCK_IO): element i of the group's span, element j of
 * its transform gi at i = gi * N + j, between global memory and buf;
 * whole: the group's transforms all exist (no test) */
#define CLF_BLOCK_LOAD(i, whole)                                        \
  {                                                                     \
    uint gi = (i) / N, j = (i) - gi * N;                                \
    uint in2 = (flags & CLF_PRE_TWIDDLE) ?                              \
        CLF_FOUR_STEP_COLUMN (b0 + gi) : 0;                             \
    if ((whole) || b0 + gi < batch)                                     \
      buf[gi * LS + LX (j)] = clf_load_twiddled (src, srcr, in, flags,  \
          N, in.s0 + CLF_IN_OFFSET (in, b0 + gi), j, 0, post_tw,         \
          post_shift, in2, 0);                                          \
  }
#define CLF_BLOCK_STORE(i, whole)                                       \
  {                                                                     \
    uint gi = (i) / N, j = (i) - gi * N, ob = b0 + gi;                  \
    uint first = CLF_STORE_FIRST (ob, store_mod);                       \
    uint on2 = (flags & CLF_POST_TWIDDLE) ?                             \
        CLF_FOUR_STEP_COLUMN (ob) : 0;                                  \
    if ((whole) || ob < batch)                                          \
      clf_store (dst, dstr, flags, out.s0 + CLF_OUT_OFFSET (out, ob),   \
          out.s1, j, 0, first, store_step, count,                       \
          buf[gi * LS + LX (j)], scale, post_tw, post_shift, on2, 0);   \
  }
/* OP (i, whole) over the group's span: programs of one thread a
 * transform (CLF_ONE_THREAD; T = 1, so T divides N) have a whole group's
 * threads take N / T elements each, their loads in flight together,
 * where a loop that the program does not count waited for each load
 * before the next */
#if defined (CLF_ONE_THREAD) && defined (CLF_FIXED)
#define CLF_BLOCK_ROUNDS 1
#else
#define CLF_BLOCK_ROUNDS 0
#endif
#define CLF_BLOCK_EACH(OP)                                              \
  if (CLF_BLOCK_ROUNDS && b0 + G <= batch) {                            \
    _Pragma ("unroll")                                                  \
    for (uint k = 0; k < N / T; k++)                                    \
      OP (lid + k * G * T, 1);                                          \
  } else {                                                              \
    for (uint i = lid; i < G * N; i += G * T)                           \
      OP (i, 0);                                                        \
  }

/* CLF_REQD_WG: the work-group size of a program built for one length,
 * named where the plan chooses (name_work_group in ocl/clf-plan.c) */
#ifdef CLF_REQD_WG
#define CLF_LOCAL_KERNEL                                                \
  __kernel __attribute__ ((reqd_work_group_size (CLF_REQD_WG, 1, 1)))
#else
#define CLF_LOCAL_KERNEL __kernel
#endif

/* One whole transform of length N <= local memory per group of T threads;
 * G transforms per work-group. params: s0 N, s1 number of stages, s2 T,
 * s3 G, s4 batch, s5 flags, s6 elements to store (R2C: N/2+1),
 * s7 four-step twiddle modulus (index n2 = (b / post_div) % s7, on the
 * output or, CLF_PRE_TWIDDLE, on the input). */
CLF_LOCAL_KERNEL void
fft_local (__global const float2 * src, __global float2 * dst,
    clf_addr in, clf_addr out, uint8 params, ulong radix_codes,
    __global const float2 * tw, __global const float2 * post_tw,
    uint post_shift, uint store_mod, uint store_step, float scale,
    __local float2 * buf, uint post_div)
{
#ifdef CLF_FIXED
  /* a program built for one plan: the compiler folds the divisions by N,
   * Ns and T and unrolls the stages (see clf-plan.c) */
  const uint N = CLF_N, nstages = CLF_NSTAGES, T = CLF_T, G = CLF_G;
  const ulong codes = CLF_CODES;
#else
  const uint N = params.s0, nstages = params.s1, T = params.s2;
  const uint G = params.s3;
  const ulong codes = radix_codes;
#endif
#ifdef CLF_FLAGS
  const uint flags = CLF_FLAGS;
#else
  const uint flags = params.s5;
#endif
  const uint batch = params.s4;
  const uint count = params.s6, post_mod = params.s7;
  const uint lid = get_local_id (0);
  const uint b0 = get_group_id (0) * G;
  __global const float *srcr = (__global const float *) src;
  __global float *dstr = (__global float *) dst;

  /* CLF_IN_UNIT, CLF_OUT_UNIT: that side's elements are neighbours (the
   * plan's layout defines), and addresses fold the constant stride */
#ifdef CLF_IN_UNIT
  in.s1 = 1u;
#endif
#ifdef CLF_OUT_UNIT
  out.s1 = 1u;
#endif

  /* Threads walk neighbouring transforms when those are adjacent in
   * memory (columns) or read and written as one span (block I/O, which
   * leaves the stages free to: a 32-point batch's stages, threads over
   * elements, lost 14% to bank conflicts on the H200), else neighbouring
   * elements of one transform. */
  const int bfast = (flags & (CLF_LOAD_BFAST | CLF_BLOCK_IO)) != 0;
  const uint g = bfast ? lid % G : lid / T;
  const uint t = bfast ? lid / G : lid % T;
  const uint b = b0 + g;
  const int live = b < batch;
#if defined (CLF_FIXED) && !defined (CLF_LIVE_TESTS)
  /* One transform a group: a group past the batch leaves at once, so
   * that the stages test no butterfly for it. With the full rounds
   * untested too (STAGE_EACH_B), 4095's program took 2432 instructions
   * a thread instead of 2760 and 80 registers instead of 92, and ran
   * 335-339 us instead of 347-349 on the H200 (2187 x30685 314-316
   * against 331-336, 6720 x8192 344 against 405). CLF_LIVE_TESTS (the
   * plan's, for large groups whose rounds are all full) keeps it. */
  if (G == 1 && !live)
    return;
  const int stage_live = G == 1 || live;
#else
  const int stage_live = live;
#endif
  /* an odd stride between the transforms in local memory spreads the
   * threads of bfast groups over the banks */
  const uint LS = LX (N) | 1u;
  __local float2 *x = buf + g * LS;
  const uint in_base = live ? in.s0 + CLF_IN_OFFSET (in, b) : 0;
  const uint out_base = live ? out.s0 + CLF_OUT_OFFSET (out, b) : 0;
  const uint first_out = CLF_STORE_FIRST (b, store_mod);
  const uint n2 = CLF_FOUR_STEP_COLUMN (b);
  /* CLF_BLOCK_IO: the group's transforms are one span of memory, read
   * and written through local memory at consecutive addresses. Direct
   * I/O would have each thread of a short transform (N = 8: one thread)
   * read its own elements, a warp 32 lines per instruction. (Conditionals,
   * not &&: clang warns of && with a constant operand.) */
  const int block_io = (flags & CLF_BLOCK_IO) != 0;
  const int direct_load = CLF_DIRECT_IO ? !block_io : 0;
  const int direct_store = !CLF_DIRECT_IO ? 0 : block_io ? 0 :
      ((flags & CLF_STORE_BFAST) != 0) == bfast;
  /* when the result goes out from local memory, the other walk; decided
   * here, before the barriers: PoCL 3.1 mis-evaluated a bounds test
   * computed after them (stores past the end of the output) */
  const uint sg = bfast ? lid / T : lid % G;
  const uint st = bfast ? lid % T : lid / G;
  const uint sb = b0 + sg;
  const int store_live = sb < batch;

  if (nstages == 0) {
    /* N = 1: the transform is the identity */
    if (live && t == 0)
      clf_store (dst, dstr, flags, out_base, out.s1, 0, 0, first_out,
          store_step, count, CLF_DIRECT_LOAD (0, 0),
          scale, post_tw, post_shift, n2, 0);
    return;
  }

#ifdef CLF_PLANAR_EXCHANGE
  {
    __local float *xs = (__local float *) buf + g * LS;
#ifdef CLF_BLUESTEIN_N
    CLF_RUN_BLUESTEIN_PLANAR ();
#else
    CLF_RUN_STAGES_PLANAR ();
#endif
  }
#else
  if (block_io) {
    CLF_BLOCK_EACH (CLF_BLOCK_LOAD);
    barrier (CLK_LOCAL_MEM_FENCE);
  } else if (!direct_load) {
    /* fill local memory first; the stages then all read from it */
    if (live)
      for (uint j = t; j < N; j += T)
        x[LX (j)] = CLF_DIRECT_LOAD (j, 0);
    barrier (CLK_LOCAL_MEM_FENCE);
  }

#ifdef CLF_BLUESTEIN_N
  /* Bluestein in one pass: the forward transform of the chirped input
   * stays in local memory; the inverse one reads it times the filter
   * (from entry CLF_BLUESTEIN_FILTER of post_tw), conjugated, and its
   * output goes out as any other, times the chirp (CLF_BLUESTEIN_OUT).
   * Global memory sees the n inputs and n outputs alone. */
  {
    const int direct_store = 0;
    CLF_RUN_STAGES ();
  }
  {
    const int direct_load = 1;
#undef CLF_DIRECT_LOAD
#define CLF_DIRECT_LOAD(j, d) conj2 (cmul (LAT (x, (j), (d)),            \
        post_tw[CLF_BLUESTEIN_FILTER + (j) + (d)]))
    CLF_RUN_STAGES ();
#undef CLF_DIRECT_LOAD
#define CLF_DIRECT_LOAD(j, d) CLF_GLOBAL_LOAD (j, d)
  }
#else
  CLF_RUN_STAGES ();
#endif

  /* the last stage left the result in local memory: write it out with
   * the other walk (threads over transforms, or over elements) */
  if (block_io) {
    CLF_BLOCK_EACH (CLF_BLOCK_STORE);
  } else if (!direct_store) {
    uint base = out.s0 + CLF_OUT_OFFSET (out, sb);
    uint first = CLF_STORE_FIRST (sb, store_mod);
    uint sn2 = CLF_FOUR_STEP_COLUMN (sb);
    uint jend = store_live ? N : 0;
    for (uint d = 0; st + d < jend; d += T)
      clf_store (dst, dstr, flags, base, out.s1, st, d, first, store_step,
          count, buf[sg * LS + LX (st + d)], scale, post_tw, post_shift,
          sn2, bfast);
  }
#endif /* CLF_PLANAR_EXCHANGE */
}
#undef CLF_GLOBAL_LOAD
#undef CLF_DIRECT_LOAD
#undef CLF_DIRECT_STORE
#undef CLF_BLOCK_LOAD
#undef CLF_BLOCK_STORE
#undef CLF_BLOCK_ROUNDS
#undef CLF_BLOCK_EACH
#endif /* fft_local */

#ifdef CLF_LINE_PASS
#include "line-io.clh"

/* Separable 2D convolution, one axis per launch: CLF_LINE_PASS 1 takes
 * frame rows into the lines buffer, 2 its lines back into frame columns
 * (line-io.clh). Per group of T threads one line: loaded with the edge
 * extension, transformed, multiplied by the kernel spectrum (which holds
 * the 1/N), transformed back as conj (FFT (conj)), and its frame part
 * stored; the padded line never touches global memory. G lines per
 * work-group. shape: s0 N, s1 stages, s2 T, s3 G. sums: the clamp
 * edges' taps where the program has CLF_LINE_EDGES (lines of the frame
 * alone), else unused. */
#define CLF_DIRECT_LOAD(j, d) ((float2) (0.0f, 0.0f))
#define CLF_DIRECT_STORE(j, d, val)

#if CLF_LINE_PASS == 1
#define clf_line_load line_load_rows
#define clf_line_store line_store_rows
#else
#define clf_line_load line_load_columns
#define clf_line_store line_store_columns
#endif

__kernel void
fft_convolve_line (__global uchar * raw, __global float2 * lines,
    uint16 chan, int8 geo, uint count, __global const float2 * kspec,
    __global const float2 * tw, __local float2 * buf, uint4 shape,
    ulong radix_codes, __global const float * sums)
{
#ifdef CLF_FIXED
  const uint N = CLF_N, nstages = CLF_NSTAGES, T = CLF_T, G = CLF_G;
  const ulong codes = CLF_CODES;
#else
  const uint N = shape.s0, nstages = shape.s1, T = shape.s2, G = shape.s3;
  const ulong codes = radix_codes;
#endif
  const uint lid = get_local_id (0);
  const uint g = lid / T, t = lid % T;
  const uint b = get_group_id (0) * G + g;
  const int live = b < count, stage_live = live;
  const int direct_store = 0;
  const uint LS = LX (N) | 1u;
  __local float2 *x = buf + g * LS;
  const int direct_load = 0;

  for (uint j = t; j < N; j += T)
    x[LX (j)] = live ? clf_line_load (raw, lines, chan, geo, b, j) :
        (float2) (0.0f, 0.0f);
  barrier (CLK_LOCAL_MEM_FENCE);
  CLF_RUN_STAGES ();
  for (uint j = t; j < N; j += T)
    x[LX (j)] = conj2 (cmul (x[LX (j)], kspec[j]));
  barrier (CLK_LOCAL_MEM_FENCE);
  CLF_RUN_STAGES ();
  if (live)
    for (uint j = t; j < N; j += T)
      clf_line_store (raw, lines, chan, geo, b, j, conj2 (x[LX (j)]), sums);
}
#endif /* CLF_LINE_PASS */

/* The helper kernels go only into the program built for them (new_pass in
 * ocl/clf-plan.c): every fft_local and line program compiled them too,
 * and NVIDIA's cold builds took about 10% longer for it. */
#ifdef CLF_HELPERS_ONLY
/* ---- Bluestein: X_k = c_k sum_n (x_n c_n) conj(c)_{k-n}, c_n = w^(n^2/2) -- */

/* a[b][n] = x[b][n] * chirp[n] for n < N, 0 up to M (packed, batch x M). */
__kernel void
bluestein_premultiply (__global const float2 * src, __global float2 * dst,
    clf_addr in, uint N, uint M, uint batch, uint flags,
    __global const float2 * chirp)
{
  uint n = get_global_id (0), b = get_global_id (1);
  if (n >= M || b >= batch)
    return;
  float2 val = (float2) (0.0f, 0.0f);
  if (n < N) {
    val = clf_load (src, (__global const float *) src, in, flags, N,
        in.s0 + clf_batch_offset (in, b), n);
    val = cmul (val, chirp[n]);
  }
  dst[(size_t) b * M + n] = val;
}

/* a[b][k] *= filter[k] (the filter spectrum already holds 1/M) */
__kernel void
bluestein_pointwise (__global float2 * data, uint M, uint batch,
    __global const float2 * filter)
{
  uint k = get_global_id (0), b = get_global_id (1);
  if (k >= M || b >= batch)
    return;
  size_t i = (size_t) b * M + k;
  data[i] = cmul (data[i], filter[k]);
}

/* X[b][k] = a[b][k] * chirp[k], k < count, into the output layout */
__kernel void
bluestein_postmultiply (__global const float2 * src, __global float2 * dst,
    clf_addr out, uint M, uint count, uint batch, uint flags, float scale,
    __global const float2 * chirp)
{
  uint k = get_global_id (0), b = get_global_id (1);
  if (k >= count || b >= batch)
    return;
  float2 val = cmul (src[(size_t) b * M + k], chirp[k]);
  if (flags & CLF_CONJ_OUT)
    val = conj2 (val);
  val *= scale;
  uint o = out.s0 + clf_batch_offset (out, b) + k * out.s1;
  if (flags & CLF_OUT_REAL)
    ((__global float *) dst)[o] = val.x;
  else
    dst[o] = val;
}

/* ---- The Bluestein kernels' exact forms, for CPU devices --------------
 *
 * Launched on exactly the work-items they serve (ocl/clf-plan.c,
 * exact_launch), with no bounds check on dimension 0: a check there makes
 * PoCL mask its work-item loop, and masked complex loads and stores
 * became gathers and scatters. Complex values are two floats, the
 * imaginary part stored through fma, indices size_t: clang's SLP
 * vectoriser pairs float2 values, or two stores of the same operation,
 * into <2 x float> code before PoCL builds its work-item loops, which
 * then run every work-item alone (stc in kernels/fft_cpu.cl). And each
 * form does one thing: PoCL if-converts the branches of the loop. A
 * 254-point R2C batch (spectrum's bands=128) spent 15 instead of 100 of
 * its 150 us in these three passes. */

inline void
split_load (__global const float2 * src, size_t i, float *re, float *im)
{
  __global const float *p = (__global const float *) src + 2 * i;
  *re = p[0];
  *im = p[1];
}

inline void
split_store (__global float2 * dst, size_t i, float re, float im)
{
  __global float *p = (__global float *) dst + 2 * i;
  p[0] = re;
  p[1] = fma (im, 1.0f, 0.0f);
}

/* bluestein_premultiply on the first N elements of each row, read in a
 * row (in.s1 = 1), real or complex; the forward transform takes the rest
 * of the row as zeros (its input extent) */
__kernel void
bluestein_premultiply_real_exact (__global const float2 * src,
    __global float2 * dst, clf_addr in, uint N, uint M, uint batch,
    uint flags, __global const float2 * chirp)
{
  const size_t n = get_global_id (0), b = get_global_id (1);
  const float re = ((__global const float *) src)[in.s0 +
      (size_t) clf_batch_offset (in, b) + n];
  float cr, ci;

  split_load (chirp, n, &cr, &ci);
  split_store (dst, b * M + n, re * cr, re * ci);
}

__kernel void
bluestein_premultiply_exact (__global const float2 * src,
    __global float2 * dst, clf_addr in, uint N, uint M, uint batch,
    uint flags, __global const float2 * chirp)
{
  const size_t n = get_global_id (0), b = get_global_id (1);
  const float sign = (flags & CLF_CONJ_IN) ? -1.0f : 1.0f;
  float re, im, cr, ci;

  split_load (src, in.s0 + (size_t) clf_batch_offset (in, b) + n, &re, &im);
  im *= sign;
  split_load (chirp, n, &cr, &ci);
  split_store (dst, b * M + n, re * cr - im * ci, re * ci + im * cr);
}

__kernel void
bluestein_pointwise_exact (__global float2 * data, uint M, uint batch,
    __global const float2 * filter)
{
  const size_t k = get_global_id (0), i = get_global_id (1) * M + k;
  float ar, ai, fr, fi;

  split_load (data, i, &ar, &ai);
  split_load (filter, k, &fr, &fi);
  split_store (data, i, ar * fr - ai * fi, ar * fi + ai * fr);
}

/* bluestein_postmultiply into complex outputs in a row (out.s1 = 1) */
__kernel void
bluestein_postmultiply_exact (__global const float2 * src,
    __global float2 * dst, clf_addr out, uint M, uint count, uint batch,
    uint flags, float scale, __global const float2 * chirp)
{
  const size_t k = get_global_id (0), b = get_global_id (1);
  const float im_scale = (flags & CLF_CONJ_OUT) ? -scale : scale;
  float ar, ai, cr, ci;

  split_load (src, b * M + k, &ar, &ai);
  split_load (chirp, k, &cr, &ci);
  split_store (dst, out.s0 + (size_t) clf_batch_offset (out, b) + k,
      (ar * cr - ai * ci) * scale, (ar * ci + ai * cr) * im_scale);
}

/* An input extent and multiplier (ClfPlanDesc) for transforms that do
 * not take them in their own loads: element j of transform b, zero from
 * extent on, times mul[j] where use_mul is set, packed batch x N. */
__kernel void
input_prepare (__global const float2 * src, __global float2 * dst,
    clf_addr in, uint N, uint batch, uint extent,
    __global const float2 * mul, uint use_mul)
{
  uint j = get_global_id (0), b = get_global_id (1);
  float2 val = (float2) (0.0f, 0.0f);
  if (j >= N || b >= batch)
    return;
  if (j < extent) {
    val = src[in.s0 + clf_batch_offset (in, b) + j * in.s1];
    if (use_mul)
      val = cmul (val, mul[j]);
  }
  dst[(size_t) b * N + j] = val;
}

/* Full complex signal from a half spectrum (C2R on lengths that do not fit
 * one pass): packed batch x N output. */
__kernel void
hermitian_expand (__global const float2 * src, __global float2 * dst,
    clf_addr in, uint N, uint batch)
{
  uint j = get_global_id (0), b = get_global_id (1);
  if (j >= N || b >= batch)
    return;
  dst[(size_t) b * N + j] = clf_load (src, (__global const float *) src, in,
      CLF_IN_HERMITIAN, N, in.s0 + clf_batch_offset (in, b), j);
}
#endif /* CLF_HELPERS_ONLY */

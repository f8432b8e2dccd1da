/* fft_cpu.cl: barrier-free Stockham passes for CPU devices (PoCL).
 *
 * One launch per stage: work-item (k, q, b) does butterfly j = q*NS + k of
 * transform b, reading x[j + r*N/R], multiplying by w_{NS*R}^{r*k} and
 * writing y[q*NS*R + r*NS + k]. No barriers, no local memory, straight-line
 * code on scalars: PoCL turns the work-item loop into vector code (8 or 16
 * work-items per instruction) when adjacent work-items touch adjacent
 * addresses. Complex values are pairs of floats, never float2: LLVM's loop
 * vectoriser gives up on vector-typed instructions.
 *
 * Compile-time parameters (one program per combination, see
 * ocl/clf-plan-cpu.c):
 *   R         the radix of this stage
 *   MODE      0: rows, k fastest (NS >= 8); 1: rows, q fastest (small NS);
 *             2: columns (transform index c fastest, c adjacent in memory)
 *   FIRST     first stage (NS = 1): no twiddles
 *   IN_KIND   0 complex, 1 real, 2 Hermitian half spectrum
 *   OUT_REAL  store the real part only
 *   LIMIT     store only outputs below params.s2 (R2C)
 *   IN_UNIT, OUT_UNIT   element stride 1 (rows)
 *
 * Addressing as in fft.cl: transform b, element e at
 *   s0 + e*s1 + (b % s5)*s2 + ((b / s5) % s6)*s3 + (b / (s5*s6))*s4
 * In column mode b = c + s5 * (third global id): c*s2 + outer(b / s5).
 */

#define INL __attribute__((always_inline)) inline

typedef struct
{
  float r, i;
} cf;

INL cf
mk (float r, float i)
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

__constant float w16r[4] = { 1.0f, 0.92387953251128675613f,
  0.70710678118654752440f, 0.38268343236508977173f
};
__constant float w16i[4] = { 0.0f, -0.38268343236508977173f,
  -0.70710678118654752440f, -0.92387953251128675613f
};

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

__constant float cpu_cos3[3] = { 1.0f, -0.5f, -0.5f };
__constant float cpu_sin3[3] = { 0.0f, 0.86602540378443864676f,
  -0.86602540378443864676f
};

__constant float cpu_cos5[5] = { 1.0f, 0.30901699437494742410f,
  -0.80901699437494742410f, -0.80901699437494742410f,
  0.30901699437494742410f
};
__constant float cpu_sin5[5] = { 0.0f, 0.95105651629515357212f,
  0.58778525229247312917f, -0.58778525229247312917f,
  -0.95105651629515357212f
};

__constant float cpu_cos7[7] = { 1.0f, 0.62348980185873353053f,
  -0.22252093395631440429f, -0.90096886790241912624f,
  -0.90096886790241912624f, -0.22252093395631440429f,
  0.62348980185873353053f
};
__constant float cpu_sin7[7] = { 0.0f, 0.78183148246802980871f,
  0.97492791218182360702f, 0.43388373911755812048f,
  -0.43388373911755812048f, -0.97492791218182360702f,
  -0.78183148246802980871f
};

__constant float cpu_cos11[11] = { 1.0f, 0.84125353283118116886f,
  0.41541501300188642553f, -0.14231483827328514044f,
  -0.65486073394528506406f, -0.95949297361449738989f,
  -0.95949297361449738989f, -0.65486073394528506406f,
  -0.14231483827328514044f, 0.41541501300188642553f,
  0.84125353283118116886f
};
__constant float cpu_sin11[11] = { 0.0f, 0.54064081745559758211f,
  0.90963199535451837141f, 0.98982144188093273238f,
  0.75574957435425828377f, 0.28173255684142969771f,
  -0.28173255684142969771f, -0.75574957435425828377f,
  -0.98982144188093273238f, -0.90963199535451837141f,
  -0.54064081745559758211f
};

__constant float cpu_cos13[13] = { 1.0f, 0.88545602565320989587f,
  0.56806474673115580251f, 0.12053668025532305335f,
  -0.35460488704253562597f, -0.74851074817110109863f,
  -0.97094181742605202716f, -0.97094181742605202716f,
  -0.74851074817110109863f, -0.35460488704253562597f,
  0.12053668025532305335f, 0.56806474673115580251f,
  0.88545602565320989587f
};
__constant float cpu_sin13[13] = { 0.0f, 0.46472317204376854566f,
  0.82298386589365639458f, 0.99270887409805399280f,
  0.93501624268541482344f, 0.66312265824079520238f,
  0.23931566428755776715f, -0.23931566428755776715f,
  -0.66312265824079520238f, -0.93501624268541482344f,
  -0.99270887409805399280f, -0.82298386589365639458f,
  -0.46472317204376854566f
};

#if R == 3
DFT_ODD (3, cpu_cos3, cpu_sin3)
#elif R == 5
DFT_ODD (5, cpu_cos5, cpu_sin5)
#elif R == 7
DFT_ODD (7, cpu_cos7, cpu_sin7)
#elif R == 11
DFT_ODD (11, cpu_cos11, cpu_sin11)
#elif R == 13
DFT_ODD (13, cpu_cos13, cpu_sin13)
#endif


/* ---- composite radices R1 x R2 in registers ---------------------------
 * x[n1 + R1*n2]: DFTs of length R2 over n2, twiddle w_R^(n1*k2), DFTs of
 * length R1 over n1, output k2 + R2*k1. The twiddles are constants
 * (computed in double precision when this file was written); the
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

#if R == 32
__constant float cpu_w32r[32] = {
  1.00000000000000000000f, 0.98078528040323043058f, 0.92387953251128673848f,
  0.83146961230254523567f, 0.70710678118654757274f, 0.55557023301960228867f,
  0.38268343236508983729f, 0.19509032201612833135f, 0.0f,
  -0.19509032201612819257f, -0.38268343236508972627f,
  -0.55557023301960195560f, -0.70710678118654746172f,
  -0.83146961230254534669f, -0.92387953251128673848f,
  -0.98078528040323043058f, -1.00000000000000000000f,
  -0.98078528040323043058f, -0.92387953251128684951f,
  -0.83146961230254545772f, -0.70710678118654768376f,
  -0.55557023301960217765f, -0.38268343236509033689f,
  -0.19509032201612866442f, 0.0f, 0.19509032201612830359f,
  0.38268343236509000382f, 0.55557023301960184458f, 0.70710678118654735069f,
  0.83146961230254523567f, 0.92387953251128651644f, 0.98078528040323031956f
};
__constant float cpu_w32i[32] = {
  0.0f, -0.19509032201612824808f, -0.38268343236508978178f,
  -0.55557023301960217765f, -0.70710678118654746172f,
  -0.83146961230254523567f, -0.92387953251128673848f,
  -0.98078528040323043058f, -1.00000000000000000000f,
  -0.98078528040323043058f, -0.92387953251128673848f,
  -0.83146961230254545772f, -0.70710678118654757274f,
  -0.55557023301960217765f, -0.38268343236508989280f,
  -0.19509032201612860891f, 0.0f, 0.19509032201612835911f,
  0.38268343236508967076f, 0.55557023301960195560f, 0.70710678118654746172f,
  0.83146961230254523567f, 0.92387953251128651644f, 0.98078528040323031956f,
  1.00000000000000000000f, 0.98078528040323043058f, 0.92387953251128662746f,
  0.83146961230254545772f, 0.70710678118654768376f, 0.55557023301960217765f,
  0.38268343236509039240f, 0.19509032201612871993f
};
DFT_COMPOSITE (32, 4, 8)
#elif R == 64
__constant float cpu_w64r[64] = {
  1.00000000000000000000f, 0.99518472667219692873f, 0.98078528040323043058f,
  0.95694033573220882438f, 0.92387953251128673848f, 0.88192126434835504956f,
  0.83146961230254523567f, 0.77301045336273699338f, 0.70710678118654757274f,
  0.63439328416364548779f, 0.55557023301960228867f, 0.47139673682599780857f,
  0.38268343236508983729f, 0.29028467725446233105f, 0.19509032201612833135f,
  0.09801714032956077016f, 0.0f, -0.09801714032956064526f,
  -0.19509032201612819257f, -0.29028467725446216452f,
  -0.38268343236508972627f, -0.47139673682599769755f,
  -0.55557023301960195560f, -0.63439328416364537677f,
  -0.70710678118654746172f, -0.77301045336273699338f,
  -0.83146961230254534669f, -0.88192126434835493853f,
  -0.92387953251128673848f, -0.95694033573220882438f,
  -0.98078528040323043058f, -0.99518472667219681771f,
  -1.00000000000000000000f, -0.99518472667219692873f,
  -0.98078528040323043058f, -0.95694033573220893540f,
  -0.92387953251128684951f, -0.88192126434835504956f,
  -0.83146961230254545772f, -0.77301045336273710440f,
  -0.70710678118654768376f, -0.63439328416364593188f,
  -0.55557023301960217765f, -0.47139673682599786408f,
  -0.38268343236509033689f, -0.29028467725446244208f,
  -0.19509032201612866442f, -0.09801714032956045097f, 0.0f,
  0.09801714032956009015f, 0.19509032201612830359f, 0.29028467725446205350f,
  0.38268343236509000382f, 0.47139673682599758653f, 0.55557023301960184458f,
  0.63439328416364559882f, 0.70710678118654735069f, 0.77301045336273666031f,
  0.83146961230254523567f, 0.88192126434835482751f, 0.92387953251128651644f,
  0.95694033573220882438f, 0.98078528040323031956f, 0.99518472667219692873f
};
__constant float cpu_w64i[64] = {
  0.0f, -0.09801714032956060363f, -0.19509032201612824808f,
  -0.29028467725446233105f, -0.38268343236508978178f,
  -0.47139673682599764204f, -0.55557023301960217765f,
  -0.63439328416364548779f, -0.70710678118654746172f,
  -0.77301045336273699338f, -0.83146961230254523567f,
  -0.88192126434835493853f, -0.92387953251128673848f,
  -0.95694033573220893540f, -0.98078528040323043058f,
  -0.99518472667219681771f, -1.00000000000000000000f,
  -0.99518472667219692873f, -0.98078528040323043058f,
  -0.95694033573220893540f, -0.92387953251128673848f,
  -0.88192126434835504956f, -0.83146961230254545772f,
  -0.77301045336273710440f, -0.70710678118654757274f,
  -0.63439328416364548779f, -0.55557023301960217765f,
  -0.47139673682599786408f, -0.38268343236508989280f,
  -0.29028467725446238656f, -0.19509032201612860891f,
  -0.09801714032956082567f, 0.0f, 0.09801714032956058975f,
  0.19509032201612835911f, 0.29028467725446210901f, 0.38268343236508967076f,
  0.47139673682599764204f, 0.55557023301960195560f, 0.63439328416364526575f,
  0.70710678118654746172f, 0.77301045336273666031f, 0.83146961230254523567f,
  0.88192126434835493853f, 0.92387953251128651644f, 0.95694033573220882438f,
  0.98078528040323031956f, 0.99518472667219692873f, 1.00000000000000000000f,
  0.99518472667219692873f, 0.98078528040323043058f, 0.95694033573220893540f,
  0.92387953251128662746f, 0.88192126434835504956f, 0.83146961230254545772f,
  0.77301045336273688235f, 0.70710678118654768376f, 0.63439328416364593188f,
  0.55557023301960217765f, 0.47139673682599791960f, 0.38268343236509039240f,
  0.29028467725446249759f, 0.19509032201612871993f, 0.09801714032956050648f
};
DFT_COMPOSITE (64, 8, 8)
#endif

#define DFT_R_(x) dft##x
#define DFT_R(x) DFT_R_(x)

#ifndef MODE
#define MODE 0
#endif
#ifndef IN_KIND
#define IN_KIND 0
#endif

typedef uint8 clf_addr;

/* offset of transform b beyond level 0 (levels 1 and 2) */
INL uint
outer_offset (clf_addr a, uint ob)
{
  return (ob % a.s6) * a.s3 + (ob / a.s6) * a.s4;
}

INL uint
batch_offset (clf_addr a, uint b)
{
  uint q = b / a.s5;
  return (b - q * a.s5) * a.s2 + outer_offset (a, q);
}

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

/* One stage of radix R for a batch of transforms of length N.
 * params: s0 N, s1 NS (product of the earlier radices), s2 outputs kept
 * (LIMIT), s3 offset of this stage's twiddles in tw (complex values:
 * w_{NS*R}^{r*k} at (r-1)*NS + k), s4 extent of the index folded with the
 * batch into the second global id (see MODE). */
__kernel void
fft_cpu_pass (__global const float *src, __global float *dst, clf_addr in,
    clf_addr out, uint8 params, __global const float *tw, float scale,
    float sign_in, float sign_out)
{
  const uint N = params.s0, NS = params.s1, E1 = params.s4;
  const uint M = N / R;
  uint k, q, in_base, out_base;

  {
    uint g1 = get_global_id (1);
    uint b = g1 / E1, x1 = g1 - b * E1;
#if MODE == 0
    k = get_global_id (0);
    q = x1;
#elif MODE == 1
    q = get_global_id (0);
    k = x1;
#endif
#if MODE != 2
    in_base = in.s0 + batch_offset (in, b);
    out_base = out.s0 + batch_offset (out, b);
#else
    {
      uint c = get_global_id (0);
      q = x1 / NS;
      k = x1 - q * NS;
      in_base = in.s0 + c * in.s2 + outer_offset (in, b);
      out_base = out.s0 + c * out.s2 + outer_offset (out, b);
    }
#endif
  }

#ifdef FIRST
  k = 0;
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

  cf v[R];
  {
    /* addresses by pointer steps: index arithmetic per r would be turned
     * into short vectors before the work-item loops exist, which stops
     * the vectorisation across work-items */
    uint j = q * NS + k;
#if IN_KIND == 1
    __global const float *p = src + in_base + j * is;
    const size_t step = (size_t) M * is;
    _Pragma ("unroll")
    for (int r = 0; r < R; r++, p += step)
      v[r] = mk (p[0], 0.0f);
#elif IN_KIND == 2
    _Pragma ("unroll")
    for (int r = 0; r < R; r++) {
      /* half spectrum of a real signal: X[N-e] = conj(X[e]) */
      uint e = j + r * M;
      uint h = e <= N / 2 ? e : N - e;
      float s = e <= N / 2 ? sign_in : -sign_in;
      cf x = ldc ((__global const float *) ((__global const float2 *) src +
              in_base + (size_t) h * is));
      v[r] = mk (x.r, s * x.i);
    }
#else
    __global const float2 *p = (__global const float2 *) src + in_base +
        (size_t) j * is;
    const size_t step = (size_t) M * is;
    _Pragma ("unroll")
    for (int r = 0; r < R; r++, p += step) {
      cf x = ldc ((__global const float *) p);
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
    uint o = q * NS * R + k;
    const size_t step = (size_t) NS * os;
#ifdef OUT_REAL
    __global float *p = dst + out_base + (size_t) o * os;
#else
    __global float2 *p = (__global float2 *) dst + out_base + (size_t) o * os;
#endif
    _Pragma ("unroll")
    for (int r = 0; r < R; r++, p += step) {
#ifdef LIMIT
      if (o + r * NS < params.s2)
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
}

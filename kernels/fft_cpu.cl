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
 *             of the transposed order, k fastest
 *   FIRST     first stage (NS = 1): no twiddles
 *   IN_KIND   0 complex, 1 real, 2 Hermitian half spectrum
 *   OUT_REAL  store the real part only
 *   LIMIT     store only outputs below params.s2 (R2C)
 *   IN_UNIT, OUT_UNIT   element stride 1 (rows)
 *
 * Addressing as in fft.cl: transform b, element e at
 *   s0 + e*s1 + (b % s5)*s2 + ((b / s5) % s6)*s3 + (b / (s5*s6))*s4
 * In column mode b = c + s5 * ob (ob: outer transform, from the second
 * global id): c*s2 + outer(ob).
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

DFT_ODD (3, cpu_cos3, cpu_sin3)
DFT_ODD (5, cpu_cos5, cpu_sin5)
DFT_ODD (7, cpu_cos7, cpu_sin7)
DFT_ODD (11, cpu_cos11, cpu_sin11)
DFT_ODD (13, cpu_cos13, cpu_sin13)


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

/* DFT of 9 inside 18 and 27 */
#if R == 18 || R == 27
__constant float cpu_w9r[9] = {
  1.00000000000000000000f, 0.76604444311897801345f, 0.17364817766693041445f,
  -0.49999999999999977796f, -0.93969262078590831688f,
  -0.93969262078590842791f, -0.50000000000000044409f,
  0.17364817766692997036f, 0.76604444311897779141f
};
__constant float cpu_w9i[9] = {
  0.0f, -0.64278760968653925190f, -0.98480775301220802032f,
  -0.86602540378443870761f, -0.34202014332566887944f,
  0.34202014332566865740f, 0.86602540378443837454f, 0.98480775301220813134f,
  0.64278760968653958496f
};
DFT_COMPOSITE (9, 3, 3)
#endif
/* the composite radices the planner may pick (clf-plan-cpu.c) */
#if R == 6
__constant float cpu_w6r[6] = {
  1.00000000000000000000f, 0.50000000000000011102f, -0.49999999999999977796f,
  -1.00000000000000000000f, -0.50000000000000044409f, 0.50000000000000011102f
};
__constant float cpu_w6i[6] = {
  0.0f, -0.86602540378443859659f, -0.86602540378443870761f, 0.0f,
  0.86602540378443837454f, 0.86602540378443859659f
};
DFT_COMPOSITE (6, 2, 3)
#elif R == 9
__constant float cpu_w9r[9] = {
  1.00000000000000000000f, 0.76604444311897801345f, 0.17364817766693041445f,
  -0.49999999999999977796f, -0.93969262078590831688f,
  -0.93969262078590842791f, -0.50000000000000044409f,
  0.17364817766692997036f, 0.76604444311897779141f
};
__constant float cpu_w9i[9] = {
  0.0f, -0.64278760968653925190f, -0.98480775301220802032f,
  -0.86602540378443870761f, -0.34202014332566887944f,
  0.34202014332566865740f, 0.86602540378443837454f, 0.98480775301220813134f,
  0.64278760968653958496f
};
DFT_COMPOSITE (9, 3, 3)
#elif R == 10
__constant float cpu_w10r[10] = {
  1.00000000000000000000f, 0.80901699437494745126f, 0.30901699437494745126f,
  -0.30901699437494734024f, -0.80901699437494734024f,
  -1.00000000000000000000f, -0.80901699437494756229f,
  -0.30901699437494756229f, 0.30901699437494722922f, 0.80901699437494734024f
};
__constant float cpu_w10i[10] = {
  0.0f, -0.58778525229247313710f, -0.95105651629515353118f,
  -0.95105651629515364220f, -0.58778525229247324813f, 0.0f,
  0.58778525229247302608f, 0.95105651629515353118f, 0.95105651629515364220f,
  0.58778525229247335915f
};
DFT_COMPOSITE (10, 2, 5)
#elif R == 12
__constant float cpu_w12r[12] = {
  1.00000000000000000000f, 0.86602540378443870761f, 0.50000000000000011102f,
  0.0f, -0.49999999999999977796f, -0.86602540378443870761f,
  -1.00000000000000000000f, -0.86602540378443881863f,
  -0.50000000000000044409f, 0.0f, 0.50000000000000011102f,
  0.86602540378443837454f
};
__constant float cpu_w12i[12] = {
  0.0f, -0.49999999999999994449f, -0.86602540378443859659f,
  -1.00000000000000000000f, -0.86602540378443870761f,
  -0.49999999999999994449f, 0.0f, 0.49999999999999972244f,
  0.86602540378443837454f, 1.00000000000000000000f, 0.86602540378443859659f,
  0.50000000000000044409f
};
DFT_COMPOSITE (12, 4, 3)
#elif R == 14
__constant float cpu_w14r[14] = {
  1.00000000000000000000f, 0.90096886790241914600f, 0.62348980185873359439f,
  0.22252093395631444839f, -0.22252093395631433737f,
  -0.62348980185873348336f, -0.90096886790241903498f,
  -1.00000000000000000000f, -0.90096886790241914600f,
  -0.62348980185873370541f, -0.22252093395631458717f,
  0.22252093395631333816f, 0.62348980185873337234f, 0.90096886790241936804f
};
__constant float cpu_w14i[14] = {
  0.0f, -0.43388373911755812040f, -0.78183148246802980363f,
  -0.97492791218182361934f, -0.97492791218182361934f,
  -0.78183148246802991466f, -0.43388373911755823142f, 0.0f,
  0.43388373911755800938f, 0.78183148246802969261f, 0.97492791218182361934f,
  0.97492791218182384139f, 0.78183148246802991466f, 0.43388373911755750978f
};
DFT_COMPOSITE (14, 2, 7)
#elif R == 15
__constant float cpu_w15r[15] = {
  1.00000000000000000000f, 0.91354545764260086660f, 0.66913060635885823757f,
  0.30901699437494745126f, -0.10452846326765333207f,
  -0.49999999999999977796f, -0.80901699437494734024f,
  -0.97814760073380568883f, -0.97814760073380568883f,
  -0.80901699437494756229f, -0.50000000000000044409f,
  -0.10452846326765423413f, 0.30901699437494722922f, 0.66913060635885845961f,
  0.91354545764260097762f
};
__constant float cpu_w15i[15] = {
  0.0f, -0.40673664307580015276f, -0.74314482547739413310f,
  -0.95105651629515353118f, -0.99452189536827340088f,
  -0.86602540378443870761f, -0.58778525229247324813f,
  -0.20791169081775931482f, 0.20791169081775906502f, 0.58778525229247302608f,
  0.86602540378443837454f, 0.99452189536827328986f, 0.95105651629515364220f,
  0.74314482547739402207f, 0.40673664307580015276f
};
DFT_COMPOSITE (15, 3, 5)
#elif R == 18
__constant float cpu_w18r[18] = {
  1.00000000000000000000f, 0.93969262078590842791f, 0.76604444311897801345f,
  0.50000000000000011102f, 0.17364817766693041445f, -0.17364817766693030343f,
  -0.49999999999999977796f, -0.76604444311897790243f,
  -0.93969262078590831688f, -1.00000000000000000000f,
  -0.93969262078590842791f, -0.76604444311897834652f,
  -0.50000000000000044409f, -0.17364817766693033119f,
  0.17364817766692997036f, 0.49999999999999933387f, 0.76604444311897779141f,
  0.93969262078590842791f
};
__constant float cpu_w18i[18] = {
  0.0f, -0.34202014332566871291f, -0.64278760968653925190f,
  -0.86602540378443859659f, -0.98480775301220802032f,
  -0.98480775301220802032f, -0.86602540378443870761f,
  -0.64278760968653947394f, -0.34202014332566887944f, 0.0f,
  0.34202014332566865740f, 0.64278760968653891883f, 0.86602540378443837454f,
  0.98480775301220802032f, 0.98480775301220813134f, 0.86602540378443904068f,
  0.64278760968653958496f, 0.34202014332566860189f
};
DFT_COMPOSITE (18, 2, 9)
#elif R == 20
__constant float cpu_w20r[20] = {
  1.00000000000000000000f, 0.95105651629515353118f, 0.80901699437494745126f,
  0.58778525229247313710f, 0.30901699437494745126f, 0.0f,
  -0.30901699437494734024f, -0.58778525229247302608f,
  -0.80901699437494734024f, -0.95105651629515353118f,
  -1.00000000000000000000f, -0.95105651629515375323f,
  -0.80901699437494756229f, -0.58778525229247324813f,
  -0.30901699437494756229f, 0.0f, 0.30901699437494722922f,
  0.58778525229247291506f, 0.80901699437494734024f, 0.95105651629515353118f
};
__constant float cpu_w20i[20] = {
  0.0f, -0.30901699437494739575f, -0.58778525229247313710f,
  -0.80901699437494745126f, -0.95105651629515353118f,
  -1.00000000000000000000f, -0.95105651629515364220f,
  -0.80901699437494745126f, -0.58778525229247324813f,
  -0.30901699437494750677f, 0.0f, 0.30901699437494689615f,
  0.58778525229247302608f, 0.80901699437494734024f, 0.95105651629515353118f,
  1.00000000000000000000f, 0.95105651629515364220f, 0.80901699437494756229f,
  0.58778525229247335915f, 0.30901699437494761780f
};
DFT_COMPOSITE (20, 4, 5)
#elif R == 21
__constant float cpu_w21r[21] = {
  1.00000000000000000000f, 0.95557280578614067768f, 0.82623877431599490606f,
  0.62348980185873359439f, 0.36534102436639498412f, 0.07473009358642439259f,
  -0.22252093395631433737f, -0.49999999999999977796f,
  -0.73305187182982634031f, -0.90096886790241903498f,
  -0.98883082622512852300f, -0.98883082622512863402f,
  -0.90096886790241914600f, -0.73305187182982622929f,
  -0.50000000000000044409f, -0.22252093395631458717f,
  0.07473009358642436484f, 0.36534102436639537270f, 0.62348980185873337234f,
  0.82623877431599446197f, 0.95557280578614056665f
};
__constant float cpu_w21i[21] = {
  0.0f, -0.29475517441090420823f, -0.56332005806362206446f,
  -0.78183148246802980363f, -0.93087374864420424636f,
  -0.99720379718118012935f, -0.97492791218182361934f,
  -0.86602540378443870761f, -0.68017273777091935560f,
  -0.43388373911755823142f, -0.14904226617617472028f,
  0.14904226617617402639f, 0.43388373911755800938f, 0.68017273777091946663f,
  0.86602540378443837454f, 0.97492791218182361934f, 0.99720379718118012935f,
  0.93087374864420413534f, 0.78183148246802991466f, 0.56332005806362273059f,
  0.29475517441090470783f
};
DFT_COMPOSITE (21, 3, 7)
#elif R == 24
__constant float cpu_w24r[24] = {
  1.00000000000000000000f, 0.96592582628906831221f, 0.86602540378443870761f,
  0.70710678118654757274f, 0.50000000000000011102f, 0.25881904510252073948f,
  0.0f, -0.25881904510252062845f, -0.49999999999999977796f,
  -0.70710678118654746172f, -0.86602540378443870761f,
  -0.96592582628906820119f, -1.00000000000000000000f,
  -0.96592582628906831221f, -0.86602540378443881863f,
  -0.70710678118654790580f, -0.50000000000000044409f,
  -0.25881904510252062845f, 0.0f, 0.25881904510252029539f,
  0.50000000000000011102f, 0.70710678118654735069f, 0.86602540378443837454f,
  0.96592582628906809017f
};
__constant float cpu_w24i[24] = {
  0.0f, -0.25881904510252073948f, -0.49999999999999994449f,
  -0.70710678118654746172f, -0.86602540378443859659f,
  -0.96592582628906831221f, -1.00000000000000000000f,
  -0.96592582628906831221f, -0.86602540378443870761f,
  -0.70710678118654757274f, -0.49999999999999994449f,
  -0.25881904510252101703f, 0.0f, 0.25881904510252079499f,
  0.49999999999999972244f, 0.70710678118654712865f, 0.86602540378443837454f,
  0.96592582628906831221f, 1.00000000000000000000f, 0.96592582628906842324f,
  0.86602540378443859659f, 0.70710678118654768376f, 0.50000000000000044409f,
  0.25881904510252157214f
};
DFT_COMPOSITE (24, 8, 3)
#elif R == 25
__constant float cpu_w25r[25] = {
  1.00000000000000000000f, 0.96858316112863107605f, 0.87630668004386358394f,
  0.72896862742141155245f, 0.53582679497899654564f, 0.30901699437494745126f,
  0.06279051952931352654f, -0.18738131458572460097f,
  -0.42577929156507271502f, -0.63742398974868974548f,
  -0.80901699437494734024f, -0.92977648588825134723f,
  -0.99211470131447776488f, -0.99211470131447787590f,
  -0.92977648588825145826f, -0.80901699437494778433f,
  -0.63742398974868952344f, -0.42577929156507215991f,
  -0.18738131458572462873f, 0.06279051952931283265f, 0.30901699437494722922f,
  0.53582679497899676768f, 0.72896862742141121938f, 0.87630668004386313985f,
  0.96858316112863096503f
};
__constant float cpu_w25i[25] = {
  0.0f, -0.24868988716485479484f, -0.48175367410171532345f,
  -0.68454710592868861507f, -0.84432792550201507531f,
  -0.95105651629515353118f, -0.99802672842827155897f,
  -0.98228725072868872115f, -0.90482705246601946580f,
  -0.77051324277578925326f, -0.58778525229247324813f,
  -0.36812455268467814129f, -0.12533323356430453588f,
  0.12533323356430428608f, 0.36812455268467791925f, 0.58778525229247269301f,
  0.77051324277578936428f, 0.90482705246601979887f, 0.98228725072868872115f,
  0.99802672842827155897f, 0.95105651629515364220f, 0.84432792550201496429f,
  0.68454710592868894814f, 0.48175367410171610061f, 0.24868988716485534995f
};
DFT_COMPOSITE (25, 5, 5)
#elif R == 27
__constant float cpu_w27r[27] = {
  1.00000000000000000000f, 0.97304487057982380627f, 0.89363264032341227505f,
  0.76604444311897801345f, 0.59715859170278617896f, 0.39607976603915689973f,
  0.17364817766693041445f, -0.05814482891047577373f,
  -0.28680323271109020578f, -0.49999999999999977796f,
  -0.68624163786873348947f, -0.83548781141293626540f,
  -0.93969262078590831688f, -0.99323835774194302317f,
  -0.99323835774194302317f, -0.93969262078590853893f,
  -0.83548781141293648744f, -0.68624163786873360049f,
  -0.50000000000000044409f, -0.28680323271109064986f,
  -0.05814482891047623864f, 0.17364817766693083079f, 0.39607976603915651115f,
  0.59715859170278584589f, 0.76604444311897779141f, 0.89363264032341216403f,
  0.97304487057982402831f
};
__constant float cpu_w27i[27] = {
  0.0f, -0.23061587074244016549f, -0.44879918020046216665f,
  -0.64278760968653925190f, -0.80212319275504373461f,
  -0.91821610688027399672f, -0.98480775301220802032f,
  -0.99830815827126817563f, -0.95798951231548890028f,
  -0.86602540378443870761f, -0.72737364157304884582f,
  -0.54950897807080623103f, -0.34202014332566887944f,
  -0.11609291412522992903f, 0.11609291412523012332f, 0.34202014332566821331f,
  0.54950897807080600899f, 0.72737364157304862378f, 0.86602540378443837454f,
  0.95798951231548878926f, 0.99830815827126817563f, 0.98480775301220802032f,
  0.91821610688027410774f, 0.80212319275504395666f, 0.64278760968653958496f,
  0.44879918020046244420f, 0.23061587074243958262f
};
DFT_COMPOSITE (27, 3, 9)
#elif R == 28
__constant float cpu_w28r[28] = {
  1.00000000000000000000f, 0.97492791218182361934f, 0.90096886790241914600f,
  0.78183148246802980363f, 0.62348980185873359439f, 0.43388373911755817591f,
  0.22252093395631444839f, 0.0f, -0.22252093395631433737f,
  -0.43388373911755806489f, -0.62348980185873348336f,
  -0.78183148246802947057f, -0.90096886790241903498f,
  -0.97492791218182373036f, -1.00000000000000000000f,
  -0.97492791218182373036f, -0.90096886790241914600f,
  -0.78183148246802958159f, -0.62348980185873370541f,
  -0.43388373911755828694f, -0.22252093395631458717f, 0.0f,
  0.22252093395631333816f, 0.43388373911755795387f, 0.62348980185873337234f,
  0.78183148246802969261f, 0.90096886790241936804f, 0.97492791218182350832f
};
__constant float cpu_w28i[28] = {
  0.0f, -0.22252093395631439288f, -0.43388373911755812040f,
  -0.62348980185873348336f, -0.78183148246802980363f,
  -0.90096886790241914600f, -0.97492791218182361934f,
  -1.00000000000000000000f, -0.97492791218182361934f,
  -0.90096886790241914600f, -0.78183148246802991466f,
  -0.62348980185873392745f, -0.43388373911755823142f,
  -0.22252093395631408757f, 0.0f, 0.22252093395631383776f,
  0.43388373911755800938f, 0.62348980185873381643f, 0.78183148246802969261f,
  0.90096886790241903498f, 0.97492791218182361934f, 1.00000000000000000000f,
  0.97492791218182384139f, 0.90096886790241925702f, 0.78183148246802991466f,
  0.62348980185873370541f, 0.43388373911755750978f, 0.22252093395631464268f
};
DFT_COMPOSITE (28, 4, 7)
#elif R == 32
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
 * batch into the second global id (see MODE), s5 and s6: chunks (below). */
__kernel void
fft_cpu_pass (__global const float *restrict src, __global float *restrict dst,
    clf_addr in,
    clf_addr out, uint8 params, __global const float *restrict tw, float scale,
    float sign_in, float sign_out)
{
  const uint N = params.s0, NS = params.s1, E1 = params.s4;
  const uint M = N / R, Q = M / NS;
  uint k, q, in_base, out_base;
  /* element indices of input 0 and output 0 of this butterfly and the
   * steps to the next ones */
  uint in_off, in_step, out_off, out_step;

  {
    /* A launch covers one chunk of the transforms (a global offset): the
     * user's buffers are addressed by the transform's index, scratch
     * buffers that hold one chunk (params.s5 bit 0: input, bit 1: output)
     * by its index within the chunk; in column mode the chunk is a range
     * of columns, which may be launched in two parts (params.s6: where
     * this launch starts within the chunk). */
    uint g1 = get_global_id (1);
    uint b = g1 / E1, x1 = g1 - b * E1;
    uint bl = b - (uint) get_global_offset (1) / E1;
    uint ib = (params.s5 & 1) ? bl : b, ob = (params.s5 & 2) ? bl : b;
#if MODE == 0 || MODE == 4
    k = get_global_id (0);
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
      uint c = get_global_id (0);
      uint cl = c - (uint) get_global_offset (0) + params.s6;
      q = x1 / NS;
      k = x1 - q * NS;
      in_base = in.s0 + ((params.s5 & 1) ? cl : c) * in.s2 +
          outer_offset (in, ib);
      out_base = out.s0 + ((params.s5 & 2) ? cl : c) * out.s2 +
          outer_offset (out, ob);
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
#else
  /* last stage from the transposed order (Q = 1): x[k*R + r] */
  in_off = k * R;
  in_step = 1;
  out_off = k;
  out_step = NS;
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
#if IN_KIND == 1
    __global const float *p = src + in_base + (size_t) in_off * is;
    const size_t step = (size_t) in_step * is;
    _Pragma ("unroll")
    for (int r = 0; r < R; r++, p += step)
      v[r] = mk (p[0], 0.0f);
#elif IN_KIND == 2
    _Pragma ("unroll")
    for (int r = 0; r < R; r++) {
      /* half spectrum of a real signal: X[N-e] = conj(X[e]) (first stage:
       * e is the natural index in every mode) */
      uint e = in_off + r * in_step;
      uint h = e <= N / 2 ? e : N - e;
      float s = e <= N / 2 ? sign_in : -sign_in;
      cf x = ldc ((__global const float *) ((__global const float2 *) src +
              in_base + (size_t) h * is));
      v[r] = mk (x.r, s * x.i);
    }
#else
    __global const float2 *p = (__global const float2 *) src + in_base +
        (size_t) in_off * is;
    const size_t step = (size_t) in_step * is;
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
    const size_t step = (size_t) out_step * os;
#ifdef OUT_REAL
    __global float *p = dst + out_base + (size_t) out_off * os;
#else
    __global float2 *p = (__global float2 *) dst + out_base +
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
}

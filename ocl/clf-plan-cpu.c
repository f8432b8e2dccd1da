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
 * arguments, so one program serves every length with the same radix.
 *
 * Large batches run in chunks of about CHUNK_BYTES: all stages of one
 * chunk, then the next, with the intermediate results in two
 * chunk-sized scratch buffers that stay in the caches; main memory then
 * sees one read and one write per axis instead of one per stage. */
#include "clf-plan-cpu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ONE_LEVEL 0xffffffffu
#define MAX_CPU_STAGES 32

/* work-items per work-group: the vectorised loop runs over dimension 0 */
#define WG_TARGET 64
/* lanes of PoCL's vector code (8 floats in 256-bit registers): a
 * dimension-0 extent that is not a multiple runs its rest scalar */
#define LANES 8
/* butterflies of one work-item in the last stage of the transposed
 * order, or transforms of one work-item in whole rows (GROUP in
 * kernels/fft_cpu.cl, MODE 4 and 5) */
#define LAST_STAGE_GROUP 8
/* the most work-items of a stage's scalar rest that run in its main launch
 * (add_stage_launches) */
#define SMALL_REST 1024
/* Axes with more data than CHUNK_BYTES run in chunks of about that size
 * per buffer (CLFFT_CPU_CHUNK sets the chunk size of every axis, 0:
 * none). Row chunks are whole rows next to each other: on a 2-core EPYC
 * with 1 MiB of L2 per core, 4096 x 2160 took 20.4-20.8 ms in 2 MiB
 * chunks against 33.4-34.8 ms in 8 MiB ones, 1000 x 1024 2.6-2.8 ms
 * against 4.5-4.8 ms whole. On the nineteenth session's 2-core EPYC
 * (1 MiB of L2 per core too, 32 MiB of L3), 4 MiB chunks beat 2 MiB in
 * each of five rounds: 1000 x 1024 952-1003 us against 1042-1134, 4096 x
 * 256 955-1070 against 1042-1130, 4096 x 2160 10.8-11.0 ms against
 * 11.2-11.4; 3 MiB fell between, 4096 x 256 whole (8 MiB) ran 1.1-2.4
 * ms. Column chunks are ranges of columns (480 columns of 1080 points:
 * 3840 bytes of every row). Since column loads are vectors, 4 MiB chunks
 * ran 1920x1080 in 3.7-4.2 ms against 4.6-5.2 whole, 3840x2160 in
 * 14.0-15.1 against 15.1-17.8 in 8 MiB chunks (1024x1024 the same either
 * way). */
#define CHUNK_BYTES (4u << 20)
#define MAX_CHUNKS 256
/* Where the device reports a last-level cache of more than 14 chunks, an
 * axis of up to a fourteenth of it runs whole: the chunks' launches and
 * scratch copies cost more than the caches save. On a 2-core Xeon whose
 * PoCL reports 480 MiB (pinned threads, us): 729 x1438 1622 whole
 * against 1775 chunked, 2187 x479 1942 against 2218, 1000 x1024 1242
 * against 1336, 1000 x2048 2354-2390 against 2718-2766, 1920x1080
 * 4713-4907 against 5418-5583, 1536x1536 (18 MiB) 4672-4777 against
 * 6095-6222, 2048x2048 (32 MiB) 9308-10059 against 10085-10641; from 40
 * MiB chunks won: 2560x2048 13351-13561 against 14156-14355, 4096 x1536
 * 8015-8587 against 12510-12738, 3840x2160 27064-27891 against
 * 31821-33657. The EPYCs of 32 MiB (1 MiB of L2 a core) took chunks
 * from 8 MiB. */
#define WHOLE_CACHE_SHARE 14
/* Column chunks (ranges of columns) of up to a 32nd of such a cache: on
 * the same Xeon 16 MiB chunks took 4096x4096 to 62.1-63.2 ms from
 * 78.0-79.8, 4096x2160 to 28.4-30.1 from 32.9-33.2, 3840x2160 to
 * 27.8-29.1 from 30.4-32.6; rows kept 4 MiB (4096 x2048 14.1-15.2 ms in
 * 16 MiB against 12.4-13.4). */
#define COLUMN_CACHE_SHARE 32

int
clf_plan_cpu_enabled (ClfContext * ctx)
{
  const char *env = getenv ("CLFFT_CPU_PATH");
  if (env && env[0])
    return env[0] != '0';
  return clf_context_is_cpu (ctx);
}

/* The radices of kernels/fft_cpu.cl: primes up to 31, powers of two and
 * products done in registers (composites up to 64 points: fewer passes
 * over memory; 4096 = 64x64 runs 20% faster than 16x16x16). */
static const unsigned cpu_radix_set[] = { 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
  12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 27, 28, 29, 30,
  31, 32, 33, 35, 36, 40, 42, 45, 48, 49, 50, 54, 56, 60, 62, 63, 64
};

#define NRADICES (sizeof (cpu_radix_set) / sizeof (cpu_radix_set[0]))

/* Composites of kernels/fft_cpu.cl that only whole rows take: with them
 * every length up to 64 of prime factors up to 31 runs as one stage */
static const unsigned whole_only_set[] = { 26, 34, 38, 39, 44, 46, 51, 52,
  55, 57, 58
};

#define NWHOLE_ONLY (sizeof (whole_only_set) / sizeof (whole_only_set[0]))

/* Lengths past 64 points that run whole rows too, as products of two
 * radices of up to 16 in registers (125 = 5x25): on a 2-core Xeon (PoCL
 * 3.1, 2^20 points, three rounds) the 27 of 65 to 128 points 1.41-2.84x
 * faster than their two stages, 2.07x in the geometric mean (81 9x9
 * 1.73-1.82 ms -> 0.67-0.72, 100 10x10 1.68-1.81 -> 0.61-0.65, 128 8x16
 * 0.88-0.92 -> 0.62-0.64); past 128 points, where a program takes 8-13
 * s to build there, 135, 144, 160 and 225 1.42-1.87x (225 9x25
 * 1.70-1.95 -> 1.03-1.10), while 192 gained 7% and 256 lost (0.93 ->
 * 1.01 ms, 24 s to build). Other lengths past 128 not measured. */
static const unsigned whole_long_set[] = { 66, 70, 72, 75, 77, 78, 80, 81,
  84, 88, 90, 91, 96, 98, 99, 100, 104, 105, 108, 110, 112, 117, 120, 121,
  125, 126, 128, 135, 144, 160, 225
};

#define NWHOLE_LONG (sizeof (whole_long_set) / sizeof (whole_long_set[0]))

/* The whole-row composites of up to ROW_LONG_MAX points (whole_long_set)
 * that rows of up to STAGE_PASS_MAX points in the transposed order take
 * as a stage too where that saves one, but for
 * three stages that end in a multiple of LANES (cpu_radices). On a 2-core
 * Xeon (PoCL 3.1, 2^20 points, three alternating rounds) the 85 lengths
 * this changes ran 1.19x faster in the geometric mean, 81 in every round
 * (858 2x13x33 2.43 -> 13x66 1.58 ms, 2511 9x9x31 -> 31x81 1.41x, 3430
 * 7x10x49 1.72 -> 70x49 1.33, 2187 9x9x27 -> 27x81 1.18x, 3375 15x9x25
 * -> 45x75 1.13x), 847 (77x11) 0.91x, 975 1.01x; three stages ending in
 * 8, 16, 24 lost or gained little (1560 13x15x8 0.88x, 3960 11x15x24
 * 0.87x, 936 0.99x, 3744 1.00x). Composites past 81 points gained less
 * or lost (3430 as 35x98 1.61 ms, 3375 as 27x125 1.86, 3125 as 25x125
 * 1.88 against 5x25x25 1.78). Columns were not measured. */
#define ROW_LONG_MAX 81

static int
is_row_long (unsigned R)
{
  return R <= ROW_LONG_MAX && clf_holds_radix (whole_long_set, NWHOLE_LONG, R);
}

/* How the rows of an axis are laid out between stages */
enum
{
  ORDER_STOCKHAM = 0,           /* MODE 0/1: y[q*NS*R + r*NS + k] */
  ORDER_TRANSPOSED = 1,         /* MODE 3/4: y[(r*NS + k)*Q + q] */
  ORDER_COLUMNS = 2,            /* MODE 2 */
  ORDER_WHOLE = 3               /* MODE 5: one stage, a transform a lane */
};

/* Relative cost of one stage, in units of one pass over the data at full
 * vector speed: the part of dimension 0 that is not a multiple of LANES
 * runs scalar (about 4x slower), strided access costs more (Stockham
 * order with q fastest: the first stage scatters its outputs; transposed
 * order: the last stage transposes its inputs), radices above 16 more
 * arithmetic and registers (above 32: spills; columns of 2160 ran 7%
 * slower as 36x60 than as 9x15x16). Measured on PoCL 3.1, 2 cores.
 * Costing the last transposed stage as groups of LAST_STAGE_GROUP
 * butterflies (partial groups run whole) reordered most row lengths'
 * radices (1000: 40x25, whose first stage then runs a scalar rest) and
 * ran 1000 x1024 1.21-1.59x slower, 1920x1080 0.95-1.03x.
 * Radices above 16 cost more again where a stage is vectorised across
 * work-items (every stage but the transposed order's last, whose
 * butterflies sit in the lanes of one work-item): each work-item's 2R
 * values no longer fit the registers. With that, on the twenty-second
 * session's 2-core EPYC 1120 x3840 ran as 10x14x8 in 3.2-3.4 ms
 * against 5.3-5.4 as 32x35, 3072 x2160 as 12x16x16 in 5.4-5.6 against
 * 7.5, 4096 x256 as 16x16x16 in 0.67-0.80 against 0.75-0.82 as 64x64,
 * 1024 x4096 as 16x64 in 3.2-3.3 against 4.5-4.6 as 32x32, 1920x1080 in
 * 2.9 against 3.3-3.5; 2046 and 1000 kept their plans. When the
 * machine's memory was busy (everything 2x slower) 64x64 won instead. */
#define WIDE_RADIX_COST 0.5

/* Stages the transposed order never takes where another plan exists: a
 * last stage of LANES / 2 butterflies or fewer (they sit in the lanes of
 * one work-item, most of which idle) and a radix above 32 across as few
 * work-items. Rows just past whole rows' 64 points took them where the
 * costs above favour a short first radix: on a 2-core Xeon (PoCL 3.1,
 * 2^20 points, three rounds) 84 ran 2.7-3.0 ms as 2x42 and 1.5-1.6 as
 * 7x12, 124 5.3-6.0 as 2x62 and 1.5 as 31x4, 92 2.2 as 4x23 and 1.4 as
 * 23x4, 186 4.5 as 3x62 and 2.3 as 6x31; with five to seven butterflies
 * the last stage ran as fast or faster than the other order (7x17 1.6
 * against 2.1 as 17x7). */
#define FEW_LANES_COST 1e6

/* A radix above 32 in a stage that runs two or fewer butterflies along
 * dimension 0 (but the transposed order's last stage, whose butterflies
 * sit in the lanes of one work-item): such a stage runs scalar and its
 * 2R values spill. On a 2-core Xeon (PoCL 3.1, 2^20 points, three
 * rounds) every such form ran 1.4-2.4x slower than the plan, 2x45 2.7
 * against 1.8 ms, 2x64 2.0 against 0.84, while with four butterflies
 * (4x33, 4x36, 4x49) they ran about as fast as the plans; 98 took 2x49
 * at 2.9 ms, 7x14 in the transposed order runs it in 1.7. */
#define SCALAR_WIDE_COST 1.0

/* The transposed order's last stage holds its butterflies in the lanes
 * of one work-item: past whole vectors the rest fills part of one more
 * vector rather than running scalar as the first stage's rest of
 * work-items does, so it costs half as much. On a 2-core Xeon (PoCL 3.1,
 * 2^20 points, three rounds) the 164 lengths up to 4096 that it changes
 * ran 1.12x faster in the geometric mean, 108 by 5% or more (120 8x15
 * 1.43 -> 15x8 0.99 ms, 1350 15x10x9 2.06 -> 27x50 1.38), 15 slower by
 * 5% or more (576 24x24 0.92 -> 9x64 1.41, 594, 504, 756 0.79-0.87x). */
#define LAST_STAGE_REST 0.5

/* ... but for a radix of 50 or more across 9 to 12 butterflies: their
 * second vector holds 1 to 4 of its 8 lanes, and the 2R values of a lane
 * spill, so it costs about as much as the first. On a 2-core Xeon (PoCL
 * 3.1, 2^20 points, three rounds) the 18 lengths this changes ran 1.16x
 * faster in the geometric mean, 16 by 3-55% (576 9x64 1.40 -> 24x24 0.91
 * ms, 567 9x63 -> 63x9 1.39x, 693 11x63 -> 21x33 1.35x), 620 (62x10)
 * 0.96x and 616 (7x11x8) 0.83x.
 * Across 9 or 10 butterflies (SPARSE_SECOND_VECTOR) any radix pays it:
 * a second vector of 1 or 2 lanes costs about a whole one. On a 2-core
 * EPYC (PoCL 3.1, 2^20 points, five alternating rounds) the 32 lengths
 * this changes ran 1.27x faster in the geometric mean, 31 faster (360
 * 9x40 -> 8x45 1.62x, 450 10x45 -> 18x25 1.61x, 207 9x23 -> 23x9 1.57x,
 * 189 9x21 -> 21x9 1.41x), 170 (17x10) level. For radices below 50
 * across 11 lanes the other forms won as often as they lost (220 11x20 ->
 * 22x10 0.85x, 440 11x40 -> 22x20 0.78x), across 12 mostly won (396
 * 12x33 -> 22x18 1.42x, 132 0.95x); with no cause found for the
 * difference, both keep the rule for radices of 50 or more. */
#define WIDE_LANES_REST 1.0
#define SPARSE_SECOND_VECTOR 10

/* Every stage of a row transform up to 4096 points costs a pass more:
 * a pass over the chunk (loads, stores, the launch) weighs more against
 * the butterflies than the costs above allow, and two stages of wide
 * radices beat three of short ones, so such rows take the fewest stages
 * and the costs above choose among those. On a 2-core Xeon (PoCL 3.1,
 * 2^20 points, three rounds) the 97 lengths it changes ran 1.23x faster
 * in the geometric mean, 94 by 1-60% (1260 14x10x9 1.99 -> 30x42 1.33
 * ms, 990 11x10x9 -> 30x33 1.60x, 729 9x9x9 -> 27x27 1.29x, 2025 9x9x25
 * -> 45x45 1.23x, 4096 16x16x16 1.31 -> 64x64 1.14), 3240 level, 2232
 * (36x62) 0.92x and 3720 (62x60) 0.88x. In alternating runs 2048x2048,
 * 4096x2160 and 3840x2160 took 5-18% less time, 1920x1080 (rows 60x32)
 * and 4096 x256 level or less, and the blur 8-10% less device time at
 * radii 4 and 1000 (4096 x256 had run level either way on the
 * twenty-second session's EPYC). Longer rows were not measured and keep
 * the costs above. */
#define STAGE_PASS_COST 1.0
#define STAGE_PASS_MAX 4096

/* A row stage of radix 62 (two 31-point DFTs, 124 values a work-item)
 * costs more again than the widths above say: where 31 and a radix
 * twice the other take as many stages, they run faster. On a 2-core Xeon
 * (PoCL 3.1, 2^20 points, three rounds) the 16 lengths this changes ran
 * 1.11x faster in the geometric mean (620 62x10 -> 31x20 1.60x, 1116
 * 18x62 -> 31x36 1.38x, 558 1.16x, 1550 1.18x), 1984 (31x64) 0.96x,
 * 1488 and 4092 0.98x. Past 0.8 three-stage forms take over (2232 and
 * 3720 faster, 3844 slower, 806, 1178 and 2046 0.75-0.88x as measured
 * with 62 out of the radices). Columns and rows past STAGE_PASS_MAX were
 * not measured and keep the costs above. */
#define RADIX_62_COST 0.7

static double
stage_cost (size_t n, size_t ns, unsigned R, int order)
{
  double c = 1.0 + (R > 32 ? 0.45 : R > 24 ? 0.2 : R > 16 ? 0.1 : 0.0);
  size_t q = n / (ns * R), e0;
  /* the transposed order's last stage: butterflies in one work-item's
   * lanes */
  int in_lanes = order == ORDER_TRANSPOSED && q == 1;
  double rest;

  if (in_lanes ? ns <= LANES / 2 : order == ORDER_TRANSPOSED && R > 32 &&
      q <= LANES / 2)
    return FEW_LANES_COST;
  if (R > 16 && !in_lanes)
    c += WIDE_RADIX_COST;

  if (order == ORDER_COLUMNS)
    return c + (R > 32 ? 0.15 : 0.0);
  if (R == 62 && n <= STAGE_PASS_MAX)
    c += RADIX_62_COST;
  if (in_lanes) {
    e0 = ns;
    c += 0.3;
  } else if (order == ORDER_TRANSPOSED) {
    e0 = q;
  } else if (ns == 1) {
    e0 = q;
    c += 0.5;
  } else if (ns >= LANES || ns >= q) {
    e0 = ns;
  } else {
    e0 = q;
    c += 0.5;
  }
  if (e0 <= 2 && R > 32 && !in_lanes)
    c += SCALAR_WIDE_COST;
  if (n <= STAGE_PASS_MAX)
    c += STAGE_PASS_COST;
  if (in_lanes && e0 > LANES && (e0 <= SPARSE_SECOND_VECTOR ||
          (R >= 50 && e0 <= 12)))
    c += WIDE_LANES_REST;
  if (e0 < LANES)
    return c + 3.0;
  rest = 3.0 * (double) (e0 % LANES) / (double) e0;
  return c + (in_lanes ? LAST_STAGE_REST * rest : rest);
}

typedef struct
{
  double cost;
  unsigned next;                /* radix of the stage that follows, 0: end */
  int stages;
} Choice;

/* One search for the cheapest radices of n in one order */
typedef struct
{
  size_t n;
  int order;
  int long_stages;              /* also whole_long_set's up to
                                 * ROW_LONG_MAX */
  size_t *keys;                 /* memo of best_from, by ns */
  Choice *memo;
  int nmemo;
} RadixSearch;

/* Cheapest radix sequence for the rest n/ns of the transform (memoised
 * on ns, a divisor of n). */
static Choice
best_from (RadixSearch * s, size_t ns, int depth)
{
  size_t n = s->n, rest = n / ns;
  Choice best = { 1e30, 0, 0 };
  /* CLFFT_CPU_MAX_RADIX limits the radices (for comparing plans) */
  const char *env = getenv ("CLFFT_CPU_MAX_RADIX");
  unsigned max_radix = env && env[0] ? (unsigned) atoi (env) : ~0u;
  unsigned tried = NRADICES + (s->long_stages ? NWHOLE_LONG : 0);

  if (rest == 1) {
    Choice end = { 0.0, 0, 0 };
    return end;
  }
  for (int i = 0; i < s->nmemo; i++)
    if (s->keys[i] == ns)
      return s->memo[i];
  if (depth < MAX_CPU_STAGES)
    for (unsigned i = 0; i < tried; i++) {
      unsigned R = i < NRADICES ? cpu_radix_set[i] :
          whole_long_set[i - NRADICES];
      Choice sub;
      double c;
      if (rest % R != 0)
        continue;
      if (R > max_radix || (i >= NRADICES && R > ROW_LONG_MAX))
        continue;
      /* at least two stages: one would work in place */
      if (ns == 1 && R == n)
        continue;
      sub = best_from (s, ns * R, depth + 1);
      if (sub.cost >= 1e29)
        continue;
      c = stage_cost (n, ns, R, s->order) + sub.cost;
      if (c < best.cost - 1e-9) {
        best.cost = c;
        best.next = R;
        best.stages = sub.stages + 1;
      }
    }
  if (s->nmemo < 4096) {
    s->keys[s->nmemo] = ns;
    s->memo[s->nmemo++] = best;
  }
  return best;
}

/* The cheapest of s's radices for s->n, in stage order: their count (and
 * the estimated cost), -1 if there are none. */
static int
search_radices (RadixSearch * s, unsigned *radices, double *cost)
{
  size_t ns = 1;
  int count = 0;

  s->nmemo = 0;
  *cost = 1e30;
  for (;;) {
    Choice c = best_from (s, ns, count);
    if (c.cost >= 1e29)
      return -1;
    if (ns == 1)
      *cost = c.cost;
    if (!c.next)
      return count;
    radices[count++] = c.next;
    ns *= c.next;
  }
}

/* CLFFT_CPU_RADICES=AxBx... (for comparing plans): those stages, in that
 * order, where they are radices of cpu_radix_set or row stages of
 * whole_long_set (is_row_long) that multiply to n, at least two. Their
 * count, or 0. */
static int
cpu_radices_from_env (size_t n, unsigned *radices)
{
  int k = clf_radices_from_env ("CLFFT_CPU_RADICES", n, radices,
      MAX_CPU_STAGES);

  for (int i = 0; i < k; i++)
    if (!clf_holds_radix (cpu_radix_set, NRADICES, radices[i]) &&
        !is_row_long (radices[i]))
      return 0;
  return k < 2 ? 0 : k;
}

/* Radices of the CPU kernels for n in the given order, in stage order.
 * Returns the number of stages (and the estimated cost), -1 if n has
 * another prime factor or is a single radix. Rows in the transposed
 * order take a composite of whole_long_set up to ROW_LONG_MAX where it
 * saves a stage, unless the
 * stages without it end in a multiple of LANES. */
static int
cpu_radices (size_t n, int order, unsigned *radices, double *cost)
{
  RadixSearch s = { n, order, 0, NULL, NULL, 0 };
  unsigned longer[MAX_CPU_STAGES];
  double longer_cost;
  int count, longer_count;

  if ((count = cpu_radices_from_env (n, radices)) > 0) {
    *cost = 0.0;
    return count;
  }
  *cost = 1e30;
  if (n < 2)
    return -1;
  s.keys = malloc (4096 * sizeof (size_t));
  s.memo = malloc (4096 * sizeof (Choice));
  if (!s.keys || !s.memo) {
    free (s.keys);
    free (s.memo);
    return -1;
  }
  count = search_radices (&s, radices, cost);
  if (order == ORDER_TRANSPOSED && n <= STAGE_PASS_MAX && count > 2 &&
      radices[count - 1] % LANES != 0) {
    s.long_stages = 1;
    longer_count = search_radices (&s, longer, &longer_cost);
    if (longer_count > 0 && longer_count < count) {
      memcpy (radices, longer, longer_count * sizeof (unsigned));
      count = longer_count;
      *cost = longer_cost;
    }
  }
  free (s.keys);
  free (s.memo);
  return count;
}

/* Whether the rows of fx run whole, one stage of radix n (MODE 5): n one
 * of the radices or of whole_only_set up to 64 points, or of
 * whole_long_set, complex rows (a real axis as its
 * half, see real_half) without an input extent or multiplier, and no
 * stages set by CLFFT_CPU_RADICES. CLFFT_CPU_WHOLE=0 turns it off (for
 * comparing plans). Two stages of short radices fill few of a vector's
 * lanes and pass over memory twice: on a 2-core EPYC (PoCL 3.1), 2^20
 * points of 28 took 3.3 ms as 2x14, 1.1-1.2 as 4x7 or 7x4, 0.4-0.6 whole
 * (docs/benchmarks.md, "Thirty-seventh session"). */
static int
whole_rows_fit (const Axis * fx, size_t cols)
{
  const char *env = getenv ("CLFFT_CPU_WHOLE");
  unsigned radices[MAX_CPU_STAGES];

  if ((env && env[0] == '0') || cols)
    return 0;
  if (fx->flags & (IN_REAL | IN_HERMITIAN | OUT_REAL))
    return 0;
  if ((fx->in_extent && fx->in_extent < fx->n) || fx->multiplier)
    return 0;
  if (cpu_radices_from_env (fx->n, radices) > 0)
    return 0;
  if (fx->n > 64)
    return clf_holds_radix (whole_long_set, NWHOLE_LONG, (unsigned) fx->n);
  return clf_holds_radix (cpu_radix_set, NRADICES, (unsigned) fx->n) ||
      clf_holds_radix (whole_only_set, NWHOLE_ONLY, (unsigned) fx->n);
}

/* work-group size along dimension 0: a multiple of LANES when the extent
 * is one */
static size_t
local0_for (size_t e0)
{
  if (e0 % LANES == 0) {
    for (size_t d = WG_TARGET; d >= LANES; d -= LANES)
      if (e0 % d == 0)
        return d;
  }
  return clf_largest_divisor_upto (e0, WG_TARGET);
}

/* work-group size along dimension 1: a power of two, so that PoCL (which
 * compiles a kernel once per work-group size) sees few sizes */
static size_t
local1_for (size_t size1, size_t local0)
{
  size_t l = 1;
  while (2 * l * local0 <= WG_TARGET && size1 % (2 * l) == 0)
    l *= 2;
  return l;
}

static Addr
packed_rows (size_t n)
{
  Addr a = { 0, 1, (cl_uint) n, 0, 0, ONE_LEVEL, 1 };
  return a;
}

/* Row pitch of column scratch: one cache line more than the columns when
 * those are a multiple of 64, so that the R rows a butterfly reads do not
 * all fall into the same cache sets (1024 columns: 8 KB apart). */
static size_t
column_pitch (size_t cols)
{
  return cols % 64 == 0 ? cols + 8 : cols;
}

/* element e of column c of outer transform o at (o*n + e)*pitch + c */
static Addr
packed_columns (size_t n, size_t cols)
{
  size_t pitch = column_pitch (cols);
  Addr a = { 0, (cl_uint) pitch, 1, (cl_uint) (n * pitch), 0,
    (cl_uint) cols, ONE_LEVEL
  };
  return a;
}

/* Transforms adjacent in memory on both sides, at one stride: vectorise
 * across transforms. Returns the number of adjacent transforms, 0 if the
 * layout is not like that. */
static size_t
column_count (const Axis * ax)
{
  const Addr *i = &ax->in, *o = &ax->out;
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

/* pad: complex values of zeros after the tables */
static float *
stage_twiddles (const unsigned *radices, int ns, size_t pad, size_t *floats,
    cl_uint * offsets)
{
  size_t total = 0, ns_prod = radices[0], pos = 0;
  float *t;

  for (int s = 1; s < ns; s++) {
    total += (radices[s] - 1) * ns_prod;
    ns_prod *= radices[s];
  }
  t = calloc (2 * (total + pad + 1), sizeof (float));
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
  *floats = 2 * (total + pad);
  return t;
}

/* A first stage's inputs r = nz..R-1 lie past an input extent for every
 * butterfly (input r of butterfly q is element q + r*n/R): as constant
 * zeros the compiler drops their loads and, signed zeros aside, their
 * arithmetic. The 1080p blur at radius 1000 (the rows' first stage of
 * radix 48 of 3072 points takes 30 inputs, 1920 of them the frame) ran
 * 1-10% faster in the mean (up to 4% on the fastest frame) in four rounds of
 * frames alternating in one process on a 2-core EPYC (PoCL 3.1); its
 * first use from empty caches took no longer (18.7 against 20.0 s). */
static void
append_zero_inputs (char *defines, size_t size, size_t n, unsigned R,
    size_t extent)
{
  size_t nz = (extent * R + n - 1) / n, len = strlen (defines);

  if (nz < R)
    snprintf (defines + len, size - len, " -DIN_NZ=%zu -cl-no-signed-zeros",
        nz);
}

static size_t
chunk_bytes (ClfContext * ctx, size_t total, int columns)
{
  const char *env = getenv ("CLFFT_CPU_CHUNK");
  size_t cache = clf_context_cache_bytes (ctx);
  size_t whole = cache / WHOLE_CACHE_SHARE;
  size_t chunk = columns ? cache / COLUMN_CACHE_SHARE : 0;

  if (env && env[0])
    return (size_t) strtoull (env, NULL, 0);
  if (whole < CHUNK_BYTES)
    whole = CHUNK_BYTES;
  if (chunk < CHUNK_BYTES)
    chunk = CHUNK_BYTES;
  return total > whole ? chunk : 0;
}

/* One stage of the axis: its kernel(s) and what varies per chunk */
typedef struct
{
  cl_kernel main, rest;         /* rest: columns beyond the last multiple
                                 * of LANES in the last chunk (or NULL) */
  int mode;
  size_t e0, e1;                /* dimension-0 extent, dimension-1 factor */
  /* MODE 5: the work-group height of every chunk's launch, a last chunk
   * rounded up to it (its groups past the batch return at once). PoCL
   * compiles a kernel once per work-group size: 8192 rows of 160 points
   * whole, chunks of 410 groups and a last of 204, took 9-15 s more to
   * start when the last had a size of its own. 0: each launch's own. */
  size_t local1;
} Stage;

static ClfStatus
set_stage_args (cl_kernel k, Addr in, Addr out, cl_uint8 params,
    cl_mem tw, float scale, float sign_in, float sign_out, cl_mem mul,
    ClfError * err)
{
  cl_uint8 in_cl = addr_to_cl (in), out_cl = addr_to_cl (out);
  cl_int e = 0;
  e |= clSetKernelArg (k, 2, sizeof (in_cl), &in_cl);
  e |= clSetKernelArg (k, 3, sizeof (out_cl), &out_cl);
  e |= clSetKernelArg (k, 4, sizeof (params), &params);
  e |= clSetKernelArg (k, 5, sizeof (tw), &tw);
  e |= clSetKernelArg (k, 6, sizeof (scale), &scale);
  e |= clSetKernelArg (k, 7, sizeof (sign_in), &sign_in);
  e |= clSetKernelArg (k, 8, sizeof (sign_out), &sign_out);
  e |= clSetKernelArg (k, 9, sizeof (cl_mem), mul ? &mul : NULL);
  if (e != CL_SUCCESS)
    return clf_set_cl_error (err, e, "clSetKernelArg (fft_cpu_pass)");
  return CLF_OK;
}

/* Launches of one stage over dimension 0 in [0, e0) (columns: the chunk's
 * [c0, c0 + width)), dimension 1 in [off1, off1 + size1): the multiple of
 * LANES and the rest separately, so that the vector loop has no scalar
 * tail, unless the rest is small. */
static ClfStatus
add_stage_launches (ClfPlan * plan, const Stage * st, int src, int dst,
    size_t c0, size_t width, size_t off1, size_t size1, ClfError * err)
{
  /* MODE 4 and 5 vectorise within the work-item: no scalar rest */
  size_t main = st->mode >= 4 ? width : width >= LANES ?
      width - width % LANES : 0;
  /* A small rest runs in the same launch, as the scalar tail of work-groups
   * one extent wide: a command costs PoCL's pthread driver more than a few
   * hundred work-items run scalar (clfftspectrum at bands=1024, four
   * transforms of 1023 points a chunk, 33 wide in the first stage: about
   * 4% more audio a second) */
  if (!st->rest && main < width && width <= WG_TARGET &&
      (width - main) * size1 <= SMALL_REST)
    main = width;
  size_t global[2], local[2], offset[2] = { main, 0 }, base[2] = { c0, off1 };
  ClfStatus s;

  if (main) {
    global[0] = main;
    global[1] = size1;
    local[0] = local0_for (main);
    local[1] = st->local1 ? st->local1 : local1_for (size1, local[0]);
    /* a last chunk of whole rows rounded up to the stage's height */
    global[1] = (size1 + local[1] - 1) / local[1] * local[1];
    s = clf_plan_add_launch (plan, st->main, src, dst, global, local, NULL,
        base, err);
    if (s != CLF_OK)
      return s;
  }
  if (main < width) {
    cl_kernel k = st->rest ? st->rest : st->main;
    /* columns: only the last chunk has a rest; its kernel knows where.
     * Rows (c0 0): the rest's own work-group size is a compile of its own
     * anyway, so it starts at a global offset. */
    global[0] = width - main;
    global[1] = size1;
    local[0] = global[0];
    local[1] = local1_for (size1, local[0]);
    base[0] = c0 + main;
    s = clf_plan_add_launch (plan, k, src, dst, global, local,
        st->mode == 2 ? NULL : offset, base, err);
    if (s != CLF_OK)
      return s;
  }
  return CLF_OK;
}

/* Real values read as complex pairs: pair j is floats 2j and 2j+1 of
 * each transform. Possible where the reals are adjacent and every offset
 * is even. */
static int
pairs_addr (Addr a, Addr * pairs)
{
  if (a.stride != 1 || a.off % 2 || a.d0 % 2 || a.d1 % 2 || a.d2 % 2)
    return 0;
  *pairs = a;
  pairs->off /= 2;
  pairs->d0 /= 2;
  pairs->d1 /= 2;
  pairs->d2 /= 2;
  return 1;
}

/* Whether a real axis (R2C: IN_REAL, C2R: IN_HERMITIAN and OUT_REAL) of
 * even length runs as a complex transform of half the length between
 * the passes of kernels/fft_real.cl; if so, *fx is that transform, its
 * rows in scratch on the spectrum's side m + 1 values apart (the last
 * unused). R2C must keep every bin. $CLFFT_CPU_REAL_HALF=0 keeps every
 * real axis whole. */
static cl_uint
real_half (const Axis * ax, Axis * fx)
{
  const char *env = getenv ("CLFFT_CPU_REAL_HALF");
  size_t m = ax->n / 2;

  if ((env && env[0] == '0') || ax->n % 2 || ax->n < 4)
    return 0;
  *fx = *ax;
  fx->n = m;
  fx->flags = 0;
  fx->count = ALL_ELEMENTS;
  fx->in_extent = fx->out_extent = 0;
  fx->multiplier = NULL;
  if ((ax->flags & IN_REAL) && ax->count >= m + 1 &&
      pairs_addr (ax->in, &fx->in)) {
    fx->out = packed_rows (m + 1);
    fx->scale = 1.0f;
    return IN_REAL;
  }
  if ((ax->flags & IN_HERMITIAN) && (ax->flags & OUT_REAL) &&
      pairs_addr (ax->out, &fx->out)) {
    fx->in = packed_rows (m + 1);
    return OUT_REAL;
  }
  return 0;
}

/* w^j = exp(-2 pi i j/n) for the pairs of bins j, n/2 - j that
 * kernels/fft_real.cl's work-items take, j = 0..n/4 */
static cl_mem
real_twiddles (ClfPlan * plan, size_t n, ClfError * err)
{
  size_t pairs = n / 4 + 1;
  float *t = malloc (2 * pairs * sizeof (float));
  cl_mem mem;

  if (!t) {
    clf_set_error (err, CLF_ERROR_OUT_OF_MEMORY, "host memory");
    return NULL;
  }
  for (size_t j = 0; j < pairs; j++) {
    double a = -2.0 * M_PI * (double) j / (double) n;
    t[2 * j] = (float) cos (a);
    t[2 * j + 1] = (float) sin (a);
  }
  mem = clf_plan_add_table (plan, t, 2 * pairs, err);
  free (t);
  return mem;
}

/* The pass of kernels/fft_real.cl on the spectrum's side of a real axis:
 * real_split after the stages (R2C), real_merge before them (C2R) */
static ClfStatus
new_real_pass (ClfPlan * plan, const Axis * ax, cl_uint real, Stage * sg,
    ClfError * err)
{
  ClfContext *ctx = clf_plan_get_context (plan);
  cl_uint m = (cl_uint) (ax->n / 2);
  cl_mem tw = real_twiddles (plan, ax->n, err);
  const Addr *spectrum = real == IN_REAL ? &ax->out : &ax->in;
  cl_uint8 addr;
  cl_int e = 0;

  if (!tw)
    return err ? err->code : CLF_ERROR_OUT_OF_MEMORY;
  sg->main = clf_context_create_kernel_full (ctx, "fft_real",
      spectrum->stride == 1 ? "-DUNIT_STRIDE" : NULL,
      real == IN_REAL ? "real_split" : "real_merge", err);
  if (!sg->main)
    return err ? err->code : CLF_ERROR_OPENCL;
  /* one work-item a pair of bins, one launch dimension a transform */
  sg->mode = 1;
  sg->e0 = m / 2 + 1;
  sg->e1 = 1;
  addr = addr_to_cl (*spectrum);
  e |= clSetKernelArg (sg->main, 2, sizeof (addr), &addr);
  e |= clSetKernelArg (sg->main, 3, sizeof (m), &m);
  e |= clSetKernelArg (sg->main, 4, sizeof (tw), &tw);
  if (real == IN_REAL) {
    float sign_out = (ax->flags & CONJ_OUT) ? -1.0f : 1.0f;
    e |= clSetKernelArg (sg->main, 5, sizeof (float), &ax->scale);
    e |= clSetKernelArg (sg->main, 6, sizeof (float), &sign_out);
  } else {
    float sign_in = (ax->flags & CONJ_IN) ? -1.0f : 1.0f;
    e |= clSetKernelArg (sg->main, 5, sizeof (float), &sign_in);
  }
  if (e != CL_SUCCESS)
    return clf_set_cl_error (err, e, "clSetKernelArg (fft_real)");
  return CLF_OK;
}

int
clf_plan_cpu_add_axis (ClfPlan * plan, const Axis * ax,
    ClfStatus * status, ClfError * err)
{
  ClfContext *ctx = clf_plan_get_context (plan);
  unsigned radices[MAX_CPU_STAGES];
  cl_uint tw_off[MAX_CPU_STAGES];
  Stage stages[MAX_CPU_STAGES], real_pass;
  /* the complex transform the stages run: the axis, or for a real axis
   * of even length one of half the length (real_half) */
  Axis fx;
  cl_uint real = real_half (ax, &fx);
  size_t n, batch = ax->batch, cols, ns_prod, floats = 0;
  size_t target, per, chunk, outer, cw = 0, ow = 1;
  size_t last_width = 0;
  int ns, order, scratch[2] = { -1, -1 };
  double cost;
  cl_mem tw;
  float *table;
  char note[256];
  ClfStatus st = CLF_OK;

  if (!clf_plan_cpu_enabled (ctx))
    return 0;
  if (real && !whole_rows_fit (&fx, column_count (&fx)) &&
      cpu_radices (fx.n, ORDER_STOCKHAM, radices, &cost) < 2)
    real = 0;
  if (!real)
    fx = *ax;
  n = fx.n;
  cols = column_count (&fx);
  target = chunk_bytes (ctx, n * batch * sizeof (cl_float2), cols != 0);
  if (whole_rows_fit (&fx, cols)) {
    order = ORDER_WHOLE;
    ns = 1;
    radices[0] = (unsigned) n;
  } else if (cols) {
    order = ORDER_COLUMNS;
    ns = cpu_radices (n, order, radices, &cost);
  } else {
    /* the order with the cheaper plan; CLFFT_CPU_ORDER=0/1 forces one */
    const char *env = getenv ("CLFFT_CPU_ORDER");
    unsigned r2[MAX_CPU_STAGES];
    double cost2;
    int ns2;
    order = ORDER_STOCKHAM;
    ns = cpu_radices (n, ORDER_STOCKHAM, radices, &cost);
    ns2 = cpu_radices (n, ORDER_TRANSPOSED, r2, &cost2);
    if (ns2 >= 2 && (env && env[0] ? env[0] == '1' : cost2 < cost)) {
      order = ORDER_TRANSPOSED;
      ns = ns2;
      memcpy (radices, r2, sizeof (r2));
    }
  }
  /* one stage would read and write the same buffer in place, but for
   * whole rows (a work-item reads its transforms before it writes them) */
  if (ns < 2 && order != ORDER_WHOLE)
    return 0;
  memset (stages, 0, sizeof (stages));
  memset (&real_pass, 0, sizeof (real_pass));

  /* chunks: rows in groups of `chunk` transforms; columns in groups of
   * cw columns (a multiple of LANES) of ow outer transforms */
  outer = cols ? batch / cols : batch;
  per = (n + (real ? 1 : 0)) * sizeof (cl_float2);
  if (!cols) {
    chunk = target ? target / per : batch;
    if (chunk < 1)
      chunk = 1;
    if (chunk > batch)
      chunk = batch;
    while ((batch + chunk - 1) / chunk > MAX_CHUNKS)
      chunk *= 2;
    /* whole rows launch groups of LAST_STAGE_GROUP transforms */
    if (order == ORDER_WHOLE && chunk % LAST_STAGE_GROUP)
      chunk += LAST_STAGE_GROUP - chunk % LAST_STAGE_GROUP;
    if (chunk > batch)
      chunk = batch;
  } else {
    size_t max_cols = target ? target / per : cols;
    if (max_cols >= cols) {
      cw = cols;
      ow = target ? target / (per * cols) : outer;
      if (ow < 1)
        ow = 1;
      if (ow > outer)
        ow = outer;
    } else {
      cw = max_cols - max_cols % LANES;
      /* work-groups at least 32 columns wide: chunks of 232 columns of
       * 2240 points (groups of 8) took 1080p RGBA's blur at radius 1000
       * 111-127 ms a frame on a 2-core Xeon, of 128, 192 or 256 columns
       * 75-94 */
      while (cw > 32 && local0_for (cw) < 32)
        cw -= LANES;
      if (cw < LANES)
        cw = LANES < cols ? LANES : cols;
      ow = 1;
    }
    while (((cols + cw - 1) / cw) * ((outer + ow - 1) / ow) > MAX_CHUNKS) {
      if (cw < cols)
        cw = 2 * cw < cols ? 2 * cw : cols;
      else
        ow = 2 * ow < outer ? 2 * ow : outer;
    }
    last_width = cols - ((cols - 1) / cw) * cw;
    chunk = cw * ow;
  }

  /* the last group of butterflies of a MODE 4 stage may read up to
   * LAST_STAGE_GROUP - 1 twiddles beyond its table */
  table = stage_twiddles (radices, ns, order == ORDER_TRANSPOSED ?
      LAST_STAGE_GROUP : 0, &floats, tw_off);
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
  /* whole rows of a complex axis go from its input to its output */
  for (int i = 0; i < (ns > 2 || real ? 2 : ns - 1); i++) {
    scratch[i] = clf_plan_shared_scratch (plan, i, (n + (real ? 1 : 0)) *
        (cols ? column_pitch (cw) * ow : chunk) * sizeof (cl_float2), err);
    if (scratch[i] < 0) {
      *status = err ? err->code : CLF_ERROR_OUT_OF_MEMORY;
      return 1;
    }
  }

  if (real)
    snprintf (note, sizeof (note), " cpu%s(%zu as %s %zu:", order ==
        ORDER_TRANSPOSED ? "t" : order == ORDER_WHOLE ? "w" : "", ax->n,
        real == IN_REAL ? "split" : "merged", n);
  else
    snprintf (note, sizeof (note), " cpu%s(%zu:", cols ? "cols" :
        order == ORDER_TRANSPOSED ? "t" : order == ORDER_WHOLE ? "w" : "", n);
  for (int s = 0; s < ns; s++)
    snprintf (note + strlen (note), sizeof (note) - strlen (note), "%s%u",
        s ? "x" : "", radices[s]);
  if ((cols ? ((cols + cw - 1) / cw) * ((outer + ow - 1) / ow) :
          (batch + chunk - 1) / chunk) > 1)
    snprintf (note + strlen (note), sizeof (note) - strlen (note),
        " chunks of %zu", chunk);
  strncat (note, ")", sizeof (note) - strlen (note) - 1);
  clf_plan_describe_add (plan, note);

  /* the kernels of every stage */
  ns_prod = 1;
  for (int s = 0; s < ns && st == CLF_OK; s++) {
    int first = s == 0, last = s == ns - 1;
    unsigned R = radices[s];
    size_t q_ext = n / (ns_prod * R);
    Stage *sg = &stages[s];
    Addr in, out;
    /* which side is a chunk's scratch (fft_cpu_pass's params.s5) */
    cl_uint flags = (first && real != OUT_REAL ? 0 : 1) |
        (last && real != IN_REAL ? 0 : 2);
    char defines[256];
    float scale = last ? fx.scale : 1.0f;
    float sign_in = first && (fx.flags & CONJ_IN) ? -1.0f : 1.0f;
    float sign_out = last && (fx.flags & CONJ_OUT) ? -1.0f : 1.0f;
    /* outputs kept: R2C's half, an output extent. Not in columns: PoCL
     * did not see that the test is the same for every column and masked
     * each store (the last stage of 1537 columns of 2240 points kept to
     * 1080 took 3x the time of writing them all). */
    cl_uint keep = fx.out_extent && fx.out_extent < fx.count && !cols ?
        fx.out_extent : fx.count;
    int in_extent = first && fx.in_extent && fx.in_extent < n;
    cl_mem mul = first ? fx.multiplier : NULL;
    cl_uint8 params;

    if (cols) {
      sg->mode = 2;
      sg->e0 = cols;
      sg->e1 = n / R;
    } else if (order == ORDER_WHOLE) {
      /* dimension 1 counts groups of transforms (the launches below) */
      sg->mode = 5;
      sg->e0 = 1;
      sg->e1 = 1;
    } else if (order == ORDER_TRANSPOSED) {
      sg->mode = last ? 4 : 3;
      sg->e0 = last ? (ns_prod + LAST_STAGE_GROUP - 1) / LAST_STAGE_GROUP :
          q_ext;
      sg->e1 = last ? 1 : ns_prod;
    } else if (first || (ns_prod < LANES && ns_prod < q_ext)) {
      sg->mode = 1;
      sg->e0 = q_ext;
      sg->e1 = ns_prod;
    } else {
      sg->mode = 0;
      sg->e0 = ns_prod;
      sg->e1 = q_ext;
    }
    in = first ? fx.in : cols ? packed_columns (n, cw) : packed_rows (n);
    out = last ? fx.out : cols ? packed_columns (n, cw) : packed_rows (n);
    if (cols) {
      if (first && in.nb0 == ONE_LEVEL)
        in.nb0 = (cl_uint) cols;
      if (last && out.nb0 == ONE_LEVEL)
        out.nb0 = (cl_uint) cols;
    }

    snprintf (defines, sizeof (defines), "-DR=%u -DMODE=%d%s -DIN_KIND=%d%s%s"
        "%s%s%s%s%s", R, sg->mode, first ? " -DFIRST" : "",
        !first ? 0 : (fx.flags & IN_REAL) ? 1 :
        (fx.flags & IN_HERMITIAN) ? 2 : 0,
        last && (fx.flags & OUT_REAL) ? " -DOUT_REAL" : "",
        last && keep < n ? " -DLIMIT" : "",
        in.stride == 1 ? " -DIN_UNIT" : "",
        out.stride == 1 ? " -DOUT_UNIT" : "",
        sign_in == 1.0f ? " -DUNIT_SIGN_IN" : "",
        in_extent ? " -DIN_EXTENT" : "", mul ? " -DIN_MULTIPLY" : "");
    if (in_extent)
      append_zero_inputs (defines, sizeof (defines), n, R, fx.in_extent);
    params = (cl_uint8) { {(cl_uint) n, (cl_uint) ns_prod,
            keep < n ? keep : (cl_uint) n, tw_off[s],
        (cl_uint) sg->e1, flags, 0, in_extent ? fx.in_extent : (cl_uint) n}
    };
    /* whole rows: the last group's transforms stop at the batch */
    if (sg->mode == 5)
      params.s[6] = (cl_uint) batch;

    sg->main = clf_context_create_kernel_full (ctx, "fft_cpu", defines,
        "fft_cpu_pass", err);
    if (!sg->main) {
      st = err ? err->code : CLF_ERROR_OPENCL;
      break;
    }
    st = set_stage_args (sg->main, in, out, params, tw, scale, sign_in,
        sign_out, mul, err);
    if (st == CLF_OK && cols && last_width % LANES && last_width > LANES) {
      /* the rest of the last chunk's columns starts at this column */
      sg->rest = clf_context_create_kernel_full (ctx, "fft_cpu", defines,
          "fft_cpu_pass", err);
      if (!sg->rest) {
        st = err ? err->code : CLF_ERROR_OPENCL;
        break;
      }
      params.s[6] = (cl_uint) (last_width - last_width % LANES);
      st = set_stage_args (sg->rest, in, out, params, tw, scale, sign_in,
          sign_out, mul, err);
    }
    ns_prod *= R;
  }
  if (st == CLF_OK && real)
    st = new_real_pass (plan, ax, real, &real_pass, err);

  /* the launches: every stage of a chunk, then the next chunk */
  if (st == CLF_OK && !cols) {
    for (int s = 0; s < ns; s++)
      if (stages[s].mode == 5)
        stages[s].local1 = local1_for (((chunk < batch ? chunk : batch) +
                LAST_STAGE_GROUP - 1) / LAST_STAGE_GROUP, 1);
    clf_plan_begin_chunks (plan);
    for (size_t b0 = 0; b0 < batch && st == CLF_OK; b0 += chunk) {
      size_t nb = batch - b0 < chunk ? batch - b0 : chunk;
      int src = ax->src;
      clf_plan_set_chunk (plan, b0, nb);
      /* real_merge's rows go where stage 0 reads scratch from */
      if (real == OUT_REAL) {
        st = add_stage_launches (plan, &real_pass, src, scratch[1], 0,
            real_pass.e0, b0, nb, err);
        src = scratch[1];
      }
      for (int s = 0; s < ns && st == CLF_OK; s++) {
        int dst = s == ns - 1 && real != IN_REAL ? ax->dst : scratch[s % 2];
        if (stages[s].mode == 5)
          st = add_stage_launches (plan, &stages[s], src, dst, 0, 1,
              b0 / LAST_STAGE_GROUP, (nb + LAST_STAGE_GROUP - 1) /
              LAST_STAGE_GROUP, err);
        else
          st = add_stage_launches (plan, &stages[s], src, dst, 0,
              stages[s].e0, b0 * stages[s].e1, nb * stages[s].e1, err);
        src = dst;
      }
      if (st == CLF_OK && real == IN_REAL)
        st = add_stage_launches (plan, &real_pass, src, ax->dst, 0,
            real_pass.e0, b0, nb, err);
    }
  } else if (st == CLF_OK) {
    clf_plan_begin_chunks (plan);
    for (size_t o0 = 0; o0 < outer && st == CLF_OK; o0 += ow) {
      size_t no = outer - o0 < ow ? outer - o0 : ow;
      for (size_t c0 = 0; c0 < cols && st == CLF_OK; c0 += cw) {
        size_t w = cols - c0 < cw ? cols - c0 : cw;
        int src = ax->src;
        /* a range of the transforms where columns of one outer
         * transform, or whole rows of columns */
        clf_plan_set_chunk (plan, outer == 1 ? c0 : o0 * cols,
            outer == 1 ? w : w == cols ? no * cols : 0);
        for (int s = 0; s < ns && st == CLF_OK; s++) {
          int dst = s == ns - 1 ? ax->dst : scratch[s % 2];
          st = add_stage_launches (plan, &stages[s], src, dst, c0, w,
              o0 * stages[s].e1, no * stages[s].e1, err);
          src = dst;
        }
      }
    }
  }
  clf_plan_end_chunks (plan);

  if (real_pass.main)
    clReleaseKernel (real_pass.main);
  for (int s = 0; s < ns; s++) {
    if (stages[s].main)
      clReleaseKernel (stages[s].main);
    if (stages[s].rest)
      clReleaseKernel (stages[s].rest);
  }
  *status = st;
  return 1;
}

/* clf-plan-forms.c: stage forms measured faster than the plan rules give.
 *
 * The rules of clf-plan.c (fewest stages, then the busiest threads)
 * choose well for most lengths, but a sweep of other forms of the 172
 * 7-smooth lengths from 256 to 4096 found 43 whose best form ran clearly
 * faster: its slowest of three rounds beat the fastest round of the
 * rules' plan by more than 2%. Most hold three stages of 32 values with
 * a radix 25 or 27 where the rules take four of 16 (4000 = 32x25x5), or
 * a 9 in place of 15x3 (360 = 8x5x9). Five alternating rounds on the
 * same H200 against the rules' plans (2^24 points, medians, us): 4000
 * 109.2 -> 87.5, 2646 115.4 -> 100.4, 450 103.7 -> 88.5, 360 89.9 ->
 * 83.0; all 41 measured so ran 1.9-25% faster, 7.9% in the geometric mean.
 * 3528 and 4032 hold 32 values, as their forms ran in the sweep (NVIDIA
 * gives their 16-value programs too few threads). Candidates from
 * tests/bench/stage-forms.py, timed by tests/bench/forms-bench
 * (docs/benchmarks.md, "Thirty-eighth session"). Other GPUs may rank
 * the forms otherwise; CLFFT_MEASURED_FORMS=0 keeps the rules. */
#include "clf-private.h"

typedef struct
{
  unsigned short n;
  unsigned char values;
  unsigned char nstages;
  unsigned char radices[4];
} MeasuredForm;

/* length, values a thread, stages in order; by length */
static const MeasuredForm measured_forms[] = {
  {270, 16, 3, {6, 3, 15}},
  {300, 16, 3, {4, 5, 15}},
  {315, 16, 3, {5, 7, 9}},
  {360, 16, 3, {8, 5, 9}},
  {375, 16, 3, {5, 5, 15}},
  {378, 32, 2, {14, 27}},
  {400, 8, 4, {8, 2, 5, 5}},
  {420, 16, 3, {2, 14, 15}},
  {432, 16, 3, {16, 3, 9}},
  {441, 8, 4, {3, 3, 7, 7}},
  {450, 16, 3, {6, 5, 15}},
  {540, 16, 3, {12, 5, 9}},
  {640, 8, 4, {8, 8, 2, 5}},
  {675, 32, 2, {27, 25}},
  {720, 16, 3, {16, 3, 15}},
  {768, 8, 4, {8, 8, 4, 3}},
  {800, 32, 2, {32, 25}},
  {882, 16, 3, {14, 7, 9}},
  {900, 16, 3, {10, 6, 15}},
  {1029, 16, 4, {3, 7, 7, 7}},
  {1050, 16, 3, {14, 5, 15}},
  {1200, 16, 3, {16, 5, 15}},
  {1458, 32, 3, {2, 27, 27}},
  {2187, 32, 3, {3, 27, 27}},
  {2268, 32, 3, {14, 6, 27}},
  {2500, 32, 3, {4, 25, 25}},
  {2592, 32, 3, {32, 27, 3}},
  {2646, 32, 3, {14, 7, 27}},
  {2916, 32, 3, {4, 27, 27}},
  {3000, 32, 3, {8, 15, 25}},
  {3024, 32, 3, {8, 14, 27}},
  {3200, 32, 3, {8, 16, 25}},
  {3240, 32, 3, {8, 15, 27}},
  {3402, 32, 3, {14, 9, 27}},
  {3456, 32, 3, {16, 8, 27}},
  {3528, 32, 4, {14, 14, 6, 3}},
  {3675, 32, 4, {3, 7, 7, 25}},
  {3750, 32, 3, {6, 25, 25}},
  {3888, 32, 3, {16, 9, 27}},
  {3969, 32, 4, {27, 7, 7, 3}},
  {4000, 32, 3, {32, 25, 5}},
  {4032, 32, 4, {4, 7, 12, 12}},
  {4050, 32, 3, {6, 27, 25}},
};

#define N_MEASURED_FORMS (sizeof measured_forms / sizeof measured_forms[0])

int
clf_measured_form (size_t n, unsigned *values, unsigned *radices)
{
  for (size_t i = 0; i < N_MEASURED_FORMS; i++) {
    const MeasuredForm *f = &measured_forms[i];

    if (f->n != n)
      continue;
    *values = f->values;
    for (int s = 0; s < f->nstages; s++)
      radices[s] = f->radices[s];
    return f->nstages;
  }
  return 0;
}

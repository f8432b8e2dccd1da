/* clf-factor.c: splits a length into radix stages and four-step halves. */
#include "clf-private.h"

static const unsigned odd_radices[] = { 3, 5, 7, 11, 13, 17, 19, 23, 29, 31 };

unsigned
clf_radix_code (unsigned radix)
{
  switch (radix) {
    case 2:
      return 0;
    case 3:
      return 1;
    case 4:
      return 2;
    case 5:
      return 3;
    case 7:
      return 4;
    case 8:
      return 5;
    case 11:
      return 6;
    case 13:
      return 7;
    case 16:
      return 8;
    case 17:
      return 9;
    case 19:
      return 10;
    case 23:
      return 11;
    case 29:
      return 12;
    case 31:
      return 13;
    case 9:
      return 14;
    default:
      return 15;                /* 15 */
  }
}

/* Powers of two go into 16s with the remainder spread so that the smallest
 * radix stays large: the smallest radix sets how many threads a transform
 * needs. Returns the number of stages, or -1 if n has a prime factor > 31
 * or needs more than max_stages. */
int
clf_factor_radices (size_t n, unsigned *radices, int max_stages)
{
  int count = 0, e = 0;

  while (n % 2 == 0) {
    n /= 2;
    e++;
  }
  while (e > 0) {
    unsigned r;
    if (e >= 4 && e != 5 && e != 6)
      r = 16;
    else if (e == 5 || e == 6 || e == 3)
      r = 8;                    /* 32 = 8*4, 64 = 8*8 */
    else if (e == 2)
      r = 4;
    else
      r = 2;
    if (count >= max_stages)
      return -1;
    radices[count++] = r;
    e -= (r == 16) ? 4 : (r == 8) ? 3 : (r == 4) ? 2 : 1;
  }
  for (unsigned i = 0; i < sizeof (odd_radices) / sizeof (odd_radices[0]);
      i++) {
    while (n % odd_radices[i] == 0) {
      if (count >= max_stages)
        return -1;
      radices[count++] = odd_radices[i];
      n /= odd_radices[i];
    }
  }
  return n == 1 ? count : -1;
}

int
clf_is_smooth (size_t n)
{
  unsigned r[64];
  return n >= 1 && clf_factor_radices (n, r, 64) >= 0;
}

size_t
clf_next_smooth (size_t n)
{
  for (;; n++) {
    size_t m = n;
    while (m % 2 == 0)
      m /= 2;
    while (m % 3 == 0)
      m /= 3;
    while (m % 5 == 0)
      m /= 5;
    while (m % 7 == 0)
      m /= 7;
    if (m == 1)
      return n;
  }
}

/* The largest divisor of n up to limit (1 if none above it): work-group
 * sizes for launches of exactly n work-items */
size_t
clf_largest_divisor_upto (size_t n, size_t limit)
{
  for (size_t d = limit < n ? limit : n; d > 1; d--)
    if (n % d == 0)
      return d;
  return 1;
}

/* The divisor N1 of n with N1 <= limit and n/N1 <= limit that is closest to
 * sqrt(n), both halves smooth; 0 if none. */
size_t
clf_four_step_split (size_t n, size_t limit)
{
  size_t best = 0;
  for (size_t d = 2; d <= limit && d < n; d++) {
    if (n % d != 0 || n / d > limit)
      continue;
    if (!clf_is_smooth (d) || !clf_is_smooth (n / d))
      continue;
    /* prefer the split whose halves are most equal */
    if (!best || (d > n / d ? d - n / d : n / d - d) <
        (best > n / best ? best - n / best : n / best - best))
      best = d;
  }
  return best;
}

/* n = f[0] * f[1] * f[2], each factor smooth, between 2 and limit, the
 * largest as small as possible; 0 if there is no such split. */
int
clf_three_step_split (size_t n, size_t limit, size_t f[3])
{
  size_t best = 0;
  for (size_t a = 2; a <= limit && a < n; a++) {
    if (n % a || !clf_is_smooth (a))
      continue;
    for (size_t b = 2; b <= limit && a * b < n; b++) {
      size_t c = n / a / b, top;
      if ((n / a) % b || c < 2 || c > limit || !clf_is_smooth (b) ||
          !clf_is_smooth (c))
        continue;
      top = a > b ? a : b;
      top = top > c ? top : c;
      if (!best || top < best) {
        best = top;
        f[0] = a;
        f[1] = b;
        f[2] = c;
      }
    }
  }
  return best != 0;
}

int
clf_radices_from_env (const char *name, size_t n, unsigned *radices, int max)
{
  const char *env = getenv (name);
  char *end = (char *) env;
  size_t product = 1;
  int k = 0;

  if (!env)
    return 0;
  while (*end && k < max) {
    radices[k] = (unsigned) strtoul (end, &end, 10);
    product *= radices[k++];
    if (*end && *end++ != 'x')
      return 0;
  }
  return *end || product != n ? 0 : k;
}

int
clf_holds_radix (const unsigned *radices, size_t count, unsigned r)
{
  for (size_t i = 0; i < count; i++)
    if (radices[i] == r)
      return 1;
  return 0;
}

#!/usr/bin/env python3
"""Candidate stage forms of batched 1D lengths, for tests/bench/forms-bench.

Prints "N - -" (the plan the rules give) and then "N VALUES RADICES" for
each 7-smooth N in [LO, HI]: every multiset of radices that programs built
for one length take (clf-plan.c's fixed_radix_set) in the fewest stages
for 8, 16 and 32 values a thread (radices up to 8 in 8 values on at most
256 threads, up to 16 in 16, and 32 values only with a radix above 16),
each in up to ORDERS orders: even radices first with the odd ones
descending, then ascending, then the other permutations.

With --wide, for each 13-smooth N instead: the forms of 32 values with
at least one of the wide composites 18-28 (clf-plan.c's
measured_radix_set, which only the measured table and CLFFT_RADICES take)
in their fewest stages, where those are no more than the usual radices'
fewest (with --fewer: fewer), each in up to ORDERS orders.

usage: stage-forms.py [--primes13 | --wide [--fewer]] LO HI [ORDERS]
       (ORDERS 2 by default)
"""
import itertools
import sys

RADICES = [32, 27, 25, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2]
WIDE = [28, 26, 24, 22, 21, 20, 18]


def butterflies_per_thread(r, values):
    # clf-plan.c's butterflies_per_thread
    return 1 if r >= 17 else (values // 16 if r >= 11 else values // r)


def threads(n, radices, values):
    return max(-(-(n // r) // butterflies_per_thread(r, values))
               for r in radices)


def multisets(n, most, radices=RADICES):
    out = []

    def walk(rest, cur):
        if rest == 1:
            out.append(tuple(cur))
            return
        for r in radices:
            if r <= most and (not cur or r <= cur[-1]) and rest % r == 0:
                walk(rest // r, cur + [r])
    walk(n, [])
    return out


def fewest_forms(n):
    for values, most, cap in ((8, 8, 256), (16, 16, 1024), (32, 32, 1024)):
        sets = [m for m in multisets(n, most)
                if butterflies_per_thread(max(m), values) >= 1
                and threads(n, m, values) <= cap
                and (values != 32 or max(m) > 16)]
        if sets:
            k = min(len(m) for m in sets)
            for m in sets:
                if len(m) == k:
                    yield values, m


def wide_forms(n, fewer):
    usual = [len(m) for m in multisets(n, 32)]
    sets = [m for m in multisets(n, 32, sorted(RADICES + WIDE, reverse=True))
            if any(r in WIDE for r in m) and threads(n, m, 32) <= 1024]
    if not usual or not sets:
        return []
    k = min(len(m) for m in sets)
    if k > min(usual) or (fewer and k == min(usual)):
        return []
    return [(32, m) for m in sets if len(m) == k]


def orders(m, count):
    even = sorted((r for r in m if r % 2 == 0), reverse=True)
    odd = sorted((r for r in m if r % 2), reverse=True)
    first = [tuple(even + odd), tuple(even + odd[::-1])]
    seen = []
    for p in first + sorted(set(itertools.permutations(m))):
        if p not in seen:
            seen.append(p)
        if len(seen) == count:
            break
    return seen


def smooth(n, primes):
    for p in primes:
        while n % p == 0:
            n //= p
    return n == 1


def wanted(n, primes13):
    # lengths with a factor 11 or 13 only with --primes13, apart
    if primes13:
        return smooth(n, (2, 3, 5, 7, 11, 13)) and not smooth(n, (2, 3, 5, 7))
    return smooth(n, (2, 3, 5, 7))


def main():
    args = sys.argv[1:]
    flags = {a for a in args if a.startswith("--")}
    args = [a for a in args if not a.startswith("--")]
    if len(args) < 2 or flags - {"--primes13", "--wide", "--fewer"}:
        sys.exit(__doc__)
    lo, hi = int(args[0]), int(args[1])
    count = int(args[2]) if len(args) > 2 else 2
    for n in range(lo, hi + 1):
        if "--wide" in flags:
            if not smooth(n, (2, 3, 5, 7, 11, 13)):
                continue
            forms = wide_forms(n, "--fewer" in flags)
            if not forms:
                continue
        elif wanted(n, "--primes13" in flags):
            forms = fewest_forms(n)
        else:
            continue
        print(n, "-", "-")
        for values, m in sorted(set(forms)):
            for p in orders(m, count):
                print(n, values, "x".join(map(str, p)))


if __name__ == "__main__":
    main()

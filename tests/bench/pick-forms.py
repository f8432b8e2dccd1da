#!/usr/bin/env python3
"""Picks stage forms from forms-bench output, the way the measured table
(ocl/clf-plan-forms.c) was filled.

forms-bench prints, per round and line, "ROUND N VALUES RADICES [SETTING]
c2c ... local(N:STAGES) median_us=T ..."; "N - -" lines time the plan as
it stands. For each length this compares the forms with its plan, round
by round (forms-bench alternates them):

  pick-forms.py OUT      the fastest form whose median beats the plan's by
                         GAIN and whose slowest round beats the plan's
                         fastest by 1%, as forms-bench lines ("N - -",
                         "N VALUES RADICES") to time again in more rounds
  pick-forms.py --winners OUT
                         the fastest form beating the plan by GAIN in the
                         median and faster in every round, as a line
                         "N VALUES RADICES"
  pick-forms.py --taken OUT [CHECKS]
                         the same forms as clf-plan-forms.c entries,
                         with the plan's and the form's medians; CHECKS
                         (lines "N VALUES RADICES ... rel_rms_err=E" from
                         clfft-bench --check) leaves out forms whose
                         error is above 4e-7 or was not measured

GAIN is 1.03 (3%); PICK_GAIN overrides it.
"""
import math
import os
import re
import statistics
import sys

LINE = re.compile(r"(\d+) (\d+) (\S+) (\S+)(.*?)c2c .*local\((\d+):([\dx]+)"
                  r"[^)]*\).*median_us=([\d.]+)")
# test-fft-core's bound for lengths of the supported radices
ERROR_BOUND = 4e-7


def read_rounds(path):
    """{n: {(values, radices): [median of each round]}}, in file order"""
    times = {}
    for line in open(path):
        m = LINE.match(line)
        if not m or m.group(5).strip():
            continue            # lines with other knobs are no forms
        n = int(m.group(2))
        times.setdefault(n, {}).setdefault((m.group(3), m.group(4)),
                                           []).append(float(m.group(8)))
    return times


def best_form(forms, robust):
    plan = forms.get(("-", "-"))
    if not plan:
        return None
    gain = float(os.environ.get("PICK_GAIN", "1.03"))
    best = None
    for form, t in forms.items():
        if form == ("-", "-") or len(t) != len(plan):
            continue
        ratio = statistics.median(plan) / statistics.median(t)
        if ratio < gain or not robust(plan, t):
            continue
        if not best or statistics.median(t) < statistics.median(best[1]):
            best = (form, t, ratio)
    return best and best + (plan,)


def checked_errors(path):
    errors = {}
    for line in open(path):
        f = line.split()
        m = re.search(r"rel_rms_err=([\d.e+-]+)", line)
        if len(f) >= 3 and m:
            key = (int(f[0]), f[1], f[2])
            errors[key] = max(errors.get(key, 0.0), float(m.group(1)))
    return errors


def main():
    args = sys.argv[1:]
    taken = "--taken" in args
    winners = "--winners" in args
    args = [a for a in args if a not in ("--taken", "--winners")]
    if (not args or len(args) > 2 or (len(args) == 2 and not taken)
            or (taken and winners)):
        sys.exit(__doc__)
    times = read_rounds(args[0])
    errors = checked_errors(args[1]) if len(args) == 2 else None
    ratios = []
    for n in sorted(times):
        if taken or winners:
            best = best_form(times[n], lambda p, t: all(
                a > b for a, b in zip(p, t)))
        else:
            best = best_form(times[n], lambda p, t: min(p) / max(t) >= 1.01)
        if not best:
            continue
        (values, radices), t, ratio, plan = best
        if winners:
            print(f"{n} {values} {radices}")
            continue
        if not taken:
            print(f"{n} - -\n{n} {values} {radices}")
            continue
        err = errors.get((n, values, radices)) if errors is not None else 0
        if err is None or err > ERROR_BOUND:
            print(f"/* {n} {values} {radices}: error "
                  f"{'not measured' if err is None else err}, left out */")
            continue
        stages = radices.split("x")
        ratios.append(ratio)
        print(f"  {{{n}, {values}, {len(stages)}, {{{', '.join(stages)}}}}},"
              f"  /* {statistics.median(plan):.1f} -> "
              f"{statistics.median(t):.1f} us, {ratio:.3f}x */")
    if taken and not ratios:
        print("/* no form beat its plan in every round */")
    if taken and ratios:
        mean = math.exp(sum(map(math.log, ratios)) / len(ratios))
        print(f"/* {len(ratios)} forms, {min(ratios):.3f}-{max(ratios):.3f}x"
              f" faster, {mean:.3f}x in the geometric mean */")


if __name__ == "__main__":
    main()

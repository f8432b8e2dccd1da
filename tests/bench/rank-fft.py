#!/usr/bin/env python3
"""rank-fft.py RAW [ANCHOR]: the 1D lengths of a sweep-fft.sh (or
compare-fft.sh) run ranked by speed against an anchor measured in the
same run (default vkfft): its median time over ours, the slowest first,
with each length's plan where the run printed it, then how many lengths
trail the anchor and the median speed."""
import sys

anchor = sys.argv[2] if len(sys.argv) > 2 else "vkfft"
times = {"clfft": {}, anchor: {}}
plans = {}
for line in open(sys.argv[1]):
    if line.startswith("plan,"):
        _, n, desc = line.strip().split(",", 2)
        plans[int(n)] = desc
        continue
    f = line.strip().split(",")
    if len(f) < 5 or f[0] not in times:
        continue
    nx, ny = (int(v) for v in f[2].split("x"))
    if ny != 1:
        continue                     # 1D only
    kv = dict(x.split("=", 1) for x in f[3:] if "=" in x)
    times[f[0]][nx] = float(kv["median_us"])

rows = sorted((times[anchor][n] / t, n) for n, t in times["clfft"].items()
              if n in times[anchor])
if not rows:
    sys.exit("no length has both clfft and %s lines" % anchor)
print("%6s  %-24s %10s %10s  %s" % ("N", "plan", "clfft us", anchor + " us",
                                     "speed"))
for speed, n in rows:
    print("%6d  %-24s %10.1f %10.1f  %.2fx" % (n, plans.get(n, ""),
          times["clfft"][n], times[anchor][n], speed))
speeds = [s for s, n in rows]
print("%d lengths: %d slower than %s, %d below 0.95x, %d below 0.90x; "
      "median %.3fx" % (len(speeds), sum(s < 1 for s in speeds),
                        anchor, sum(s < 0.95 for s in speeds),
                        sum(s < 0.9 for s in speeds),
                        speeds[len(speeds) // 2]))

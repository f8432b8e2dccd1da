#!/usr/bin/env python3
"""plot-fft.py RAW OUT.png [TITLE]: GB/s against N from the lines that
sweep-fft.sh (or compare-fft.sh) prints. Needs matplotlib."""
import sys
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

NAMES = {"clfft": "gst-clfft", "vkfft": "VkFFT", "amdclfft": "AMD clFFT",
         "copy": "buffer copy"}
STYLE = {"clfft": "o-", "vkfft": "s--", "amdclfft": "^:", "copy": "-"}

series = {}
device = ""
for line in open(sys.argv[1]):
    f = line.strip().split(",")
    if len(f) < 5 or f[0] not in NAMES:
        continue
    nx, ny = (int(v) for v in f[2].split("x"))
    if ny != 1:
        continue                     # 1D only
    kv = dict(x.split("=", 1) for x in f[3:] if "=" in x)
    series.setdefault(f[0], {})[nx] = float(kv["GBps"])
    device = f[1]

fig, ax = plt.subplots(figsize=(9, 5.5), dpi=110)
for name in ("copy", "vkfft", "amdclfft", "clfft"):
    if name not in series:
        continue
    pts = sorted(series[name].items())
    # powers of two as a line, other lengths as lone markers beside it
    line = [p for p in pts if p[0] & (p[0] - 1) == 0]
    other = [p for p in pts if p[0] & (p[0] - 1) != 0]
    drawn = ax.plot([p[0] for p in line], [p[1] for p in line], STYLE[name],
                    label=NAMES[name], markersize=4,
                    color={"copy": "0.6"}.get(name))
    if other and name != "copy":
        ax.plot([p[0] for p in other], [p[1] for p in other], "x",
                color=drawn[0].get_color(), markersize=7)
        for n, v in other:
            if name == "clfft":
                ax.annotate(str(n), (n, v), textcoords="offset points",
                            xytext=(4, -10), fontsize=7)
ax.set_xscale("log", base=2)
ax.set_xlabel("transform length N (batched to the same total size); x: lengths "
              "that are not powers of two")
ax.set_ylabel("GB/s (one read + one write, 16 B per point)")
title = sys.argv[3] if len(sys.argv) > 3 else "batched 1D complex FFT"
ax.set_title("%s, %s" % (title, device))
ax.grid(True, which="both", alpha=0.3)
ax.legend()
fig.tight_layout()
fig.savefig(sys.argv[2])

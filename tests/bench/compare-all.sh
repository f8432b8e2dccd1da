#!/bin/bash
# compare-all.sh: the whole comparison in one run on one device, as one
# table: the FFT core against VkFFT, AMD's clFFT and FFTW (compare-fft.sh),
# and the elements against GStreamer's own CPU elements (bench-elements.sh).
# usage: compare-all.sh BUILD_DIR ANCHOR_DIR [--quick]
# Environment as for compare-fft.sh (SIZES, ITERS, FFTW_THREADS, PLATFORM)
# and bench-elements.sh (FRAMES, AUDIO_SECONDS, CLFFT_DEVICE).
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?build dir}
anchors=${2:?anchor dir (fftbench, fftwbench)}
quick=${3:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$here/compare-fft.sh" "$build" "$anchors" $quick > "$tmp/fft.txt" 2>&1
"$here/bench-elements.sh" "$build" $quick > "$tmp/elements.txt" 2>&1
cat "$tmp/fft.txt" "$tmp/elements.txt" | grep -v '^|'
echo
python3 - "$tmp/fft.txt" "$tmp/elements.txt" <<'PY'
import re, sys, collections

fft = collections.OrderedDict()
for line in open(sys.argv[1]):
    f = line.strip().split(",")
    if len(f) < 5 or "=" not in f[3]:
        continue
    kv = dict(x.split("=", 1) for x in f[3:] if "=" in x)
    fft.setdefault("FFT %s batch %s" % (f[2], kv.get("batch")), {})[f[0]] = \
        float(kv["median_us"])

el = collections.OrderedDict()
for line in open(sys.argv[2]):
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if len(cells) == 6 and re.match(r"[\d.]+ ", cells[3]):
        el[cells[0]] = (float(cells[3].split()[0]), cells[3].split()[1])

print("| benchmark | gst-clfft | VkFFT | AMD clFFT | FFTW | GStreamer CPU element | gst-clfft speed / best anchor |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for name, r in fft.items():
    if "clfft" not in r:
        continue
    us = lambda k: "%.1f us" % r[k] if k in r else "-"
    best = min([r[k] for k in ("vkfft", "amdclfft", "fftw") if k in r] or [0])
    print("| %s | %s | %s | %s | %s | - | %s |" % (name, us("clfft"), us("vkfft"),
          us("amdclfft"), us("fftw"), "%.2fx" % (best / r["clfft"]) if best else "-"))

def anchor_for(name):
    if name.startswith("clfftspectrum"):
        return name.replace("clfftspectrum", "spectrum", 1)
    if name.startswith("clfftconvolve 1920x1080"):
        return "gaussianblur 1920x1080 AYUV sigma=20"
    return None

for name, (rate, unit) in el.items():
    if not name.startswith("clfft"):
        continue
    a = anchor_for(name)
    if a in el:
        print("| %s | %.3f %s | - | - | - | %s: %.3f %s | %.2fx |" % (name, rate, unit,
              a, el[a][0], el[a][1], rate / el[a][0]))
    else:
        print("| %s | %.3f %s | - | - | - | - | - |" % (name, rate, unit))
PY

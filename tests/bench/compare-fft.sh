#!/bin/bash
# compare-fft.sh: clfft-bench beside the anchors (VkFFT, clFFT, copy, FFTW)
# on the same device in one run; prints the raw lines, then one table.
# usage: compare-fft.sh BUILD_DIR [ANCHOR_DIR] [--quick]
# SIZES="NX NY BATCH;..." picks the sizes; FFTW_THREADS=N adds FFTW.
#   ANCHOR_DIR holds fftbench and fftwbench built from ../shared/anchors.
set -u
build=${1:?build dir}
anchors=${2:-}
quick=${3:-}
bench="$build/tests/bench/clfft-bench"
if [ -n "${SIZES:-}" ]; then
  IFS=';' read -r -a sizes <<< "$SIZES"   # e.g. SIZES="4096 1 256;1920 1080 1"
elif [ "$quick" = "--quick" ]; then
  sizes=("1024 1 256" "4096 1 64" "1000 1 256" "1920 1080 1")
else
  sizes=("1024 1 65536" "4096 1 16384" "65536 1 1024" "262144 1 256"
    "524288 1 128" "1048576 1 64" "16777216 1 4" "1000 1 65536"
    "4095 1 16384" "6720 1 8192" "1080 1 4096" "1920 1080 1"
    "1920 1080 16" "3840 2160 1" "4096 4096 1" "8192 8192 1")
fi
iters=${ITERS:-20}
out=$(mktemp)
for s in "${sizes[@]}"; do
  "$bench" --check $s $iters | tee -a "$out"
  if [ -n "$anchors" ]; then
    for lib in copy vkfft clfft; do
      # AMD's clFFT prints "clfft," too: rename it so rows do not collide
      "$anchors/fftbench" $lib $s $iters 2>/dev/null | grep "^$lib," |
        sed 's/^clfft,/amdclfft,/' | tee -a "$out"
    done
    [ -n "${FFTW_THREADS:-}" ] && "$anchors/fftwbench" $s $iters "$FFTW_THREADS" 2>/dev/null | grep "^fftw" | tee -a "$out"
  fi
done
echo
python3 - "$out" <<'PY'
import sys, collections
rows = collections.OrderedDict()
for line in open(sys.argv[1]):
    f = line.strip().split(",")
    if len(f) < 7 or "=" not in f[3]:
        continue
    kv = dict(x.split("=", 1) for x in f[3:] if "=" in x)
    key = (f[2], kv.get("batch"))
    rows.setdefault(key, {})[f[0]] = (float(kv["median_us"]), float(kv["GBps"]), kv.get("rel_rms_err", ""))
print("| size | batch | clfft us (GB/s) | err | VkFFT us (GB/s) | AMD clFFT us (GB/s) | copy GB/s | FFTW us | clfft / VkFFT speed |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for (size, batch), r in rows.items():
    def cell(k):
        return "%.1f (%.0f)" % (r[k][0], r[k][1]) if k in r else "-"
    c = r.get("clfft")
    ratio = "%.2fx" % (r["vkfft"][0] / c[0]) if c and "vkfft" in r else "-"
    print("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (size, batch, cell("clfft"),
          c[2] if c else "-", cell("vkfft"), cell("amdclfft"),
          "%.0f" % r["copy"][1] if "copy" in r else "-",
          "%.1f" % r["fftw"][0] if "fftw" in r else "-", ratio))
PY
rm -f "$out"

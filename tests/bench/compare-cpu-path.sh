#!/bin/bash
# compare-cpu-path.sh: on a CPU device (PoCL), clfft-bench with the CPU
# path (ocl/clf-plan-cpu.c) and without it (CLFFT_CPU_PATH=0, fft_local)
# beside FFTW and VkFFT, back to back per size; ROUNDS rounds, each row
# of the table the median of the rounds (shared machines are noisy).
# usage: compare-cpu-path.sh BUILD_DIR ANCHOR_DIR
# SIZES="NX NY BATCH;..." picks the sizes, FFTW_THREADS (default 2) and
# ITERS (default 10) as in compare-fft.sh; ROUNDS defaults to 3.
set -u
build=${1:?build dir}
anchors=${2:?anchor dir with fftbench and fftwbench}
bench="$build/tests/bench/clfft-bench"
IFS=';' read -r -a sizes <<< "${SIZES:-4096 1 256;1000 1 1024;1920 1080 1;1024 1024 1;3840 2160 1}"
iters=${ITERS:-10}
rounds=${ROUNDS:-3}
threads=${FFTW_THREADS:-2}
out=$(mktemp)
trap 'rm -f "$out"' EXIT

med () {  # the median_us field of a result line
  sed -n 's/.*median_us=\([0-9.]*\).*/\1/p' | head -1
}

for r in $(seq "$rounds"); do
  for s in "${sizes[@]}"; do
    key=${s// /x}
    echo "fftw $key $("$anchors/fftwbench" $s $iters "$threads" 2>/dev/null | grep '^fftw' | med)" >> "$out"
    echo "vkfft $key $("$anchors/fftbench" vkfft $s $iters 2>/dev/null | grep '^vkfft' | med)" >> "$out"
    line=$("$bench" --check $s $iters 2>/dev/null | grep '^clfft')
    echo "new $key $(echo "$line" | med) $(echo "$line" | sed -n 's/.*rel_rms_err=\([0-9.e+-]*\).*/\1/p')" >> "$out"
    echo "old $key $(CLFFT_CPU_PATH=0 "$bench" $s $iters 2>/dev/null | grep '^clfft' | med)" >> "$out"
  done
done
echo "# raw (round by round): what size median_us [err]"
cat "$out"
echo
python3 - "$out" "${sizes[@]}" <<'PY'
import sys, statistics
rows = {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) >= 3 and f[2]:
        rows.setdefault((f[0], f[1]), []).append(float(f[2]))
        if f[0] == "new" and len(f) > 3:
            rows.setdefault(("err", f[1]), []).append(float(f[3]))
def m(what, key):
    v = rows.get((what, key))
    return statistics.median(v) if v else None
print("| size x batch | FFTW 2 threads us | VkFFT us | clfft CPU path us | clfft fft_local us | err | new / VkFFT speed | new / FFTW time | new / old speed |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for s in sys.argv[2:]:
    nx, ny, b = s.split()
    key = "x".join(s.split())
    fw, vk, nw, od, er = (m(w, key) for w in ("fftw", "vkfft", "new", "old", "err"))
    f = lambda v: "%.0f" % v if v else "-"
    r = lambda a, b: "%.2fx" % (a / b) if a and b else "-"
    size = "%sx%s" % (nx, ny) if ny != "1" else nx
    print("| %s x %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (size, b, f(fw), f(vk), f(nw), f(od),
          "%.2g" % er if er else "-", r(vk, nw), r(nw, fw), r(od, nw)))
PY

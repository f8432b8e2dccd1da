#!/bin/bash
# sweep-fft.sh: GB/s against N for batched 1D complex FFTs, clfft-bench beside
# the anchors (VkFFT, AMD clFFT, a buffer copy) on the same device in one run.
# Prints the raw lines; plot them with plot-fft.py.
# usage: sweep-fft.sh BUILD_DIR [ANCHOR_DIR]
# TOTAL (points per run, default 2^24) sets the batch: TOTAL / N.
# EXTRA="1000 1080 ..." adds lengths to the powers of two 2^3..2^24;
# LIBS="copy vkfft" picks the anchor programs (default: copy vkfft clfft).
set -u
build=${1:?build dir}
anchors=${2:-}
total=${TOTAL:-16777216}
iters=${ITERS:-10}
sizes=()
for ((n = 8; n <= 16777216 && n <= total; n *= 2)); do sizes+=("$n"); done
sizes+=(${EXTRA:-1000 1080 1920 2160 3840 4095 6720 44100 48000})
for n in "${sizes[@]}"; do
  batch=$(( total / n > 0 ? total / n : 1 ))
  "$build/tests/bench/clfft-bench" "$n" 1 "$batch" "$iters" 2>/dev/null | grep "^clfft,"
  [ -z "$anchors" ] && continue
  for lib in ${LIBS:-copy vkfft clfft}; do
    "$anchors/fftbench" $lib "$n" 1 "$batch" "$iters" 2>/dev/null | grep "^$lib," |
      sed 's/^clfft,/amdclfft,/'
  done
done

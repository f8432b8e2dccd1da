#!/bin/bash
# sweep-fft.sh: GB/s against N for batched 1D complex FFTs, clfft-bench beside
# the anchors (VkFFT, AMD clFFT, a buffer copy) on the same device in one run.
# Prints the raw lines; plot them with plot-fft.py, rank them with
# rank-fft.py.
# usage: sweep-fft.sh BUILD_DIR [ANCHOR_DIR]
# TOTAL (points per run, default 2^24) sets the batch: TOTAL / N.
# EXTRA="1000 1080 ..." adds lengths to the powers of two 2^3..2^24;
# SMOOTH=LO-HI takes instead every length from LO to HI whose prime factors
# are 2, 3, 5 and 7 (SMOOTH=27-4096: 229 lengths);
# LIBS="copy vkfft" picks the anchor programs (default: copy vkfft clfft).
# Each clfft line follows a "plan,N,..." line with the plan's description.
set -u
build=${1:?build dir}
anchors=${2:-}
total=${TOTAL:-16777216}
iters=${ITERS:-10}
sizes=()
if [ -n "${SMOOTH:-}" ]; then
  for ((n = ${SMOOTH%-*}; n <= ${SMOOTH#*-}; n++)); do
    m=$n
    for p in 2 3 5 7; do
      while ((m % p == 0)); do m=$((m / p)); done
    done
    ((m == 1)) && sizes+=("$n")
  done
else
  for ((n = 8; n <= 16777216 && n <= total; n *= 2)); do sizes+=("$n"); done
  sizes+=(${EXTRA:-1000 1080 1920 2160 3840 4095 6720 44100 48000})
fi
for n in "${sizes[@]}"; do
  batch=$(( total / n > 0 ? total / n : 1 ))
  "$build/tests/bench/clfft-bench" "$n" 1 "$batch" "$iters" 2>&1 |
    sed -n "s/^# c2c forward [^:]*: \(.*\) on .*/plan,$n,\1/p; /^clfft,/p"
  [ -z "$anchors" ] && continue
  for lib in ${LIBS:-copy vkfft clfft}; do
    "$anchors/fftbench" $lib "$n" 1 "$batch" "$iters" 2>/dev/null | grep "^$lib," |
      sed 's/^clfft,/amdclfft,/'
  done
done

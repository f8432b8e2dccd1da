#!/bin/bash
# demo.sh: installs what is missing, builds into build/ and runs the demos
# on the default OpenCL device (PoCL on a machine without a GPU).
set -eu
cd "$(dirname "$0")/.."
./tools/install-deps.sh
[ -d build ] || meson setup build
ninja -C build

echo "== OpenCL devices"
clinfo -l || true

echo "== FFT of a test signal (tones at 440, 1000 and 12345 Hz)"
./build/examples/fft-test-signal

echo "== clfft-bench (one in-place forward transform, checked against FFTW)"
for size in "1024 1 256" "1000 1 256" "4096 1 64" "65536 1 4" "1920 1080 1"; do
  ./build/tests/bench/clfft-bench --check $size 10
done

#!/bin/bash
# run-fuzz.sh: builds the file-loader fuzzers with clang (libFuzzer, ASan, UBSan) and runs each for a bounded time.
#
# Usage: tests/fuzz/run-fuzz.sh [SECONDS_PER_TARGET]   (default 60)
#   FUZZ_BUILD=dir   where to build and keep the grown corpora and crash
#                    inputs (default build-fuzz, in the source tree)
#   FUZZ_TARGETS="kernel-image impulse-response"   which targets to run
# Needs no meson: it compiles the loaders, the FFT core they link against
# and the targets directly. Seeds come from tests/fuzz/corpus-*/ (read
# only); what libFuzzer finds goes to $FUZZ_BUILD/corpus-*/, crashes to
# $FUZZ_BUILD/artifacts/. Exits non-zero if any target finds a crash, a
# leak, an invalid access or a broken loader invariant.
set -u
cd "$(dirname "$0")/../.."
SECONDS_PER_TARGET=${1:-60}
BUILD=${FUZZ_BUILD:-build-fuzz}
TARGETS=${FUZZ_TARGETS:-"kernel-image impulse-response"}

CC=${CC:-}
if [ -z "$CC" ]; then
  for c in clang clang-16 clang-15 clang-14; do
    if command -v "$c" >/dev/null; then CC=$c; break; fi
  done
fi
have_libfuzzer() {
  [ -n "$CC" ] && echo 'int LLVMFuzzerTestOneInput(const char*d,long n){return 0;}' |
    "$CC" -x c -fsanitize=fuzzer - -o /dev/null 2>/dev/null
}
if ! have_libfuzzer; then
  echo "run-fuzz: installing clang and libFuzzer" >&2
  SUDO=; [ "$(id -u)" != 0 ] && SUDO=sudo
  $SUDO apt-get install -y clang libclang-rt-14-dev >&2 || exit 1
  CC=clang
  have_libfuzzer || { echo "run-fuzz: clang cannot link libFuzzer" >&2; exit 1; }
fi

mkdir -p "$BUILD/artifacts" || exit 1
PKGS="gstreamer-1.0 gstreamer-audio-1.0 sndfile libpng OpenCL"
PKG_CFLAGS=$(pkg-config --cflags $PKGS) || exit 1
PKG_LIBS=$(pkg-config --libs $PKGS) || exit 1
# The loaders see the same defines as in the plugin build.
CFLAGS="-g -O1 -fno-omit-frame-pointer -DHAVE_SNDFILE -DHAVE_LIBPNG
  -DCL_TARGET_OPENCL_VERSION=120 -Iocl -Igst -I$BUILD $PKG_CFLAGS"
SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined"

python3 kernels/embed-kernels.py "$BUILD/clf-kernels-embedded.c" \
  kernels/*.cl || exit 1
for t in $TARGETS; do
  echo "run-fuzz: building fuzz-$t with $CC" >&2
  # shellcheck disable=SC2086
  "$CC" $CFLAGS $SAN -fsanitize=fuzzer -o "$BUILD/fuzz-$t" \
    "tests/fuzz/fuzz-$t.c" gst/gstclfftkernelfile.c \
    gst/gstclfftconvolveaudio.c ocl/clf-*.c "$BUILD/clf-kernels-embedded.c" \
    $PKG_LIBS -lm -lpthread || exit 1
done

status=0
for t in $TARGETS; do
  case $t in
    kernel-image) seeds=tests/fuzz/corpus-kernel ;;
    impulse-response) seeds=tests/fuzz/corpus-ir ;;
    *) echo "run-fuzz: unknown target $t" >&2; exit 2 ;;
  esac
  work="$BUILD/corpus-$t"
  mkdir -p "$work"
  echo "run-fuzz: fuzz-$t for ${SECONDS_PER_TARGET}s" >&2
  # -rss_limit_mb also bounds single allocations: a small file must not
  # make a loader ask for gigabytes. detect_leaks: every input's memory
  # must come back.
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$BUILD/fuzz-$t" -max_total_time="$SECONDS_PER_TARGET" -timeout=20 \
    -rss_limit_mb=2048 -malloc_limit_mb=512 -print_final_stats=1 \
    -artifact_prefix="$BUILD/artifacts/$t-" "$work" "$seeds" \
    > "$BUILD/fuzz-$t.log" 2>&1
  rc=$?
  tail -n 15 "$BUILD/fuzz-$t.log" >&2
  if [ $rc -ne 0 ]; then
    echo "run-fuzz: fuzz-$t FAILED (rc $rc), see $BUILD/fuzz-$t.log and" \
      "$BUILD/artifacts/" >&2
    status=1
  else
    echo "run-fuzz: fuzz-$t ok" >&2
  fi
done
exit $status

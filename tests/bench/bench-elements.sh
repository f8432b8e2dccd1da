#!/bin/bash
# bench-elements.sh: whole-pipeline throughput of the clfft elements beside
# the source alone and GStreamer's own CPU elements, in one run.
# usage: bench-elements.sh BUILD_DIR [--quick]
# CLFFT_DEVICE picks the device (default: first GPU, else PoCL); ONLY=video
# or ONLY=audio runs those rows alone; SIZES picks the video sizes
# (default "1920x1080 3840x2160"), SHAPES the blur kernels (default
# gaussian; e.g. "gaussian disk"); ROUNDS=N runs the spectrum against
# clfftspectrum rows N times, alternating, and prints each round's ratio
# and their median (the CPU's speed drifts between minutes; take N odd).
set -u
build=$(cd "${1:?build dir}" && pwd)
quick=${2:-}
export GST_PLUGIN_PATH=$build/gst
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# ms a pipeline takes, start-up included; -1 where it failed
ms () {
  local s e
  s=$(date +%s%N)
  gst-launch-1.0 -q "$@" >/dev/null 2>"$tmp/err" || { echo "FAILED: $*" >&2; cat "$tmp/err" >&2; echo -1; return; }
  e=$(date +%s%N)
  echo $(( (e - s) / 1000000 ))
}

# amount per second in thousandths, of an amount and milliseconds
rate_milli () {
  echo $(( $1 * 1000 * 1000 / ($2 > 0 ? $2 : 1) ))
}

# rate: amount per second, with three decimals
rate () {
  local r=$(rate_milli "$1" "$2")
  printf '%d.%03d' $((r / 1000)) $((r % 1000))
}

# One row: name, amount, unit, then a pipeline with @N@ where the number
# of buffers goes, N buffers being the whole amount. The pipeline runs once
# with a tenth of the buffers to warm up (kernels built and cached), once
# more so, and once whole: "steady" is the rate between the last two, free
# of the start-up (device context, cached kernels) that a whole run
# includes. "source alone" is the same difference for the source, measured
# once per source.
declare -A alone_small alone_whole
row () {
  local name=$1 amount=$2 unit=$3 n=$4 src=$5 rest=$6
  local small=$(( n / 10 > 0 ? n / 10 : 1 ))
  local part=$(( amount * small / n ))
  ms ${src//@N@/$small} ! $rest >/dev/null
  local t1=$(ms ${src//@N@/$small} ! $rest)
  local t=$(ms ${src//@N@/$n} ! $rest)
  if [ -z "${alone_whole[$src@$n]:-}" ]; then
    alone_small[$src@$n]=$(ms ${src//@N@/$small} ! fakesink)
    alone_whole[$src@$n]=$(ms ${src//@N@/$n} ! fakesink)
  fi
  local s1=${alone_small[$src@$n]} s=${alone_whole[$src@$n]}
  # a failed run gives no rate (nor a ratio to other rows)
  if [ "$t1" -lt 0 ] || [ "$t" -lt 0 ] || [ "$s1" -lt 0 ] || [ "$s" -lt 0 ]; then
    steady_milli=0
    printf '| %s | %d %s | failed | | | |\n' "$name" "$amount" "$unit"
    return
  fi
  # the steady rate in thousandths, for ratios between rows
  steady_milli=$(rate_milli $((amount - part)) $((t - t1)))
  printf '| %s | %d %s | %d ms | %s %s/s | %s %s/s | %s %s/s |\n' "$name" "$amount" "$unit" "$t" \
    "$(rate $((amount - part)) $((t - t1)))" "$unit" "$(rate "$amount" "$t")" "$unit" \
    "$(rate $((amount - part)) $((s - s1)))" "$unit"
}

frames=${FRAMES:-300}
[ "$quick" = "--quick" ] && frames=10
echo "device: $("$build/tools/gst-clfft-devices" 2>/dev/null | grep -E '^ *[*][[:space:]]+[0-9]+:' || echo "${CLFFT_DEVICE:-default}")"
echo
echo "| pipeline | amount | time | steady throughput | whole run | source alone (steady) |"
echo "| --- | --- | --- | --- | --- | --- |"

only=${ONLY:-all}

[ "$only" != audio ] && for size in ${SIZES:-1920x1080 3840x2160}; do
  w=${size%x*}; h=${size#*x}
  caps="video/x-raw,format=RGBA,width=$w,height=$h,framerate=30/1"
  # one frame repeated by imagefreeze, no pixels written per frame: at
  # 1080p videotestsrc alone made 1000-1400 frames/s on the H100 machine,
  # about the element's rate, so it bounded the rows (until session 8).
  # The queue gives the source its own thread, beside the element.
  src="videotestsrc pattern=black num-buffers=1 ! $caps ! imagefreeze num-buffers=@N@ ! queue max-size-buffers=4"
  # frames come back to system memory: fakesink alone would take them in
  # device memory (memory:CLFFTBuffer) and the download would not be timed
  sink="video/x-raw ! fakesink"
  for shape in ${SHAPES:-gaussian}; do
    # rows of the default shape keep their names of earlier sessions
    tag=; [ "$shape" != gaussian ] && tag=" $shape"
    conv="clfftconvolve kernel-shape=$shape"
    for r in 4 60 1000; do
      row "clfftconvolve $size RGBA$tag radius=$r" "$frames" frames "$frames" "$src" "$conv radius=$r ! $sink"
    done
    # frame-overlap: each frame's upload and download beside the previous
    # frame's convolution (one frame of latency)
    for r in 4 60 1000; do
      row "clfftconvolve $size RGBA$tag radius=$r frame-overlap" "$frames" frames "$frames" "$src" "$conv radius=$r frame-overlap=true ! $sink"
    done
  done
done

# GStreamer's own CPU blur (gst-plugins-bad), where installed: AYUV only,
# sigma at most 20, a few frames are enough at about 1 s each
if [ "$only" != audio ] && gst-inspect-1.0 gaussianblur >/dev/null 2>&1; then
  gframes=$(( frames < 10 ? frames : 10 ))
  gsrc="videotestsrc pattern=black num-buffers=@N@ ! video/x-raw,format=AYUV,width=1920,height=1080,framerate=0/1"
  row "gaussianblur 1920x1080 AYUV sigma=20" "$gframes" frames "$gframes" "$gsrc" "gaussianblur sigma=20 ! fakesink"
fi

[ "$only" = video ] && exit 0

secs_audio=${AUDIO_SECONDS:-600}
[ "$quick" = "--quick" ] && secs_audio=5
nbuf=$(( secs_audio * 10 ))
# white noise made once and read back from a file: audiotestsrc's noise
# costs about as much as spectrum itself, so as the source it would cap
# both elements near its own rate
acaps="audio/x-raw,format=F32LE,rate=48000,channels=2"
gst-launch-1.0 -q audiotestsrc wave=white-noise samplesperbuffer=4800 num-buffers=$nbuf ! $acaps ! filesink location="$tmp/noise.raw"
# (the queue before the parser makes it push 100 ms buffers: pulling, it
# reads 64 KiB at a time whatever filesrc's blocksize)
asrc="filesrc location=$tmp/noise.raw blocksize=38400 num-buffers=@N@ ! queue max-size-buffers=8 ! rawaudioparse format=pcm pcm-format=f32le sample-rate=48000 num-channels=2"
# The spectrum row of bands $1 (properties $2), then clfftspectrum's:
# clfftspectrum's steady rate over spectrum's, in thousandths, in
# pair_milli
spectrum_pair () {
  row "spectrum bands=$1 stereo 48 kHz" "$secs_audio" s "$nbuf" "$asrc" "spectrum $2! fakesink"
  local base=$steady_milli
  row "clfftspectrum bands=$1 stereo 48 kHz" "$secs_audio" s "$nbuf" "$asrc" "clfftspectrum $2! fakesink"
  pair_milli=$(( base > 0 ? steady_milli * 1000 / base : 0 ))
}
# each pair back to back, ROUNDS times
ratios_1024=() ratios_128=()
rounds=${ROUNDS:-1}
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || rounds=1
for ((round = 1; round <= rounds; round++)); do
  spectrum_pair 1024 "bands=1024 "
  ratios_1024+=($pair_milli)
  # spectrum's default bands=128: 254-point FFTs, through Bluestein
  spectrum_pair 128 ""
  ratios_128+=($pair_milli)
done
# messages from the element's own thread: the next buffers' work overlaps
# the device's round trip (README, "clfftspectrum")
row "clfftspectrum async-messages=true" "$secs_audio" s "$nbuf" "$asrc" "clfftspectrum bands=1024 async-messages=true ! fakesink"
# on PoCL, also through its single-threaded basic driver, which runs each
# command in the calling thread (README, "Choosing the device")
if "$build/tools/gst-clfft-devices" 2>/dev/null | grep -q '^ \* .*Portable Computing Language / pthread'; then
  (export POCL_DEVICES="pthread basic"
    row "clfftspectrum device=basic (PoCL's basic driver)" "$secs_audio" s "$nbuf" "$asrc" "clfftspectrum device=basic bands=1024 ! fakesink")
fi

# a 10 s impulse response, stereo 48 kHz
gst-launch-1.0 -q audiotestsrc wave=white-noise volume=0.1 samplesperbuffer=4800 num-buffers=100 ! audio/x-raw,format=F32LE,rate=48000,channels=2 ! wavenc ! filesink location="$tmp/ir.wav"
row "clfftconvolve 10 s IR stereo 48 kHz" "$secs_audio" s "$nbuf" "$asrc" "clfftconvolve ir-location=$tmp/ir.wav ! fakesink"

# a ratio in thousandths as "2.01x"
ratio () {
  printf '%d.%02dx' $(($1 / 1000)) $(($1 % 1000 / 10))
}
# ratios in thousandths as "2.01x, 1.95x, 2.40x (median 2.01x)"; of an
# even count, the lower of the middle two; 0 (a failed row) as "failed",
# left out of the median
ratio_list () {
  local out="" v sorted=()
  for v in "$@"; do
    if [ "$v" -gt 0 ]; then
      out+="${out:+, }$(ratio "$v")"
      sorted+=("$v")
    else
      out+="${out:+, }failed"
    fi
  done
  if [ ${#sorted[@]} -eq 0 ]; then
    printf '%s (no median)' "$out"
    return
  fi
  sorted=($(printf '%s\n' "${sorted[@]}" | sort -n))
  printf '%s (median %s)' "$out" "$(ratio "${sorted[$(( (${#sorted[@]} - 1) / 2 ))]}")"
}
echo
echo "clfftspectrum / spectrum, steady throughput by round:"
echo "- bands=1024: $(ratio_list "${ratios_1024[@]}")"
echo "- bands=128: $(ratio_list "${ratios_128[@]}")"

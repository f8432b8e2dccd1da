#!/bin/bash
# bench-elements.sh: whole-pipeline throughput of the clfft elements beside
# the source alone and GStreamer's own CPU elements, in one run.
# usage: bench-elements.sh BUILD_DIR [--quick]
# CLFFT_DEVICE picks the device (default: first GPU, else PoCL).
set -u
build=$(cd "${1:?build dir}" && pwd)
quick=${2:-}
export GST_PLUGIN_PATH=$build/gst
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# seconds a pipeline takes, to the millisecond
secs () {
  local s e
  s=$(date +%s%N)
  gst-launch-1.0 -q "$@" >/dev/null 2>"$tmp/err" || { echo "FAILED: $*" >&2; cat "$tmp/err" >&2; echo 0; return; }
  e=$(date +%s%N)
  echo $(( (e - s) / 1000000 ))
}

row () {  # name, frames or audio seconds, unit, ms with element, ms source alone
  local rate=$(( $2 * 1000 * 1000 / ($4 > 0 ? $4 : 1) ))
  local src=$(( $2 * 1000 * 1000 / ($5 > 0 ? $5 : 1) ))
  printf '| %s | %d %s | %d ms | %d.%03d %s/s | %d.%03d %s/s |\n' "$1" "$2" "$3" "$4" \
    $((rate / 1000)) $((rate % 1000)) "$3" $((src / 1000)) $((src % 1000)) "$3"
}

frames=${FRAMES:-300}
[ "$quick" = "--quick" ] && frames=10
echo "device: $("$build/tools/gst-clfft-devices" 2>/dev/null | grep -E '^ *[*][[:space:]]+[0-9]+:' || echo "${CLFFT_DEVICE:-default}")"
echo
echo "| pipeline | amount | time | throughput | source alone |"
echo "| --- | --- | --- | --- | --- |"

for size in 1920x1080 3840x2160; do
  w=${size%x*}; h=${size#*x}
  caps="video/x-raw,format=RGBA,width=$w,height=$h,framerate=0/1"
  src="videotestsrc pattern=black num-buffers=$frames ! $caps"
  # frames come back to system memory: fakesink alone would take them in
  # device memory (memory:CLFFTBuffer) and the download would not be timed
  sink="video/x-raw ! fakesink"
  # warm up: plans and kernels are built and cached once
  secs $src ! clfftconvolve radius=4 ! $sink >/dev/null
  alone=$(secs $src ! fakesink)
  for r in 4 60 1000; do
    [ "$size" = 3840x2160 ] && [ "$r" != 60 ] && continue
    row "clfftconvolve $size RGBA radius=$r" "$frames" frames "$(secs $src ! clfftconvolve radius=$r ! $sink)" "$alone"
  done
done

# GStreamer's own CPU blur (gst-plugins-bad), where installed: AYUV only,
# sigma at most 20, a few frames are enough at about 1 s each
if gst-inspect-1.0 gaussianblur >/dev/null 2>&1; then
  gframes=$(( frames < 5 ? frames : 5 ))
  gsrc="videotestsrc pattern=black num-buffers=$gframes ! video/x-raw,format=AYUV,width=1920,height=1080,framerate=0/1"
  row "gaussianblur 1920x1080 AYUV sigma=20" "$gframes" frames "$(secs $gsrc ! gaussianblur sigma=20 ! fakesink)" "$(secs $gsrc ! fakesink)"
fi

secs_audio=${AUDIO_SECONDS:-60}
[ "$quick" = "--quick" ] && secs_audio=5
nbuf=$(( secs_audio * 10 ))
asrc="audiotestsrc wave=white-noise samplesperbuffer=4800 num-buffers=$nbuf ! audio/x-raw,format=F32LE,rate=48000,channels=2"
alone=$(secs $asrc ! fakesink)
secs $asrc ! clfftspectrum bands=1024 ! fakesink >/dev/null
row "spectrum bands=1024 stereo 48 kHz" "$secs_audio" "s" "$(secs $asrc ! spectrum bands=1024 ! fakesink)" "$alone"
row "clfftspectrum bands=1024 stereo 48 kHz" "$secs_audio" "s" "$(secs $asrc ! clfftspectrum bands=1024 ! fakesink)" "$alone"

# a 10 s impulse response, stereo 48 kHz
gst-launch-1.0 -q audiotestsrc wave=white-noise volume=0.1 samplesperbuffer=4800 num-buffers=100 ! audio/x-raw,format=F32LE,rate=48000,channels=2 ! wavenc ! filesink location="$tmp/ir.wav"
secs $asrc ! clfftconvolve ir-location="$tmp/ir.wav" ! fakesink >/dev/null
row "clfftconvolve 10 s IR stereo 48 kHz" "$secs_audio" "s" "$(secs $asrc ! clfftconvolve ir-location="$tmp/ir.wav" ! fakesink)" "$alone"

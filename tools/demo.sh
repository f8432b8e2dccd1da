#!/bin/bash
# demo.sh: installs what is missing, builds into build/ and runs the demos
# on the default OpenCL device (PoCL on a machine without a GPU); the
# pictures land in out/.
set -eu
cd "$(dirname "$0")/.."
./tools/install-deps.sh
[ -d build ] || meson setup build
ninja -C build

OUT=out
mkdir -p "$OUT"
export GST_PLUGIN_PATH=$PWD/build/gst
# Debian's PyGObject belongs to Debian's python, whatever python3 is first
# on PATH
PYTHON=/usr/bin/python3

echo "== OpenCL devices (the one marked * is the elements' default)"
./build/tools/gst-clfft-devices

echo "== FFT of a test signal (tones at 440, 1000 and 12345 Hz)"
./build/examples/fft-test-signal

echo "== clfft-bench (one in-place forward transform, checked against FFTW)"
for size in "1024 1 256" "1000 1 256" "4096 1 64" "65536 1 4" "1920 1080 1"; do
  ./build/tests/bench/clfft-bench --check $size 10
done

echo "== the README's gst-launch-1.0 lines, run as written in $OUT/"
# what the reverb line reads: clicks (dry.wav) and a synthetic hall, 1.2 s
# of exponentially decaying noise with a direct sound (hall.wav)
gst-launch-1.0 -q audiotestsrc wave=ticks tick-interval=500000000 freq=1200 \
  num-buffers=130 ! audio/x-raw,rate=44100,channels=1 ! wavenc \
  ! filesink location="$OUT/dry.wav"
$PYTHON - "$OUT/hall.wav" <<'PY'
import math, random, struct, sys, wave
rate, n = 44100, int(1.2 * 44100)
random.seed(7)
ir = [0.0] * n
ir[0] = 0.8
for i in range(1, n):
    ir[i] = 0.25 * random.gauss(0, 1) * math.exp(-i / (0.3 * rate))
with wave.open(sys.argv[1], "wb") as w:
    w.setnchannels(1)
    w.setsampwidth(2)
    w.setframerate(rate)
    w.writeframes(b"".join(struct.pack("<h", int(max(-1, min(1, v)) * 32767))
                           for v in ir))
PY
# and the photo-like picture the photo line reads
./build/tools/demo-photo "$OUT/photo.png"
mapfile -t lines < <(grep '^gst-launch-1.0 ' README.md)
for line in "${lines[@]}"; do
  echo "\$ $line"
  if ! (cd "$OUT" && eval "$line") > "$OUT/pipeline.log" 2>&1; then
    cat "$OUT/pipeline.log"
    echo "FAILED: $line"
    exit 1
  fi
  echo "   ok ($(wc -l < "$OUT/pipeline.log") lines of output)"
done
rm -f "$OUT/pipeline.log"

echo "== examples"
./build/examples/blur-appsrc 40
./build/examples/spectrum-bars --seconds 2 --bands 32
if $PYTHON -c 'import gi; gi.require_version("Gst", "1.0")' 2>/dev/null; then
  $PYTHON examples/spectrum-bars.py --seconds 1 --bands 32 --no-sync
else
  echo "(spectrum-bars.py skipped: python3-gi and gir1.2-gstreamer-1.0 are missing)"
fi

echo "== pictures in $OUT/"
# labels: textoverlay, from gstreamer1.0-x
label='valignment=top halignment=left shaded-background=true font-desc="Sans Bold 16"'
# a test image and the photo-like one, blurred at several radii side by side
eval gst-launch-1.0 -q compositor name=mix background=black \
  sink_1::xpos=320 sink_2::xpos=640 sink_3::xpos=960 \
  ! videoconvert ! pngenc ! filesink location="$OUT/blur-testsrc.png" \
  videotestsrc num-buffers=1 pattern=smpte \
  ! video/x-raw,format=RGBA,width=320,height=240 ! tee name=t \
  t. ! queue ! textoverlay text=\"input\" "$label" ! mix.sink_0 \
  t. ! queue ! clfftconvolve radius=4 ! textoverlay text=\"radius 4\" "$label" ! mix.sink_1 \
  t. ! queue ! clfftconvolve radius=16 ! textoverlay text=\"radius 16\" "$label" ! mix.sink_2 \
  t. ! queue ! clfftconvolve radius=48 ! textoverlay text=\"radius 48\" "$label" ! mix.sink_3
eval gst-launch-1.0 -q compositor name=mix background=black \
  sink_1::xpos=640 sink_2::ypos=426 sink_3::xpos=640 sink_3::ypos=426 \
  ! videoconvert ! pngenc ! filesink location="$OUT/blur-photo.png" \
  filesrc location="$OUT/photo.png" ! pngdec ! videoconvert \
  ! video/x-raw,format=RGBA ! tee name=t \
  t. ! queue ! textoverlay text=\"input\" "$label" ! mix.sink_0 \
  t. ! queue ! clfftconvolve radius=3 ! textoverlay text=\"radius 3\" "$label" ! mix.sink_1 \
  t. ! queue ! clfftconvolve radius=10 ! textoverlay text=\"radius 10\" "$label" ! mix.sink_2 \
  t. ! queue ! clfftconvolve kernel-shape=disk radius=30 ! textoverlay text=\"disk, radius 30\" "$label" ! mix.sink_3
# frames beside their 2D spectra (log magnitude, DC in the middle)
eval gst-launch-1.0 -q compositor name=mix background=black \
  sink_1::xpos=640 sink_2::ypos=426 sink_3::xpos=640 sink_3::ypos=426 \
  ! videoconvert ! pngenc ! filesink location="$OUT/spectrum-2d.png" \
  filesrc location="$OUT/photo.png" ! pngdec ! videoconvert \
  ! video/x-raw,format=GRAY8 ! tee name=t \
  t. ! queue ! textoverlay text=\"frame\" "$label" ! mix.sink_0 \
  t. ! queue ! clfftspectrum threshold=-100 \
  ! textoverlay text=\"its 2D spectrum, threshold -100 dB\" "$label" ! mix.sink_1 \
  videotestsrc num-buffers=1 pattern=zone-plate kx2=80 ky2=80 \
  ! video/x-raw,format=GRAY8,width=640,height=426,framerate=0/1 ! tee name=z \
  z. ! queue ! textoverlay text=\"zone plate\" "$label" ! mix.sink_2 \
  z. ! queue ! clfftspectrum threshold=-80 \
  ! textoverlay text=\"its 2D spectrum, threshold -80 dB\" "$label" ! mix.sink_3
# an audio spectrum over time, from clfftspectrum's messages
./build/examples/spectrogram-png "$OUT/spectrogram.png"

ls -l "$OUT"/*.png

#!/usr/bin/python3
# spectrum-bars.py: reads clfftspectrum's `spectrum` messages with PyGObject and prints a live text bar graph of a frequency sweep.
#
# Needs python3-gi and gir1.2-gstreamer-1.0 (Debian), and the plugin on
# GST_PLUGIN_PATH (e.g. GST_PLUGIN_PATH=build/gst). message-format=array
# makes the levels a GstValueArray, which Gst.Structure.get_array() hands
# to Python without gst-python's overrides (a GstValueList cannot be read
# without them).
import argparse
import sys
import warnings

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstController", "1.0")
from gi.repository import GLib, Gst, GstController  # noqa: E402

RATE = 44100
SAMPLES_PER_BUFFER = 1024
MIN_FREQ = 100.0
BLOCKS = " \u2581\u2582\u2583\u2584\u2585\u2586\u2587\u2588"


def band_frequency(b, n):
    """Centre of band b on clfftspectrum's log scale (last band at Nyquist)."""
    return MIN_FREQ * (RATE / 2.0 / MIN_FREQ) ** (b / (n - 1))


def levels(structure):
    """The magnitude field (dB per band) as a list of floats."""
    ok, array = structure.get_array("magnitude")
    if not ok:
        return []
    with warnings.catch_warnings():
        # GValueArray is deprecated in GLib but is what get_array returns
        warnings.simplefilter("ignore", DeprecationWarning)
        return [array.get_nth(i) for i in range(array.n_values)]


def add_sweep(src, seconds):
    """Sweeps the source from 150 Hz to 12 kHz, evenly on a log scale."""
    cs = GstController.InterpolationControlSource()
    cs.set_property("mode", GstController.InterpolationMode.LINEAR)
    points = 32
    for k in range(points + 1):
        cs.set(int(seconds * Gst.SECOND * k / points),
               150.0 * (12000.0 / 150.0) ** (k / points))
    src.add_control_binding(
        GstController.DirectControlBinding.new_absolute(src, "freq", cs))


def main():
    parser = argparse.ArgumentParser(
        description="Live text bar graph of clfftspectrum messages")
    parser.add_argument("--seconds", type=int, default=3)
    parser.add_argument("--bands", type=int, default=24)
    parser.add_argument("--no-sync", action="store_true",
                        help="run as fast as possible, not in real time")
    args = parser.parse_args()
    bands = min(max(args.bands, 2), 64)
    seconds = max(args.seconds, 1)

    Gst.init(None)
    try:
        pipeline = Gst.parse_launch(
            "audiotestsrc name=src num-buffers=%d samplesperbuffer=%d ! "
            "audio/x-raw,rate=%d,channels=1 ! "
            "clfftspectrum name=spectrum bands=%d frequency-scale=log "
            "min-frequency=%g interval=50000000 message-format=array ! "
            "fakesink sync=%s"
            % (seconds * RATE // SAMPLES_PER_BUFFER, SAMPLES_PER_BUFFER,
               RATE, bands, MIN_FREQ, "false" if args.no_sync else "true"))
    except GLib.Error as e:
        sys.exit("cannot build the pipeline: %s (is GST_PLUGIN_PATH set to "
                 "the build's gst folder?)" % e.message)
    add_sweep(pipeline.get_by_name("src"), seconds)
    threshold = pipeline.get_by_name("spectrum").get_property("threshold")

    loop = GLib.MainLoop()
    status = [0]

    def on_message(bus, msg):
        if msg.type == Gst.MessageType.ELEMENT:
            s = msg.get_structure()
            if s.get_name() != "spectrum":
                return
            db = levels(s)
            ok, ts = s.get_clock_time("timestamp")
            peak = max(range(len(db)), key=lambda i: db[i])
            bars = "".join(
                BLOCKS[round(min(max((v - threshold) / -threshold, 0), 1)
                             * 8)] for v in db)
            print("%6.2f s |%s| peak %6.0f Hz %6.1f dB"
                  % (ts / Gst.SECOND, bars, band_frequency(peak, len(db)),
                     db[peak]), flush=True)
        elif msg.type == Gst.MessageType.ERROR:
            error, debug = msg.parse_error()
            print("error from %s: %s\n%s" % (msg.src.get_name(),
                                             error.message, debug or ""),
                  file=sys.stderr)
            status[0] = 1
            loop.quit()
        elif msg.type == Gst.MessageType.EOS:
            loop.quit()

    bus = pipeline.get_bus()
    bus.add_signal_watch()
    bus.connect("message", on_message)
    print("%d log-spaced bands, %.0f Hz to %.0f Hz; each bar from %d dB to "
          "0 dB" % (bands, MIN_FREQ, RATE / 2.0, threshold))
    # a failure to start posts an error too, which ends the loop
    pipeline.set_state(Gst.State.PLAYING)
    loop.run()
    pipeline.set_state(Gst.State.NULL)
    bus.remove_signal_watch()
    return status[0]


if __name__ == "__main__":
    sys.exit(main())

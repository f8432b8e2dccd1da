#!/usr/bin/env python3
"""make-corpus.py: writes the seed corpora of the file-loader fuzzers.

tests/fuzz/corpus-kernel/: kernel images for clfftconvolve's kernel-location
(PNG of every colour type and bit depth, interlaced ones, PGM P2/P5, and
broken, truncated and oversized variants); tests/fuzz/corpus-ir/: impulse
response files for ir-location (WAV of several sample formats and channel
counts, AU, AIFF, and broken ones). Deterministic: running it again
rewrites the same bytes. The FLAC seed comes from GStreamer's flacenc when
gst-launch-1.0 is available and is kept otherwise.
"""
import math
import os
import shutil
import struct
import subprocess
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
KDIR = os.path.join(HERE, 'corpus-kernel')
IDIR = os.path.join(HERE, 'corpus-ir')

# ---- PNG ------------------------------------------------------------------

ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4),
         (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}


def chunk(kind, data):
    body = kind + data
    return struct.pack('>I', len(data)) + body + struct.pack(
        '>I', zlib.crc32(body) & 0xffffffff)


def pack_row(samples, depth):
    """Samples (ints) of one row, packed MSB first at depth bits."""
    if depth == 16:
        return b''.join(struct.pack('>H', s) for s in samples)
    if depth == 8:
        return bytes(samples)
    out, acc, bits = bytearray(), 0, 0
    for s in samples:
        acc = (acc << depth) | s
        bits += depth
        if bits == 8:
            out.append(acc)
            acc, bits = 0, 0
    if bits:
        out.append(acc << (8 - bits))
    return bytes(out)


def png(width, height, colour, depth, pixels, interlace=0, extra=(),
        filt=0):
    """pixels[y][x] is a tuple of CHANNELS[colour] samples."""
    ch = CHANNELS[colour]
    raw = bytearray()
    passes = ADAM7 if interlace else [(0, 0, 1, 1)]
    for x0, y0, dx, dy in passes:
        xs = range(x0, width, dx)
        for y in range(y0, height, dy):
            if not xs:
                continue
            samples = [s for x in xs for s in pixels[y][x]]
            raw.append(filt)
            row = pack_row(samples, depth)
            if filt == 1:  # Sub, on whole bytes
                bpp = max(1, ch * depth // 8)
                row = bytes((row[i] - (row[i - bpp] if i >= bpp else 0))
                            & 0xff for i in range(len(row)))
            raw += row
    ihdr = struct.pack('>IIBBBBB', width, height, depth, colour, 0, 0,
                       interlace)
    out = b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', ihdr)
    for kind, data in extra:
        out += chunk(kind, data)
    out += chunk(b'IDAT', zlib.compress(bytes(raw), 9))
    out += chunk(b'IEND', b'')
    return out


def grid(width, height, ch, maxval, seed):
    v = seed
    rows = []
    for y in range(height):
        row = []
        for x in range(width):
            px = []
            for c in range(ch):
                v = (v * 1103515245 + 12345) & 0x7fffffff
                px.append(v % (maxval + 1))
            row.append(tuple(px))
        rows.append(row)
    return rows


def kernel_corpus():
    files = {}
    for depth in (1, 2, 4, 8, 16):
        files['grey%d-5x3.png' % depth] = png(
            5, 3, 0, depth, grid(5, 3, 1, (1 << depth) - 1, depth))
    files['grey8-1x1.png'] = png(1, 1, 0, 8, [[(200,)]])
    files['rgb8-4x3.png'] = png(4, 3, 2, 8, grid(4, 3, 3, 255, 7))
    files['rgb16-2x2.png'] = png(2, 2, 2, 16, grid(2, 2, 3, 65535, 8))
    files['rgba8-3x3.png'] = png(3, 3, 6, 8, grid(3, 3, 4, 255, 9))
    files['rgba16-2x3.png'] = png(2, 3, 6, 16, grid(2, 3, 4, 65535, 10))
    files['greyalpha8-3x2.png'] = png(3, 2, 4, 8, grid(3, 2, 2, 255, 11))
    files['greyalpha16-2x2.png'] = png(2, 2, 4, 16, grid(2, 2, 2, 65535, 12))
    plte = bytes(range(0, 48))
    files['palette4-3x3.png'] = png(3, 3, 3, 4, grid(3, 3, 1, 15, 13),
                                    extra=[(b'PLTE', plte)])
    files['palette8-trns-4x2.png'] = png(
        4, 2, 3, 8, grid(4, 2, 1, 15, 14),
        extra=[(b'PLTE', plte), (b'tRNS', bytes([0, 128, 255]))])
    files['palette1-9x2.png'] = png(9, 2, 3, 1, grid(9, 2, 1, 1, 15),
                                    extra=[(b'PLTE', bytes([0, 0, 0, 255, 255,
                                                            255]))])
    files['grey8-trns-3x3.png'] = png(3, 3, 0, 8, grid(3, 3, 1, 255, 16),
                                      extra=[(b'tRNS', b'\x00\x10')])
    # interlaced images with non-interlaced twins of the same pixels
    files['grey8-7x5.png'] = png(7, 5, 0, 8, grid(7, 5, 1, 255, 17))
    files['rgb8-9x9.png'] = png(9, 9, 2, 8, grid(9, 9, 3, 255, 18))
    files['grey8-interlaced-7x5.png'] = png(7, 5, 0, 8,
                                            grid(7, 5, 1, 255, 17),
                                            interlace=1)
    files['rgb8-interlaced-9x9.png'] = png(9, 9, 2, 8, grid(9, 9, 3, 255, 18),
                                           interlace=1)
    files['grey2-interlaced-3x10.png'] = png(3, 10, 0, 2,
                                             grid(3, 10, 1, 3, 19),
                                             interlace=1)
    files['grey8-subfilter-6x2.png'] = png(6, 2, 0, 8, grid(6, 2, 1, 255, 20),
                                           filt=1)
    good = files['grey8-1x1.png']
    files['png-truncated.png'] = files['rgb8-4x3.png'][:45]
    files['png-signature-only.png'] = good[:8]
    bad_crc = bytearray(files['grey8-trns-3x3.png'])
    bad_crc[29] ^= 0xff  # inside IHDR's CRC
    files['png-bad-crc.png'] = bytes(bad_crc)
    # dimensions past the loader's limit, and no image data at all
    files['png-huge.png'] = b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack(
        '>IIBBBBB', 4096, 4097, 8, 0, 0, 0, 0)) + chunk(b'IEND', b'')
    files['png-4096x4096-no-data.png'] = b'\x89PNG\r\n\x1a\n' + chunk(
        b'IHDR', struct.pack('>IIBBBBB', 4096, 4096, 8, 0, 0, 0, 0)) + chunk(
        b'IDAT', zlib.compress(b'\x00' * 100)) + chunk(b'IEND', b'')
    files['png-zero-width.png'] = b'\x89PNG\r\n\x1a\n' + chunk(
        b'IHDR', struct.pack('>IIBBBBB', 0, 3, 8, 0, 0, 0, 0)) + chunk(
        b'IEND', b'')
    files['png-bad-depth.png'] = b'\x89PNG\r\n\x1a\n' + chunk(
        b'IHDR', struct.pack('>IIBBBBB', 2, 2, 3, 0, 0, 0, 0)) + chunk(
        b'IDAT', zlib.compress(b'\x00\x00\x00\x00')) + chunk(b'IEND', b'')

    files['p5-8bit-3x3.pgm'] = b'P5\n3 3\n255\n' + bytes(range(10, 19))
    files['p5-16bit-4x3.pgm'] = b'P5 4 3 65535\n' + b''.join(
        struct.pack('>H', 5000 * i) for i in range(12))
    files['p2-comment-3x2.pgm'] = b'P2\n# kernel\n3 2 # size\n9\n1 2 3\n4 5 9\n'
    files['p2-maxval1-2x2.pgm'] = b'P2 2 2 1 0 1 1 0'
    files['p2-above-maxval.pgm'] = b'P2 2 1 10 5 99\n'
    files['p5-truncated.pgm'] = b'P5 4 4 255\nabc'
    files['p2-too-few.pgm'] = b'P2 3 3 255 1 2 3 4'
    files['p5-huge.pgm'] = b'P5 100000 100000 255\n\0'
    files['p5-zero-height.pgm'] = b'P5 3 0 255\n'
    files['p5-maxval0.pgm'] = b'P5 1 1 0\n\0'
    files['p5-maxval-too-big.pgm'] = b'P5 1 1 65536\n\0\0'
    files['p5-no-separator.pgm'] = b'P5 1 1 255'
    files['p2-overflow.pgm'] = b'P2 1 1 255 99999999999999999999\n'
    files['p2-negative.pgm'] = b'P2 1 1 255 -5\n'
    files['not-an-image.txt'] = b'hello, world\n'
    files['empty'] = b''
    return files

# ---- audio ----------------------------------------------------------------


def wav(channels, rate, fmt, bits, samples, data_size=None, riff_size=None,
        extensible=False):
    """fmt 1 = PCM, 3 = IEEE float; samples interleaved, already scaled."""
    if fmt == 3:
        code = 'f' if bits == 32 else 'd'
        data = b''.join(struct.pack('<' + code, s) for s in samples)
    elif bits == 8:
        data = bytes((s + 128) & 0xff for s in samples)
    elif bits == 24:
        data = b''.join(struct.pack('<i', s)[:3] for s in samples)
    else:
        data = b''.join(struct.pack('<' + {16: 'h', 32: 'i'}[bits], s)
                        for s in samples)
    block = channels * bits // 8
    if extensible:
        fmt_chunk = struct.pack('<HHIIHHHHI16s', 0xfffe, channels, rate,
                                rate * block, block, bits, 22, bits, 0,
                                struct.pack('<H', fmt) + b'\x00\x00\x00\x00'
                                b'\x10\x00\x80\x00\x00\xaa\x00\x38\x9b\x71')
    else:
        fmt_chunk = struct.pack('<HHIIHH', fmt, channels, rate, rate * block,
                                block, bits)
    body = b'WAVE' + b'fmt ' + struct.pack('<I', len(fmt_chunk)) + fmt_chunk
    body += b'data' + struct.pack('<I', len(data) if data_size is None
                                  else data_size) + data
    return b'RIFF' + struct.pack('<I', len(body) if riff_size is None
                                 else riff_size) + body


def au_float(channels, rate, samples):
    data = b''.join(struct.pack('>f', s) for s in samples)
    return b'.snd' + struct.pack('>IIIII', 24, len(data), 6, rate,
                                 channels) + data


def ieee_extended(value):
    """80-bit IEEE extended (AIFF sample rate)."""
    exponent = int(math.floor(math.log2(value)))
    mantissa = int(value / 2 ** exponent * (1 << 63))
    return struct.pack('>HQ', exponent + 16383, mantissa)


def aiff(channels, rate, samples):
    data = b''.join(struct.pack('>h', s) for s in samples)
    frames = len(samples) // channels
    comm = struct.pack('>hIh', channels, frames, 16) + ieee_extended(rate)
    ssnd = struct.pack('>II', 0, 0) + data
    body = b'AIFF' + b'COMM' + struct.pack('>I', len(comm)) + comm
    body += b'SSND' + struct.pack('>I', len(ssnd)) + ssnd
    return b'FORM' + struct.pack('>I', len(body)) + body


def ir_corpus():
    decay = [0.9 * math.exp(-i / 3.0) * (1 if i % 2 == 0 else -1)
             for i in range(8)]
    files = {}
    files['pcm16-mono-8.wav'] = wav(1, 48000, 1, 16,
                                    [int(v * 32767) for v in decay])
    files['pcm16-stereo-5.wav'] = wav(2, 44100, 1, 16, [
        int(v * 20000) for v in decay[:5] for _ in range(2)])
    files['pcm8-mono-4.wav'] = wav(1, 8000, 1, 8, [100, -50, 25, -12])
    files['pcm24-mono-3.wav'] = wav(1, 96000, 1, 24, [4000000, -2000000, 1])
    files['pcm32-mono-2.wav'] = wav(1, 48000, 1, 32, [1 << 30, -(1 << 29)])
    files['float32-mono-6.wav'] = wav(1, 48000, 3, 32, decay[:6])
    files['float64-stereo-4.wav'] = wav(2, 48000, 3, 64, [
        v * s for v in decay[:4] for s in (1, -0.5)])
    files['float32-extensible-3ch.wav'] = wav(3, 48000, 3, 32, [
        v for v in decay[:2] for _ in range(3)], extensible=True)
    files['float32-nan.wav'] = wav(1, 48000, 3, 32,
                                   [0.5, float('nan'), 0.25])
    files['float32-inf.wav'] = wav(1, 48000, 3, 32,
                                   [float('inf'), 0.5, -float('inf')])
    files['float32-huge.wav'] = wav(1, 48000, 3, 64, [1e300, 0.5])
    files['pcm16-64ch-2.wav'] = wav(64, 48000, 1, 16,
                                    [i * 100 for i in range(128)])
    files['wav-zero-frames.wav'] = wav(1, 48000, 1, 16, [])
    files['wav-truncated-data.wav'] = wav(1, 48000, 1, 16, [1, 2, 3],
                                          data_size=2000)
    files['wav-huge-data-size.wav'] = wav(1, 48000, 1, 16, [1, 2, 3, 4],
                                          data_size=0xfffffff0,
                                          riff_size=0xfffffff8)
    files['wav-zero-channels.wav'] = wav(0, 48000, 1, 16, [])[:44] + \
        b'\x01\x00\x02\x00'
    files['wav-rate-zero.wav'] = wav(1, 0, 1, 16, [1000, 2000])
    files['wav-header-only.wav'] = wav(1, 48000, 1, 16, [5, 6, 7])[:36]
    files['au-float-mono-4.au'] = au_float(1, 16000, decay[:4])
    files['aiff-pcm16-stereo-3.aiff'] = aiff(2, 22050, [
        int(v * 30000) for v in decay[:3] for _ in range(2)])
    files['not-audio.txt'] = b'RIFF but not really\n'
    files['empty'] = b''
    return files


def flac_seeds(path, huge_path):
    """A short FLAC response from GStreamer's flacenc (kept if no gst),
    and a copy whose STREAMINFO claims 2^30 samples."""
    launch = shutil.which('gst-launch-1.0')
    if not launch:
        return
    subprocess.run([launch, '-q', 'audiotestsrc', 'num-buffers=1',
                    'samplesperbuffer=48', 'wave=ticks', '!',
                    'audio/x-raw,format=S16LE,rate=48000,channels=1', '!',
                    'flacenc', '!', 'filesink', 'location=' + path],
                   stderr=subprocess.DEVNULL, check=False)
    with open(path, 'rb') as f:
        data = bytearray(f.read())
    if data[:4] != b'fLaC' or data[4] & 0x7f != 0:
        return
    # STREAMINFO body at 8: 10 bytes of block/frame sizes, then 20 bits
    # rate, 3 channels, 5 bits per sample, 36 bits total samples
    bits = int.from_bytes(data[18:26], 'big')
    bits = (bits & ~((1 << 36) - 1)) | (1 << 30)
    data[18:26] = bits.to_bytes(8, 'big')
    with open(huge_path, 'wb') as f:
        f.write(data)


def write_all(directory, files):
    os.makedirs(directory, exist_ok=True)
    for name, data in sorted(files.items()):
        with open(os.path.join(directory, name), 'wb') as f:
            f.write(data)


def main():
    write_all(KDIR, kernel_corpus())
    write_all(IDIR, ir_corpus())
    flac_seeds(os.path.join(IDIR, 'flac-mono-48.flac'),
               os.path.join(IDIR, 'flac-huge-total-samples.flac'))
    return 0


if __name__ == '__main__':
    sys.exit(main())

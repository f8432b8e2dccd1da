/* bench-convolve-audio.c: real-time factor of the partitioned convolution with a 10 s impulse response, stereo 48 kHz. */
#include "clf.h"
#include "clf-convolve1d.h"

#include "bench-clock.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RATE 48000
#define CHANNELS 2

static void
usage (const char *argv0)
{
  fprintf (stderr, "usage: %s [-d DEVICE] [-s AUDIO_SECONDS] [-i IR_SECONDS] "
      "[-c CHANNELS] [-p PER_CALL_FRAMES] [BLOCK ...]\n"
      "Convolves AUDIO_SECONDS (default 20) of noise with an IR_SECONDS "
      "(default 10) response at %d Hz and prints the real-time factor for\n"
      "each block size (default: the default block for the response, and "
      "1024..16384). PER_CALL_FRAMES (default 1024) mimics the buffers of a "
      "pipeline: blocks are processed as they fill.\n", argv0, RATE);
}

int
main (int argc, char **argv)
{
  const char *device = NULL;
  double audio_s = 20.0, ir_s = 10.0;
  size_t channels = CHANNELS, per_call = 1024;
  size_t blocks[32], n_blocks_list = 0;
  ClfError err = { CLF_OK, "" };
  ClfContext *ctx;
  int ret = 0;

  for (int i = 1; i < argc; i++) {
    if (!strcmp (argv[i], "-d") && i + 1 < argc)
      device = argv[++i];
    else if (!strcmp (argv[i], "-s") && i + 1 < argc)
      audio_s = atof (argv[++i]);
    else if (!strcmp (argv[i], "-i") && i + 1 < argc)
      ir_s = atof (argv[++i]);
    else if (!strcmp (argv[i], "-c") && i + 1 < argc)
      channels = strtoul (argv[++i], NULL, 10);
    else if (!strcmp (argv[i], "-p") && i + 1 < argc)
      per_call = strtoul (argv[++i], NULL, 10);
    else if (argv[i][0] >= '0' && argv[i][0] <= '9' && n_blocks_list < 32)
      blocks[n_blocks_list++] = strtoul (argv[i], NULL, 10);
    else {
      usage (argv[0]);
      return 2;
    }
  }
  if (audio_s <= 0 || ir_s <= 0 || channels == 0 || per_call == 0) {
    usage (argv[0]);
    return 2;
  }

  size_t ir_frames = (size_t) (ir_s * RATE);
  size_t audio_frames = (size_t) (audio_s * RATE);
  if (n_blocks_list == 0) {
    blocks[n_blocks_list++] = clf_convolve1d_default_block (ir_frames);
    for (size_t b = 1024; b <= 16384; b *= 2)
      if (b != blocks[0])
        blocks[n_blocks_list++] = b;
  }

  ctx = clf_context_new (device, &err);
  if (!ctx) {
    fprintf (stderr, "no OpenCL context: %s\n", err.message);
    return 1;
  }

  double *ir = malloc (ir_frames * sizeof (double));
  for (size_t k = 0; k < ir_frames; k++)
    ir[k] = sin (0.37 * k) * exp (-6.9 * k / ir_frames);

  printf ("device: %s\n", clf_context_describe (ctx));
  printf ("IR %.1f s (%zu frames), %zu channels, %.1f s of audio at %d Hz, "
      "%zu frames per call\n", ir_s, ir_frames, channels, audio_s, RATE,
      per_call);
  printf ("%8s %6s %10s %10s %12s %10s\n", "block", "parts", "latency_ms",
      "setup_s", "process_s", "x_realtime");

  for (size_t bi = 0; bi < n_blocks_list; bi++) {
    size_t B = blocks[bi];
    double t0 = bench_now ();
    ClfConvolve1d *conv = clf_convolve1d_new (ctx, channels, B, ir,
        ir_frames, 1, &err);
    double t_setup = bench_now () - t0;
    if (!conv) {
      fprintf (stderr, "block %zu: %s\n", B, err.message);
      ret = 1;
      continue;
    }
    size_t total_blocks = (audio_frames + B - 1) / B;
    float *in = calloc (B * channels, sizeof (float));
    float *out = malloc (B * channels * sizeof (float));
    for (size_t i = 0; i < B * channels; i++)
      in[i] = (float) sin (0.01 * i);

    /* one block to warm up (kernel caches, first-touch of buffers) */
    clf_convolve1d_process (conv, in, out, 1, &err);
    clf_convolve1d_reset (conv, &err);

    /* A pipeline hands over per_call frames at a time; a block is
     * processed as soon as it fills, so count the calls that way. */
    size_t fed = 0, done_blocks = 0;
    t0 = bench_now ();
    while (done_blocks < total_blocks) {
      fed += per_call;
      size_t ready = fed / B - done_blocks;
      if (ready > total_blocks - done_blocks)
        ready = total_blocks - done_blocks;
      for (size_t r = 0; r < ready; r++) {
        if (clf_convolve1d_process (conv, in, out, 1, &err) != CLF_OK) {
          fprintf (stderr, "block %zu: %s\n", B, err.message);
          ret = 1;
          break;
        }
      }
      done_blocks += ready;
      if (ret)
        break;
    }
    double t_proc = bench_now () - t0;
    double audio = (double) total_blocks * B / RATE;
    printf ("%8zu %6zu %10.1f %10.3f %12.3f %10.1f\n", B,
        clf_convolve1d_get_partitions (conv), 1000.0 * B / RATE, t_setup,
        t_proc, audio / t_proc);
    fflush (stdout);
    free (in);
    free (out);
    clf_convolve1d_free (conv);
  }

  free (ir);
  clf_context_unref (ctx);
  return ret;
}

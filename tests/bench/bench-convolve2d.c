/* bench-convolve2d.c: time per frame of the 2D convolution core, host to host and device to device, against the radius. */
#include "clf.h"
#include "clf-convolve2d.h"

#include "bench-clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
usage (const char *argv0)
{
  fprintf (stderr, "usage: %s [-d DEVICE] [-s WIDTHxHEIGHT] [-k gaussian|box|"
      "disk] [-e clamp|mirror|wrap|zero] [-n FRAMES] [-c] [RADIUS ...]\n"
      "Convolves FRAMES (default 50) RGBA frames (default 1920x1080) with "
      "each RADIUS (default 4 60 1000) and prints ms per frame: from host "
      "memory to host memory (one upload and one download each), and from "
      "device memory to device memory (the work on the device alone). "
      "-c keeps one convolution for every radius, so that each "
      "configure_ms after the first is a change of radius mid-stream.\n",
      argv0);
}

static int
parse_enum (const char *s, const char *const *names, int n)
{
  for (int i = 0; i < n; i++)
    if (!strcmp (s, names[i]))
      return i;
  return -1;
}

/* ms per frame over n frames, after one frame to warm up */
static double
time_frames (ClfContext * ctx, ClfConvolve2d * conv, const ClfFrame2d * src,
    const ClfFrame2d * dst, ClfEdgeMode edge, int n, ClfError * err)
{
  double t0;

  if (clf_convolve2d_process_frame (conv, src, dst, edge, err) != CLF_OK)
    return -1.0;
  t0 = bench_now ();
  for (int i = 0; i < n; i++)
    if (clf_convolve2d_process_frame (conv, src, dst, edge, err) != CLF_OK)
      return -1.0;
  /* device destinations return before the work is done */
  if (clf_context_wait (ctx, err) != CLF_OK)
    return -1.0;
  return (bench_now () - t0) * 1e3 / n;
}

int
main (int argc, char **argv)
{
  static const char *const shapes[] = { "gaussian", "box", "disk" };
  static const char *const edges[] = { "clamp", "mirror", "wrap", "zero" };
  const char *device = NULL;
  size_t width = 1920, height = 1080;
  int shape = CLF_KERNEL_GAUSSIAN, edge = CLF_EDGE_CLAMP, frames = 50;
  double radii[32] = { 4, 60, 1000 };
  int n_radii = 0, change = 0;
  ClfConvolve2d *kept = NULL;
  ClfError err = { CLF_OK, "" };
  int ret = 0;

  for (int i = 1; i < argc; i++) {
    if (!strcmp (argv[i], "-d") && i + 1 < argc)
      device = argv[++i];
    else if (!strcmp (argv[i], "-s") && i + 1 < argc) {
      if (sscanf (argv[++i], "%zux%zu", &width, &height) != 2)
        width = 0;
    } else if (!strcmp (argv[i], "-k") && i + 1 < argc)
      shape = parse_enum (argv[++i], shapes, 3);
    else if (!strcmp (argv[i], "-e") && i + 1 < argc)
      edge = parse_enum (argv[++i], edges, 4);
    else if (!strcmp (argv[i], "-n") && i + 1 < argc)
      frames = atoi (argv[++i]);
    else if (!strcmp (argv[i], "-c"))
      change = 1;
    else if (argv[i][0] >= '0' && argv[i][0] <= '9' && n_radii < 32)
      radii[n_radii++] = atof (argv[i]);
    else {
      usage (argv[0]);
      return 2;
    }
  }
  if (width == 0 || height == 0 || shape < 0 || edge < 0 || frames <= 0) {
    usage (argv[0]);
    return 2;
  }
  if (n_radii == 0)
    n_radii = 3;

  ClfContext *ctx = clf_context_new (device, &err);
  if (!ctx) {
    fprintf (stderr, "no OpenCL context: %s\n", err.message);
    return 1;
  }

  size_t row_bytes = width * 4, bytes = row_bytes * height;
  unsigned char *host_in = malloc (bytes), *host_out = malloc (bytes);
  for (size_t i = 0; i < bytes; i++)
    host_in[i] = (unsigned char) ((i * 2654435761u) >> 24);
  cl_mem dev_in = clf_context_alloc (ctx, CL_MEM_READ_WRITE, bytes, &err);
  cl_mem dev_out = clf_context_alloc (ctx, CL_MEM_READ_WRITE, bytes, &err);
  if (!dev_in || !dev_out || clf_context_upload (ctx, dev_in, 0, row_bytes,
          host_in, row_bytes, row_bytes, height, 0, NULL, &err) != CLF_OK) {
    fprintf (stderr, "device buffers: %s\n", err.message);
    return 1;
  }

  ClfFrameLayout2d layout = { 0 };
  layout.n_planes = 1;
  layout.row_bytes[0] = row_bytes;
  layout.rows[0] = height;
  layout.n_channels = 4;
  layout.edge = (ClfEdgeMode) edge;
  for (unsigned c = 0; c < 4; c++) {
    ClfChannel2d ch = { 0, c, 4, width, height, 8, 0 };
    layout.channels[c] = ch;
  }
  ClfFrame2d host_src = { NULL }, host_dst = { NULL };
  ClfFrame2d dev_src = { dev_in }, dev_dst = { dev_out };
  host_src.host[0] = host_in;
  host_dst.host[0] = host_out;
  host_src.stride[0] = host_dst.stride[0] = row_bytes;
  dev_src.stride[0] = dev_dst.stride[0] = row_bytes;

  printf ("device: %s\n", clf_context_describe (ctx));
  printf ("%zux%zu RGBA, %s kernel, %s edges, %d frames\n", width, height,
      shapes[shape], edges[edge], frames);
  printf ("%8s %14s %12s %12s %12s  %s\n", "radius", "configure_ms",
      "host_ms", "device_ms", "device_fps", "groups");
  for (int r = 0; r < n_radii; r++) {
    ClfKernel2d kernel = { shape, radii[r], NULL, 0, 0 };
    ClfConvolve2d *conv = kept ? kept : clf_convolve2d_new (ctx, &err);
    double t0 = bench_now (), t_conf, t_host, t_dev;

    if (!conv || clf_convolve2d_configure (conv, &layout, &kernel, 1,
            &err) != CLF_OK) {
      fprintf (stderr, "radius %g: %s\n", radii[r], err.message);
      clf_convolve2d_free (conv);
      kept = NULL;
      ret = 1;
      continue;
    }
    /* the device work queued so far is part of the configure time */
    if (clf_context_wait (ctx, &err) != CLF_OK)
      return 1;
    t_conf = (bench_now () - t0) * 1e3;
    t_host = time_frames (ctx, conv, &host_src, &host_dst, edge, frames, &err);
    t_dev = t_host < 0 ? -1.0 :
        time_frames (ctx, conv, &dev_src, &dev_dst, edge, frames, &err);
    if (t_dev < 0) {
      fprintf (stderr, "radius %g: %s\n", radii[r], err.message);
      ret = 1;
    } else {
      printf ("%8g %14.1f %12.3f %12.3f %12.1f  %s\n", radii[r], t_conf,
          t_host, t_dev, 1e3 / t_dev, clf_convolve2d_describe (conv));
    }
    if (change)
      kept = conv;
    else
      clf_convolve2d_free (conv);
  }
  clf_convolve2d_free (kept);
  clReleaseMemObject (dev_in);
  clReleaseMemObject (dev_out);
  free (host_in);
  free (host_out);
  clf_context_unref (ctx);
  return ret;
}

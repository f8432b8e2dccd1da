/* test-clfftconvolve-video.c: clfftconvolve on video (and its audio dispatch) against a double-precision direct convolution. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/controller/gstinterpolationcontrolsource.h>
#include <gst/controller/gstdirectcontrolbinding.h>
#include <gst/video/video.h>
#include <gst/audio/audio.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "clf.h"

/* Accuracy bound, in code values after rounding. The device works in
 * float32: the kernel taps carry a relative error of about 1e-7 and each
 * FFT pass adds about eps = 6e-8 relative to the signal's magnitude, so
 * for grids up to 2^22 points (22 radix-2 equivalents per axis pair) the
 * error before rounding stays below 65535 * 6e-8 * 22 * 2 = 0.2 code
 * values even for 16-bit samples. Rounding that can therefore move a
 * result by at most one code value from the rounded exact result. */
#define MAX_CODE_DIFF 1
/* The PSNR floor for 8-bit output against the exact values;
 * rounding alone gives 58.9 dB. */
#define MIN_PSNR_8BIT 50.0

enum
{ SHAPE_GAUSSIAN, SHAPE_BOX, SHAPE_DISK };
enum
{ EDGE_CLAMP, EDGE_MIRROR, EDGE_WRAP, EDGE_ZERO };
static const gchar *shape_names[] = { "gaussian", "box", "disk" };
static const gchar *edge_names[] = { "clamp", "mirror", "wrap", "zero" };

/* ---- the reference ------------------------------------------------------ */

typedef struct
{
  gdouble *k;                   /* kh rows of kw */
  gint kw, kh, cx, cy;
} RefKernel;

static void
ref_kernel_free (RefKernel * k)
{
  g_free (k->k);
  k->k = NULL;
}

/* The definitions, sampled directly in 2D and normalised. */
static RefKernel
ref_shape_kernel (gint shape, gdouble radius)
{
  RefKernel k;
  gint c = (gint) (shape == SHAPE_GAUSSIAN ? ceil (radius) : floor (radius));
  gdouble sigma = radius / 3.0, sum = 0.0;
  gint dx, dy, i;

  k.kw = k.kh = 2 * c + 1;
  k.cx = k.cy = c;
  k.k = g_new0 (gdouble, (gsize) k.kw * k.kh);
  for (dy = -c; dy <= c; dy++) {
    for (dx = -c; dx <= c; dx++) {
      gdouble v;
      if (shape == SHAPE_GAUSSIAN)
        v = radius == 0.0 ? (dx == 0 && dy == 0) :
            exp (-(gdouble) (dx * dx + dy * dy) / (2 * sigma * sigma));
      else if (shape == SHAPE_BOX)
        v = fabs ((gdouble) dx) <= radius && fabs ((gdouble) dy) <= radius;
      else
        v = (gdouble) dx *dx + (gdouble) dy *dy <= radius * radius;
      k.k[(dy + c) * k.kw + dx + c] = v;
      sum += v;
    }
  }
  for (i = 0; i < k.kw * k.kh; i++)
    k.k[i] /= sum;
  return k;
}

/* Taps of a custom kernel, centre (w/2, h/2), normalised if asked. */
static RefKernel
ref_taps_kernel (const gdouble * taps, gint w, gint h, gboolean normalize)
{
  RefKernel k;
  gdouble sum = 0.0;
  gint i;

  k.kw = w;
  k.kh = h;
  k.cx = w / 2;
  k.cy = h / 2;
  k.k = g_memdup2 (taps, sizeof (gdouble) * w * h);
  for (i = 0; i < w * h; i++)
    sum += taps[i];
  for (i = 0; normalize && i < w * h; i++)
    k.k[i] /= sum;
  return k;
}

/* Where coordinate i of a side of n samples reads from; -1 = zero. Mirror
 * is written as repeated reflection, unlike the element's modulo. */
static gint
ref_edge (gint i, gint n, gint mode)
{
  switch (mode) {
    case EDGE_CLAMP:
      return CLAMP (i, 0, n - 1);
    case EDGE_WRAP:
      return ((i % n) + n) % n;
    case EDGE_MIRROR:
      if (n == 1)
        return 0;
      while (i < 0 || i >= n)
        i = i < 0 ? -i : 2 * (n - 1) - i;
      return i;
    default:
      return i >= 0 && i < n ? i : -1;
  }
}

/* out(x, y) = sum k(i, j) in(x - (i - cx), y - (j - cy)) */
static void
ref_convolve (const gdouble * in, gint w, gint h, const RefKernel * k,
    gint edge, gdouble * out)
{
  gint *xmap = g_new (gint, k->kw), *ymap = g_new (gint, k->kh);
  gint x, y, i, j;

  for (y = 0; y < h; y++) {
    for (j = 0; j < k->kh; j++)
      ymap[j] = ref_edge (y - (j - k->cy), h, edge);
    for (x = 0; x < w; x++) {
      gdouble acc = 0.0;
      for (i = 0; i < k->kw; i++)
        xmap[i] = ref_edge (x - (i - k->cx), w, edge);
      for (j = 0; j < k->kh; j++) {
        const gdouble *row = in + (gsize) ymap[j] * w, *kr = k->k + j * k->kw;
        if (ymap[j] < 0)
          continue;
        for (i = 0; i < k->kw; i++)
          if (xmap[i] >= 0)
            acc += kr[i] * row[xmap[i]];
      }
      out[(gsize) y * w + x] = acc;
    }
  }
  g_free (xmap);
  g_free (ymap);
}

/* ---- frames ------------------------------------------------------------- */

static guint
comp_get (GstVideoFrame * f, guint c, gint x, gint y)
{
  const guint8 *p = (const guint8 *) GST_VIDEO_FRAME_COMP_DATA (f, c) +
      y * GST_VIDEO_FRAME_COMP_STRIDE (f, c) +
      x * GST_VIDEO_FRAME_COMP_PSTRIDE (f, c);
  return GST_VIDEO_FRAME_COMP_DEPTH (f, c) > 8 ? p[0] | (p[1] << 8) : p[0];
}

static void
comp_set (GstVideoFrame * f, guint c, gint x, gint y, guint v)
{
  guint8 *p = (guint8 *) GST_VIDEO_FRAME_COMP_DATA (f, c) +
      y * GST_VIDEO_FRAME_COMP_STRIDE (f, c) +
      x * GST_VIDEO_FRAME_COMP_PSTRIDE (f, c);
  p[0] = v & 0xff;
  if (GST_VIDEO_FRAME_COMP_DEPTH (f, c) > 8)
    p[1] = v >> 8;
}

typedef enum
{ FILL_RANDOM, FILL_IMPULSE } Fill;

/* A frame of random samples, or black with one full-scale sample in every
 * component at (ix, iy) of the full-resolution grid. */
static GstBuffer *
make_frame (const GstVideoInfo * info, Fill fill, guint seed, gint ix, gint iy)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, info->size, NULL);
  GRand *rand = g_rand_new_with_seed (seed);
  GstVideoFrame f;
  guint c;

  gst_buffer_memset (buf, 0, 0, info->size);
  fail_unless (gst_video_frame_map (&f, info, buf, GST_MAP_WRITE));
  for (c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (info); c++) {
    gint w = GST_VIDEO_INFO_COMP_WIDTH (info, c);
    gint h = GST_VIDEO_INFO_COMP_HEIGHT (info, c);
    guint max = (1u << GST_VIDEO_INFO_COMP_DEPTH (info, c)) - 1;
    gint x, y;
    for (y = 0; y < h; y++)
      for (x = 0; x < w; x++)
        comp_set (&f, c, x, y, fill == FILL_RANDOM ?
            (guint) g_rand_int_range (rand, 0, max + 1) : 0);
    if (fill == FILL_IMPULSE)
      comp_set (&f, c, GST_VIDEO_SUB_SCALE (GST_VIDEO_FORMAT_INFO_W_SUB
              (info->finfo, c), ix), GST_VIDEO_SUB_SCALE
          (GST_VIDEO_FORMAT_INFO_H_SUB (info->finfo, c), iy), max);
  }
  gst_video_frame_unmap (&f);
  g_rand_free (rand);
  GST_BUFFER_PTS (buf) = 0;
  GST_BUFFER_DURATION (buf) = GST_SECOND / 30;
  return buf;
}

/* The same random frame laid out with wider rows and gaps between planes,
 * described by a GstVideoMeta, as upstream elements may deliver it. */
static GstBuffer *
make_padded_frame (const GstVideoInfo * info, guint seed)
{
  GstVideoInfo padded = *info;
  guint rows[GST_VIDEO_MAX_PLANES] = { 0, };
  gsize offset = 16;
  guint c, p;
  GstBuffer *buf;

  for (c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (info); c++) {
    p = GST_VIDEO_INFO_COMP_PLANE (info, c);
    rows[p] = MAX (rows[p], (guint) GST_VIDEO_INFO_COMP_HEIGHT (info, c));
  }
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    padded.stride[p] = info->stride[p] + 52;
    padded.offset[p] = offset;
    offset += (gsize) padded.stride[p] * rows[p] + 16;
  }
  padded.size = offset;
  buf = make_frame (&padded, FILL_RANDOM, seed, 0, 0);
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (info), GST_VIDEO_INFO_WIDTH (info),
      GST_VIDEO_INFO_HEIGHT (info), GST_VIDEO_INFO_N_PLANES (info),
      padded.offset, padded.stride);
  return buf;
}

/* Compares every component of out with the reference convolution of in:
 * kernels[0] for full-resolution components, kernels[1] for subsampled
 * ones. Returns the largest difference from the rounded reference. */
static guint
check_frame (const GstVideoInfo * info, GstBuffer * inbuf, GstBuffer * outbuf,
    const RefKernel * kernels, gint edge, const gchar * what)
{
  GstVideoFrame fi, fo;
  guint c, worst = 0;

  fail_unless (gst_video_frame_map (&fi, info, inbuf, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fo, info, outbuf, GST_MAP_READ));
  for (c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (info); c++) {
    gint w = GST_VIDEO_INFO_COMP_WIDTH (info, c);
    gint h = GST_VIDEO_INFO_COMP_HEIGHT (info, c);
    guint depth = GST_VIDEO_INFO_COMP_DEPTH (info, c);
    gdouble max = (1u << depth) - 1, sq = 0.0;
    const RefKernel *k =
        &kernels[GST_VIDEO_FORMAT_INFO_W_SUB (info->finfo, c) ? 1 : 0];
    gdouble *in = g_new (gdouble, (gsize) w * h);
    gdouble *ref = g_new (gdouble, (gsize) w * h);
    gint x, y;

    for (y = 0; y < h; y++)
      for (x = 0; x < w; x++)
        in[y * w + x] = comp_get (&fi, c, x, y);
    ref_convolve (in, w, h, k, edge, ref);
    for (y = 0; y < h; y++) {
      for (x = 0; x < w; x++) {
        gdouble r = ref[y * w + x];
        guint want = (guint) CLAMP (floor (r + 0.5), 0.0, max);
        guint got = comp_get (&fo, c, x, y);
        guint diff = got > want ? got - want : want - got;
        if (diff > MAX_CODE_DIFF)
          fail ("%s %s component %u at (%d,%d): got %u, want %u (%.3f)",
              what, GST_VIDEO_INFO_NAME (info), c, x, y, got, want, r);
        worst = MAX (worst, diff);
        r = CLAMP (r, 0.0, max);
        sq += (got - r) * (got - r);
      }
    }
    if (depth == 8 && sq > 0.0) {
      gdouble psnr = 10.0 * log10 (max * max * w * h / sq);
      fail_unless (psnr >= MIN_PSNR_8BIT, "%s %s component %u: PSNR %.1f dB",
          what, GST_VIDEO_INFO_NAME (info), c, psnr);
    }
    g_free (in);
    g_free (ref);
  }
  gst_video_frame_unmap (&fi);
  gst_video_frame_unmap (&fo);
  return worst;
}

/* ---- harness helpers ---------------------------------------------------- */

static GstHarness *
harness_for (GstVideoFormat format, gint width, gint height,
    GstVideoInfo * info)
{
  GstHarness *h = gst_harness_new ("clfftconvolve");
  GstCaps *caps;

  gst_video_info_set_format (info, format, width, height);
  caps = gst_video_info_to_caps (info);
  gst_harness_set_caps (h, gst_caps_ref (caps), caps);
  return h;
}

/* Re-negotiates a running harness to another format. */
static void
harness_recaps (GstHarness * h, GstVideoFormat format, gint width,
    gint height, GstVideoInfo * info)
{
  GstCaps *caps;

  gst_video_info_set_format (info, format, width, height);
  caps = gst_video_info_to_caps (info);
  gst_harness_set_sink_caps (h, gst_caps_ref (caps));
  gst_harness_set_src_caps (h, caps);
}

/* Sets the edge mode, pushes one frame and checks the output against
 * kernels; returns the largest code value difference. */
static guint
push_and_check (GstHarness * h, const GstVideoInfo * info, GstBuffer * in,
    const RefKernel * kernels, gint edge, const gchar * what)
{
  GstBuffer *out;
  guint worst;

  gst_util_set_object_arg (G_OBJECT (h->element), "edge-mode",
      edge_names[edge]);
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
      GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless (out != NULL);
  worst = check_frame (info, in, out, kernels, edge, what);
  gst_buffer_unref (out);
  return worst;
}

/* push_and_check with the shape kernel (radius halved for the 2x
 * subsampled planes). */
static guint
push_and_check_shape (GstHarness * h, const GstVideoInfo * info,
    GstBuffer * in, gint shape, gdouble radius, gint edge, const gchar * what)
{
  RefKernel k[2];
  guint worst;

  k[0] = ref_shape_kernel (shape, radius);
  k[1] = ref_shape_kernel (shape, radius / 2);
  worst = push_and_check (h, info, in, k, edge, what);
  ref_kernel_free (&k[0]);
  ref_kernel_free (&k[1]);
  return worst;
}

/* One frame through a fresh element; returns the worst difference. */
static guint
run_shape (GstVideoFormat format, gint w, gint h, gint shape, gfloat radius,
    gint edge, Fill fill, guint seed)
{
  GstVideoInfo info;
  GstHarness *hn = harness_for (format, w, h, &info);
  GstBuffer *in = make_frame (&info, fill, seed, w / 2, h / 2);
  gchar *what = g_strdup_printf ("%s r=%g %s", shape_names[shape], radius,
      edge_names[edge]);
  guint worst;

  g_object_set (hn->element, "radius", radius, NULL);
  gst_util_set_object_arg (G_OBJECT (hn->element), "kernel-shape",
      shape_names[shape]);
  worst = push_and_check_shape (hn, &info, in, shape, radius, edge, what);
  GST_INFO ("%s %s: worst difference %u", what, GST_VIDEO_INFO_NAME (&info),
      worst);
  gst_buffer_unref (in);
  gst_harness_teardown (hn);
  g_free (what);
  return worst;
}

/* ---- tests: accuracy ---------------------------------------------------- */

static const GstVideoFormat all_formats[] = {
  GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRA, GST_VIDEO_FORMAT_ARGB,
  GST_VIDEO_FORMAT_ABGR, GST_VIDEO_FORMAT_RGBx, GST_VIDEO_FORMAT_BGRx,
  GST_VIDEO_FORMAT_xRGB, GST_VIDEO_FORMAT_xBGR, GST_VIDEO_FORMAT_RGB,
  GST_VIDEO_FORMAT_BGR, GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_GRAY16_LE,
  GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_YV12, GST_VIDEO_FORMAT_NV12,
  GST_VIDEO_FORMAT_Y444
};

/* Every format, odd frame sizes (so chroma rounds up), every channel:
 * padded lines (mirror edges) and lines of the frame alone (clamp), whose
 * loads CPU devices read per depth and channel count. */
GST_START_TEST (test_formats)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (all_formats); i++) {
    run_shape (all_formats[i], 37, 29, SHAPE_GAUSSIAN, 4.5f, EDGE_MIRROR,
        FILL_RANDOM, 100 + i);
    run_shape (all_formats[i], 37, 29, SHAPE_GAUSSIAN, 4.5f, EDGE_CLAMP,
        FILL_RANDOM, 150 + i);
  }
}

GST_END_TEST;

/* Input rows wider than the output's and planes at odd offsets. */
GST_START_TEST (test_strides)
{
  static const GstVideoFormat formats[] = { GST_VIDEO_FORMAT_I420,
    GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_GRAY16_LE
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (formats); i++) {
    GstVideoInfo info;
    GstHarness *h = harness_for (formats[i], 35, 27, &info);
    GstBuffer *in = make_padded_frame (&info, 200 + i);

    g_object_set (h->element, "radius", 3.5f, NULL);
    push_and_check_shape (h, &info, in, SHAPE_GAUSSIAN, 3.5, EDGE_MIRROR,
        "padded input");
    gst_buffer_unref (in);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* Every shape with every edge mode; a fractional radius separates the
 * floor/ceil cut-offs of the three shapes. */
GST_START_TEST (test_shapes_and_edges)
{
  gint shape, edge;

  for (shape = SHAPE_GAUSSIAN; shape <= SHAPE_DISK; shape++)
    for (edge = EDGE_CLAMP; edge <= EDGE_ZERO; edge++)
      run_shape (GST_VIDEO_FORMAT_GRAY8, 40, 30, shape, 6.5f, edge,
          FILL_RANDOM, 7 * shape + edge);
  /* the same on a planar and a packed 4-channel format */
  for (edge = EDGE_CLAMP; edge <= EDGE_ZERO; edge++) {
    run_shape (GST_VIDEO_FORMAT_I420, 40, 30, SHAPE_DISK, 5.0f, edge,
        FILL_RANDOM, 50 + edge);
    run_shape (GST_VIDEO_FORMAT_ARGB, 40, 30, SHAPE_BOX, 3.0f, edge,
        FILL_RANDOM, 60 + edge);
  }
}

GST_END_TEST;

/* One RGBA frame of w x h through one element, the shape of the radius,
 * once per edge mode of edges in turn, each against the reference. */
static void
run_edge_sequence (gint shape, gint w, gint h, gfloat radius,
    const gint * edges, guint n_edges, guint seed)
{
  GstVideoInfo info;
  GstHarness *hn = harness_for (GST_VIDEO_FORMAT_RGBA, w, h, &info);
  GstBuffer *in = make_frame (&info, FILL_RANDOM, seed, w / 2, h / 2);

  g_object_set (hn->element, "radius", radius, NULL);
  gst_util_set_object_arg (G_OBJECT (hn->element), "kernel-shape",
      shape_names[shape]);
  for (guint i = 0; i < n_edges; i++)
    push_and_check_shape (hn, &info, in, shape, radius, edges[i],
        edge_names[edges[i]]);
  gst_buffer_unref (in);
  gst_harness_teardown (hn);
}

/* One element, the edge mode changed between frames: separable groups
 * switch between lines of the frame alone (clamp, zero) and lines padded
 * with the extension (mirror, wrap), 2D groups (disk) likewise between
 * the frame alone and the padded frame, each frame against the
 * reference. */
GST_START_TEST (test_edge_switch)
{
  static const gint edges[] = { EDGE_CLAMP, EDGE_MIRROR, EDGE_ZERO,
    EDGE_WRAP, EDGE_CLAMP
  };

  run_edge_sequence (SHAPE_GAUSSIAN, 40, 30, 9.0f, edges,
      G_N_ELEMENTS (edges), 77);
  run_edge_sequence (SHAPE_DISK, 40, 30, 9.0f, edges, G_N_ELEMENTS (edges), 78);
}

GST_END_TEST;

/* Radii from 1 to far beyond the frame: the kernel covers the periodic
 * extension several times, the reference does the same sum directly. */
GST_START_TEST (test_radii)
{
  run_shape (GST_VIDEO_FORMAT_GRAY8, 64, 48, SHAPE_GAUSSIAN, 1.0f,
      EDGE_CLAMP, FILL_RANDOM, 1);
  run_shape (GST_VIDEO_FORMAT_GRAY8, 64, 48, SHAPE_GAUSSIAN, 10.0f,
      EDGE_MIRROR, FILL_RANDOM, 2);
  run_shape (GST_VIDEO_FORMAT_GRAY8, 64, 48, SHAPE_GAUSSIAN, 100.0f,
      EDGE_MIRROR, FILL_RANDOM, 3);
  run_shape (GST_VIDEO_FORMAT_GRAY8, 64, 48, SHAPE_DISK, 100.0f,
      EDGE_WRAP, FILL_RANDOM, 4);
  run_shape (GST_VIDEO_FORMAT_GRAY16_LE, 64, 48, SHAPE_GAUSSIAN, 100.0f,
      EDGE_ZERO, FILL_RANDOM, 5);
  /* clamped edges with taps that reach past the whole frame */
  run_shape (GST_VIDEO_FORMAT_GRAY8, 64, 48, SHAPE_GAUSSIAN, 100.0f,
      EDGE_CLAMP, FILL_RANDOM, 8);
  run_shape (GST_VIDEO_FORMAT_GRAY8, 8, 6, SHAPE_BOX, 1000.0f,
      EDGE_CLAMP, FILL_RANDOM, 9);
  /* a small frame keeps the 2001 x 2001-tap reference cheap */
  run_shape (GST_VIDEO_FORMAT_GRAY8, 8, 6, SHAPE_GAUSSIAN, 1000.0f,
      EDGE_MIRROR, FILL_RANDOM, 6);
  run_shape (GST_VIDEO_FORMAT_GRAY8, 8, 6, SHAPE_BOX, 1000.0f,
      EDGE_WRAP, FILL_RANDOM, 7);
}

GST_END_TEST;

/* Separable kernels through the fused line kernel that GPUs run (PoCL
 * runs the staged form by default): every edge mode, one and two channel
 * pairs, 16 bits, planes of two sizes, lines of one sample. */
GST_START_TEST (test_fused_lines)
{
  gint edge;

  clf_debug_force_fused_lines (G_MAXSIZE);
  for (edge = EDGE_CLAMP; edge <= EDGE_ZERO; edge++) {
    run_shape (GST_VIDEO_FORMAT_RGBA, 37, 29, SHAPE_GAUSSIAN, 4.5f, edge,
        FILL_RANDOM, 300 + edge);
    run_shape (GST_VIDEO_FORMAT_RGB, 40, 30, SHAPE_BOX, 6.0f, edge,
        FILL_RANDOM, 310 + edge);
    run_shape (GST_VIDEO_FORMAT_GRAY8, 1, 7, SHAPE_GAUSSIAN, 5.0f, edge,
        FILL_RANDOM, 320 + edge);
  }
  run_shape (GST_VIDEO_FORMAT_GRAY16_LE, 64, 48, SHAPE_GAUSSIAN, 100.0f,
      EDGE_MIRROR, FILL_RANDOM, 330);
  run_shape (GST_VIDEO_FORMAT_I420, 35, 27, SHAPE_GAUSSIAN, 3.5f,
      EDGE_CLAMP, FILL_RANDOM, 331);
  clf_debug_force_fused_lines (0);
}

GST_END_TEST;

/* Where padded lines are too long to fuse, clamp and zero edges take lines
 * of the frame alone on that axis: fused with the edge sums when those
 * lines fit (on GPUs 3840x2160 at radius 1000 has columns of 3200 points
 * against 4480 padded), else staged, each axis on its own. Fused lines
 * are held to 64 points here so that small frames take every path. */
GST_START_TEST (test_frame_alone_lines)
{
  static const struct
  {
    gint w, h;
    gfloat radius;
  } cases[] = {
    {40, 30, 20.0f},            /* rows 40+20, columns 30+20: fused, edges */
    {40, 12, 14.0f},            /* rows fused with edges, columns padded */
    {12, 40, 14.0f},            /* rows padded, columns fused with edges */
    {100, 30, 20.0f},           /* rows staged (100+20), columns fused */
  };
  static const gint edges[] = { EDGE_ZERO, EDGE_MIRROR, EDGE_CLAMP,
    EDGE_WRAP, EDGE_ZERO
  };
  gint edge;

  clf_debug_force_fused_lines (64);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    for (edge = EDGE_CLAMP; edge <= EDGE_ZERO; edge++)
      run_shape (GST_VIDEO_FORMAT_RGBA, cases[i].w, cases[i].h,
          i % 2 ? SHAPE_BOX : SHAPE_GAUSSIAN, cases[i].radius, edge,
          FILL_RANDOM, 340 + 4 * i + edge);
  /* one element switching edges: the rows between frame-alone and padded
   * lines, the columns padded throughout */
  run_edge_sequence (SHAPE_GAUSSIAN, 40, 12, 14.0f, edges,
      G_N_ELEMENTS (edges), 360);
  clf_debug_force_fused_lines (0);
}

GST_END_TEST;

/* Staged lines in chunks of a few lines (on CPU devices each chunk is
 * loaded, transformed both ways and stored in turn): chunk edges inside a
 * pair's columns and between pairs, the edge sums of lines of the frame
 * alone, padded columns loaded a chunk at a time, subsampled chroma. */
GST_START_TEST (test_lines_in_chunks)
{
  gint edge;

  g_setenv ("CLFFT_CPU_CHUNK", "4096", TRUE);
  for (edge = EDGE_CLAMP; edge <= EDGE_ZERO; edge++) {
    run_shape (GST_VIDEO_FORMAT_RGBA, 40, 30, SHAPE_GAUSSIAN, 4.5f, edge,
        FILL_RANDOM, 380 + edge);
    run_shape (GST_VIDEO_FORMAT_I420, 40, 30, SHAPE_BOX, 3.0f, edge,
        FILL_RANDOM, 390 + edge);
  }
  /* taps past the whole frame: every sample within reach of both ends */
  run_shape (GST_VIDEO_FORMAT_RGBA, 40, 30, SHAPE_GAUSSIAN, 45.0f,
      EDGE_CLAMP, FILL_RANDOM, 395);
  g_unsetenv ("CLFFT_CPU_CHUNK");
}

GST_END_TEST;

/* Lines longer than the plans' power-of-two limit fuse where local memory
 * holds them: rows of 9000 samples (PoCL's limit is 8192 points; padded
 * with mirror and wrap, the frame alone with clamp and zero) and of 5000
 * (NVIDIA's is 4096, its 48 KiB hold 5120). */
GST_START_TEST (test_long_fused_lines)
{
  static const gint widths[] = { 9000, 5000 };
  gint edge;

  clf_debug_force_fused_lines (G_MAXSIZE);
  for (guint i = 0; i < G_N_ELEMENTS (widths); i++)
    for (edge = EDGE_CLAMP; edge <= EDGE_ZERO; edge++)
      run_shape (GST_VIDEO_FORMAT_GRAY8, widths[i], 2, SHAPE_GAUSSIAN, 3.0f,
          edge, FILL_RANDOM, 370 + 4 * i + edge);
  clf_debug_force_fused_lines (0);
}

GST_END_TEST;

/* Frames of one row or column, and a single pixel, where mirror has no
 * period and the kernel dwarfs the frame. */
GST_START_TEST (test_tiny_frames)
{
  gint edge;

  for (edge = EDGE_CLAMP; edge <= EDGE_ZERO; edge++) {
    run_shape (GST_VIDEO_FORMAT_GRAY8, 1, 7, SHAPE_GAUSSIAN, 5.0f, edge,
        FILL_RANDOM, 70 + edge);
    run_shape (GST_VIDEO_FORMAT_GRAY8, 9, 1, SHAPE_DISK, 4.0f, edge,
        FILL_RANDOM, 80 + edge);
    run_shape (GST_VIDEO_FORMAT_GRAY8, 1, 1, SHAPE_DISK, 6.0f, edge,
        FILL_RANDOM, 84 + edge);
    run_shape (GST_VIDEO_FORMAT_I420, 1, 1, SHAPE_BOX, 3.0f, edge,
        FILL_RANDOM, 90 + edge);
  }
}

GST_END_TEST;

/* A single full-scale pixel comes out as the kernel itself (16-bit, so the
 * kernel is seen with 1/65535 resolution), unflipped. */
GST_START_TEST (test_impulse)
{
  static const gdouble asym[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
  GstVideoInfo info;
  GstHarness *h;
  GstBuffer *in;
  RefKernel k[2];
  GValue arr = G_VALUE_INIT, v = G_VALUE_INIT;
  gint shape, i;

  for (shape = SHAPE_GAUSSIAN; shape <= SHAPE_DISK; shape++)
    run_shape (GST_VIDEO_FORMAT_GRAY16_LE, 48, 40, shape, 7.5f, EDGE_ZERO,
        FILL_IMPULSE, 0);
  run_shape (GST_VIDEO_FORMAT_GRAY8, 48, 40, SHAPE_GAUSSIAN, 3.0f,
      EDGE_CLAMP, FILL_IMPULSE, 0);

  /* 5 x 2 asymmetric kernel: a flipped or shifted result fails */
  h = harness_for (GST_VIDEO_FORMAT_GRAY16_LE, 16, 12, &info);
  g_value_init (&arr, GST_TYPE_ARRAY);
  g_value_init (&v, G_TYPE_FLOAT);
  for (i = 0; i < 10; i++) {
    g_value_set_float (&v, asym[i]);
    gst_value_array_append_value (&arr, &v);
  }
  g_object_set_property (G_OBJECT (h->element), "kernel", &arr);
  g_object_set (h->element, "kernel-width", 5, NULL);
  k[0] = ref_taps_kernel (asym, 5, 2, TRUE);
  k[1] = ref_taps_kernel (asym, 5, 2, TRUE);
  in = make_frame (&info, FILL_IMPULSE, 0, 7, 5);
  push_and_check (h, &info, in, k, EDGE_CLAMP, "asymmetric impulse");
  {
    /* and explicitly: tap (i, j) lands at (7 + i - 2, 5 + j - 1) */
    GstBuffer *out;
    GstVideoFrame f;
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
        GST_FLOW_OK);
    out = gst_harness_pull (h);
    fail_unless (gst_video_frame_map (&f, &info, out, GST_MAP_READ));
    fail_unless_equals_int (comp_get (&f, 0, 7 + 4 - 2, 5 + 1 - 1),
        (gint) floor (65535.0 * 10 / 55 + 0.5));
    fail_unless_equals_int (comp_get (&f, 0, 7 - 2, 5 - 1),
        (gint) floor (65535.0 * 1 / 55 + 0.5));
    gst_video_frame_unmap (&f);
    gst_buffer_unref (out);
  }
  ref_kernel_free (&k[0]);
  ref_kernel_free (&k[1]);
  gst_buffer_unref (in);
  g_value_unset (&arr);
  g_value_unset (&v);
  gst_harness_teardown (h);
}

GST_END_TEST;

static void
set_kernel (GstElement * e, const gdouble * taps, guint n, guint width)
{
  GValue arr = G_VALUE_INIT, v = G_VALUE_INIT;
  guint i;

  g_value_init (&arr, GST_TYPE_ARRAY);
  g_value_init (&v, G_TYPE_FLOAT);
  for (i = 0; i < n; i++) {
    g_value_set_float (&v, taps[i]);
    gst_value_array_append_value (&arr, &v);
  }
  g_object_set_property (G_OBJECT (e), "kernel", &arr);
  g_object_set (e, "kernel-width", width, NULL);
  g_value_unset (&arr);
  g_value_unset (&v);
}

/* Custom kernels: normalised, unnormalised (a Laplacian, which saturates),
 * and given from gst-launch syntax. */
GST_START_TEST (test_custom_kernel)
{
  static const gdouble blur[] = { 1, 4, 6, 4, 1, 2, 8, 12, 8, 2, 1, 4, 6, 4,
    1
  };
  static const gdouble laplace[] = { 0, -1, 0, -1, 4, -1, 0, -1, 0 };
  GstVideoInfo info;
  GstHarness *h = harness_for (GST_VIDEO_FORMAT_RGBA, 33, 21, &info);
  GstBuffer *in = make_frame (&info, FILL_RANDOM, 11, 0, 0);
  RefKernel k[2];

  set_kernel (h->element, blur, 15, 5);
  k[0] = k[1] = ref_taps_kernel (blur, 5, 3, TRUE);
  push_and_check (h, &info, in, k, EDGE_CLAMP, "custom 5x3");
  ref_kernel_free (&k[0]);

  set_kernel (h->element, laplace, 9, 0);
  g_object_set (h->element, "normalize", FALSE, NULL);
  k[0] = k[1] = ref_taps_kernel (laplace, 3, 3, FALSE);
  push_and_check (h, &info, in, k, EDGE_WRAP, "laplacian");
  ref_kernel_free (&k[0]);

  /* the string form gst-launch-1.0 uses */
  gst_util_set_object_arg (G_OBJECT (h->element), "kernel", "<1.0, 2.0, 1.0>");
  g_object_set (h->element, "kernel-width", 3, "normalize", TRUE, NULL);
  {
    static const gdouble row[] = { 1, 2, 1 };
    k[0] = k[1] = ref_taps_kernel (row, 3, 1, TRUE);
  }
  push_and_check (h, &info, in, k, EDGE_CLAMP, "kernel from string");
  ref_kernel_free (&k[0]);

  gst_buffer_unref (in);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Disk and custom kernels with clamp and zero edges transform the frame
 * alone, clamped edges added through sums (clf-convolve2d-edges.h): taps
 * that reach past the whole frame (every sample within reach of every
 * edge, the corners overlapping), 16 bits, subsampled chroma, one to four
 * channels, and custom kernels off centre (even sizes), one larger than
 * the frame (6x3 keeps the padded frame, whose grid is not a fifth
 * larger). */
GST_START_TEST (test_frame_alone_grid)
{
  static const gint edges[] = { EDGE_CLAMP, EDGE_ZERO };
  static const struct
  {
    gint kw, kh;
  } customs[] = { {6, 3}, {20, 12}, {50, 31} };
  GstVideoInfo info;
  GstHarness *h = harness_for (GST_VIDEO_FORMAT_RGBA, 33, 21, &info);
  GstBuffer *in = make_frame (&info, FILL_RANDOM, 401, 0, 0);
  GRand *rand = g_rand_new_with_seed (402);

  for (guint e = 0; e < G_N_ELEMENTS (edges); e++) {
    run_shape (GST_VIDEO_FORMAT_GRAY8, 64, 48, SHAPE_DISK, 100.0f, edges[e],
        FILL_RANDOM, 410 + e);
    run_shape (GST_VIDEO_FORMAT_GRAY16_LE, 37, 29, SHAPE_DISK, 20.5f,
        edges[e], FILL_RANDOM, 412 + e);
    run_shape (GST_VIDEO_FORMAT_I420, 40, 30, SHAPE_DISK, 12.0f, edges[e],
        FILL_RANDOM, 414 + e);
    /* three planes: the five tables transformed three and two at once */
    run_shape (GST_VIDEO_FORMAT_RGB, 35, 27, SHAPE_DISK, 15.0f, edges[e],
        FILL_RANDOM, 416 + e);
  }
  for (guint c = 0; c < G_N_ELEMENTS (customs); c++) {
    gint n = customs[c].kw * customs[c].kh;
    /* small integers: exact as the property's floats */
    gdouble *taps = g_new (gdouble, n);
    RefKernel k[2];

    for (gint i = 0; i < n; i++)
      taps[i] = g_rand_int_range (rand, 1, 10);
    set_kernel (h->element, taps, n, customs[c].kw);
    k[0] = k[1] = ref_taps_kernel (taps, customs[c].kw, customs[c].kh, TRUE);
    for (guint e = 0; e < G_N_ELEMENTS (edges); e++)
      push_and_check (h, &info, in, k, edges[e], "custom taps");
    ref_kernel_free (&k[0]);
    g_free (taps);
  }
  g_rand_free (rand);
  gst_buffer_unref (in);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Radius changes mid-stream on the frame alone: disks of radius 21 and
 * 22 on 64x48 share a 90x70 grid, which the next configure takes over
 * with a corner table of the new reach; radius 100 reaches past the
 * frame (another grid). */
GST_START_TEST (test_frame_alone_radius_change)
{
  static const gfloat radii[] = { 21.0f, 22.0f, 21.0f, 100.0f, 21.5f };
  GstVideoInfo info;
  GstHarness *h = harness_for (GST_VIDEO_FORMAT_GRAY8, 64, 48, &info);
  GstBuffer *in = make_frame (&info, FILL_RANDOM, 430, 0, 0);

  gst_util_set_object_arg (G_OBJECT (h->element), "kernel-shape", "disk");
  for (guint i = 0; i < G_N_ELEMENTS (radii); i++) {
    g_object_set (h->element, "radius", radii[i], NULL);
    push_and_check_shape (h, &info, in, SHAPE_DISK, radii[i], EDGE_CLAMP,
        "disk radius change");
  }
  gst_buffer_unref (in);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* ---- kernel files ------------------------------------------------------- */

static gchar *
temp_path (const gchar * name)
{
  return g_build_filename (g_get_tmp_dir (), name, NULL);
}

/* Writes a GRAY8, GRAY16_BE or RGB image with GStreamer's own pngenc;
 * v holds w * h samples per channel, interleaved. */
static void
write_png (const gchar * path, GstVideoFormat format, const guint16 * v,
    gint w, gint h)
{
  gchar *desc = g_strdup_printf ("appsrc name=src caps=video/x-raw,"
      "format=%s,width=%d,height=%d,framerate=1/1 ! pngenc ! "
      "filesink location=%s", gst_video_format_to_string (format), w, h,
      path);
  GstElement *pipe = gst_parse_launch (desc, NULL);
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  GstVideoInfo info;
  GstBuffer *buf;
  GstMapInfo map;
  GstMessage *msg;
  GstFlowReturn flow;
  gint x, y, channels;
  gboolean sixteen = format == GST_VIDEO_FORMAT_GRAY16_BE;

  fail_unless (pipe != NULL);
  gst_video_info_set_format (&info, format, w, h);
  channels = GST_VIDEO_INFO_N_COMPONENTS (&info);
  buf = gst_buffer_new_allocate (NULL, info.size, NULL);
  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  for (y = 0; y < h; y++) {
    for (x = 0; x < w * channels; x++) {
      guint16 s = v[y * w * channels + x];
      guint8 *p = map.data + y * info.stride[0] + x * (sixteen ? 2 : 1);
      if (sixteen) {
        p[0] = s >> 8;
        p[1] = s & 0xff;
      } else {
        p[0] = s;
      }
    }
  }
  gst_buffer_unmap (buf, &map);
  GST_BUFFER_PTS (buf) = 0;
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  g_signal_emit_by_name (src, "push-buffer", buf, &flow);
  fail_unless_equals_int (flow, GST_FLOW_OK);
  g_signal_emit_by_name (src, "end-of-stream", &flow);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipe),
      GST_CLOCK_TIME_NONE, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_buffer_unref (buf);
  gst_object_unref (src);
  gst_object_unref (pipe);
  g_free (desc);
}

/* The same 4 x 3 kernel from PGM (binary 8 and 16 bit, text) and PNG (8 and
 * 16 bit grey, and RGB) files, against the reference of its integer
 * values. */
GST_START_TEST (test_kernel_files)
{
  static const guint16 vals[] = { 0, 10, 30, 5, 20, 200, 255, 40, 3, 60, 90,
    1
  };
  gdouble taps[12];
  GstVideoInfo info;
  GstHarness *h = harness_for (GST_VIDEO_FORMAT_GRAY8, 30, 20, &info);
  GstBuffer *in = make_frame (&info, FILL_RANDOM, 21, 0, 0);
  RefKernel k[2];
  GString *s;
  guint8 bin16[24];
  guint16 vals16[12];
  gchar *path;
  gint i;

  for (i = 0; i < 12; i++) {
    taps[i] = vals[i];
    vals16[i] = vals[i] * 257;
    bin16[2 * i] = vals16[i] >> 8;
    bin16[2 * i + 1] = vals16[i] & 0xff;
  }
  k[0] = k[1] = ref_taps_kernel (taps, 4, 3, TRUE);

  /* P5, 8 bit, with a comment */
  path = temp_path ("clfftconvolve-k8.pgm");
  s = g_string_new ("P5\n# a kernel\n4 3\n255\n");
  for (i = 0; i < 12; i++)
    g_string_append_c (s, (gchar) vals[i]);
  fail_unless (g_file_set_contents (path, s->str, s->len, NULL));
  g_string_free (s, TRUE);
  g_object_set (h->element, "kernel-location", path, NULL);
  push_and_check (h, &info, in, k, EDGE_MIRROR, "PGM P5");
  g_unlink (path);
  g_free (path);

  /* P5, 16 bit big endian */
  path = temp_path ("clfftconvolve-k16.pgm");
  s = g_string_new ("P5 4 3 65535\n");
  g_string_append_len (s, (const gchar *) bin16, 24);
  fail_unless (g_file_set_contents (path, s->str, s->len, NULL));
  g_string_free (s, TRUE);
  g_object_set (h->element, "kernel-location", path, NULL);
  push_and_check (h, &info, in, k, EDGE_MIRROR, "PGM P5 16-bit");
  g_unlink (path);
  g_free (path);

  /* P2 text */
  path = temp_path ("clfftconvolve-k.pgm");
  s = g_string_new ("P2\n4 3\n255\n");
  for (i = 0; i < 12; i++)
    g_string_append_printf (s, "%u%c", vals[i], i % 4 == 3 ? '\n' : ' ');
  fail_unless (g_file_set_contents (path, s->str, s->len, NULL));
  g_string_free (s, TRUE);
  g_object_set (h->element, "kernel-location", path, NULL);
  push_and_check (h, &info, in, k, EDGE_MIRROR, "PGM P2");
  g_unlink (path);
  g_free (path);

  /* PNG, 8 and 16 bit */
  path = temp_path ("clfftconvolve-k.png");
  write_png (path, GST_VIDEO_FORMAT_GRAY8, vals, 4, 3);
  g_object_set (h->element, "kernel-location", path, NULL);
  push_and_check (h, &info, in, k, EDGE_MIRROR, "PNG 8-bit");
  write_png (path, GST_VIDEO_FORMAT_GRAY16_BE, vals16, 4, 3);
  g_object_set (h->element, "kernel-location", path, NULL);
  push_and_check (h, &info, in, k, EDGE_MIRROR, "PNG 16-bit");
  ref_kernel_free (&k[0]);

  /* colour: pure red, green and blue taps weigh 0.299, 0.587, 0.114 */
  {
    static const guint16 rgb[] = { 10, 0, 0, 0, 100, 0, 0, 0, 200, 255, 0, 0,
      0, 30, 0, 0, 0, 50, 100, 0, 0, 0, 255, 0, 0, 0, 20, 60, 0, 0, 0, 5, 0,
      0, 0, 255
    };
    static const gdouble grey[] = { 0.299 * 10, 0.587 * 100, 0.114 * 200,
      0.299 * 255, 0.587 * 30, 0.114 * 50, 0.299 * 100, 0.587 * 255,
      0.114 * 20, 0.299 * 60, 0.587 * 5, 0.114 * 255
    };
    write_png (path, GST_VIDEO_FORMAT_RGB, rgb, 4, 3);
    g_object_set (h->element, "kernel-location", path, NULL);
    k[0] = k[1] = ref_taps_kernel (grey, 4, 3, TRUE);
    push_and_check (h, &info, in, k, EDGE_MIRROR, "PNG RGB");
  }

  /* setting kernel clears kernel-location and the other way round */
  set_kernel (h->element, taps, 12, 4);
  {
    gchar *loc;
    g_object_get (h->element, "kernel-location", &loc, NULL);
    fail_unless (loc == NULL);
  }
  g_object_set (h->element, "kernel-location", path, NULL);
  {
    GValue arr = G_VALUE_INIT;
    g_value_init (&arr, GST_TYPE_ARRAY);
    g_object_get_property (G_OBJECT (h->element), "kernel", &arr);
    fail_unless_equals_int (gst_value_array_get_size (&arr), 0);
    g_value_unset (&arr);
  }
  g_unlink (path);
  g_free (path);

  ref_kernel_free (&k[0]);
  gst_buffer_unref (in);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* ---- tests: errors ------------------------------------------------------ */

/* Pushes a frame that must fail; returns the error message's GError. */
static GError *
push_expect_error (GstHarness * h, const GstVideoInfo * info)
{
  GstBus *bus = gst_bus_new ();
  GstBuffer *in = make_frame (info, FILL_RANDOM, 1, 0, 0);
  GstMessage *msg;
  GError *error = NULL;
  gchar *debug = NULL;

  gst_element_set_bus (h->element, bus);
  fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_ERROR);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no error message");
  gst_message_parse_error (msg, &error, &debug);
  GST_INFO ("error: %s (%s)", error->message, debug);
  g_free (debug);
  gst_message_unref (msg);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  return error;
}

static GError *
error_with_location (const gchar * location)
{
  GstVideoInfo info;
  GstHarness *h = harness_for (GST_VIDEO_FORMAT_GRAY8, 16, 16, &info);
  GError *error;

  g_object_set (h->element, "kernel-location", location, NULL);
  error = push_expect_error (h, &info);
  gst_harness_teardown (h);
  return error;
}

GST_START_TEST (test_kernel_file_errors)
{
  gchar *path = temp_path ("clfftconvolve-missing.pgm");
  GError *error;

  g_unlink (path);
  error = error_with_location (path);
  fail_unless (g_error_matches (error, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_NOT_FOUND));
  fail_unless (strstr (error->message, path) != NULL, "%s", error->message);
  g_error_free (error);

  /* not an image */
  fail_unless (g_file_set_contents (path, "hello, world", -1, NULL));
  error = error_with_location (path);
  fail_unless (g_error_matches (error, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_READ));
  g_error_free (error);

  /* truncated PGM */
  fail_unless (g_file_set_contents (path, "P5 4 4 255\nabc", -1, NULL));
  error = error_with_location (path);
  fail_unless (g_error_matches (error, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_READ));
  fail_unless (strstr (error->message, "truncated") != NULL);
  g_error_free (error);

  /* broken PNG: the signature, then garbage */
  fail_unless (g_file_set_contents (path, "\x89PNG\r\n\x1a\nxxxxxxxxxxxxxx",
          22, NULL));
  error = error_with_location (path);
  fail_unless (g_error_matches (error, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_READ));
  g_error_free (error);

  /* a directory cannot be read as a file */
  error = error_with_location (g_get_tmp_dir ());
  fail_unless (error->domain == GST_RESOURCE_ERROR);
  g_error_free (error);

  g_unlink (path);
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_kernel_errors)
{
  static const gdouble zero_sum[] = { 1, -2, 1 };
  static const gdouble five[] = { 1, 1, 1, 1, 1 };
  GstVideoInfo info;
  GstHarness *h;
  GError *error;

  /* zero sum with normalize */
  h = harness_for (GST_VIDEO_FORMAT_GRAY8, 16, 16, &info);
  set_kernel (h->element, zero_sum, 3, 3);
  error = push_expect_error (h, &info);
  fail_unless (g_error_matches (error, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_SETTINGS));
  fail_unless (strstr (error->message, "zero") != NULL);
  g_error_free (error);
  gst_harness_teardown (h);

  /* 5 taps: not square, no width */
  h = harness_for (GST_VIDEO_FORMAT_GRAY8, 16, 16, &info);
  set_kernel (h->element, five, 5, 0);
  error = push_expect_error (h, &info);
  fail_unless (strstr (error->message, "kernel-width") != NULL);
  g_error_free (error);
  gst_harness_teardown (h);

  /* width that does not divide the taps */
  h = harness_for (GST_VIDEO_FORMAT_GRAY8, 16, 16, &info);
  set_kernel (h->element, five, 5, 2);
  error = push_expect_error (h, &info);
  fail_unless (error->domain == GST_RESOURCE_ERROR);
  g_error_free (error);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_bad_radius)
{
  GstElement *e = gst_element_factory_make ("clfftconvolve", NULL);
  GValue v = G_VALUE_INIT;
  gfloat r;

  g_object_set (e, "radius", 3.0f, NULL);
  ASSERT_WARNING (g_object_set (e, "radius", -1.0f, NULL));
  g_object_get (e, "radius", &r, NULL);
  fail_unless_equals_float (r, 3.0f);
  ASSERT_WARNING (g_object_set (e, "radius", (gfloat) NAN, NULL));
  g_object_get (e, "radius", &r, NULL);
  fail_unless_equals_float (r, 3.0f);
  /* also through the string form */
  g_value_init (&v, G_TYPE_FLOAT);
  g_value_set_float (&v, -0.5f);
  ASSERT_WARNING (g_object_set_property (G_OBJECT (e), "radius", &v));
  g_value_unset (&v);
  g_object_get (e, "radius", &r, NULL);
  fail_unless_equals_float (r, 3.0f);
  gst_object_unref (e);
}

GST_END_TEST;

/* A device that does not exist: the element refuses to start, with an
 * error naming the spec. */
GST_START_TEST (test_bad_device)
{
  GstElement *e = gst_element_factory_make ("clfftconvolve", NULL);
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GError *error = NULL;
  gchar *debug = NULL;

  g_object_set (e, "device", "no-such-opencl-device", NULL);
  gst_element_set_bus (e, bus);
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  gst_message_parse_error (msg, &error, &debug);
  fail_unless (g_error_matches (error, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_NOT_FOUND));
  fail_unless (strstr (debug, "no-such-opencl-device") != NULL, "%s", debug);
  g_error_free (error);
  g_free (debug);
  gst_message_unref (msg);
  gst_element_set_state (e, GST_STATE_NULL);
  gst_element_set_bus (e, NULL);
  gst_object_unref (bus);
  gst_object_unref (e);
}

GST_END_TEST;

/* A radius far beyond what the device can pad for: a clear error naming
 * the sizes, no crash, no attempt to allocate terabytes. */
GST_START_TEST (test_too_large)
{
  GstVideoInfo info;
  GstHarness *h = harness_for (GST_VIDEO_FORMAT_RGBA, 64, 48, &info);
  GError *error;

  /* a disk is not separable: its padded 2D grid at the largest radius
   * (mirror edges) does not fit (a gaussian that wide runs as 1D lines,
   * which do) */
  gst_util_set_object_arg (G_OBJECT (h->element), "kernel-shape", "disk");
  gst_util_set_object_arg (G_OBJECT (h->element), "edge-mode", "mirror");
  g_object_set (h->element, "radius", 100000.0f, NULL);
  error = push_expect_error (h, &info);
  fail_unless (g_error_matches (error, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_NO_SPACE_LEFT));
  fail_unless (strstr (error->message, "64x48") != NULL, "%s", error->message);
  fail_unless (strstr (error->message, "200001x200001") != NULL, "%s",
      error->message);
  g_error_free (error);
  gst_harness_teardown (h);

  /* With clamp edges the same disk runs on the frame alone. So wide a
   * disk weighs each corner's quadrant about equally: the taps that meet
   * the frame or an edge strip, at most (64 + 48) x 200001 of its 3.1e10,
   * move a result by less than 4 x 7.2e-4 x 255 = 0.8 code values from
   * the four corner samples' mean. */
  {
    GstBuffer *in, *out;
    GstVideoFrame fi, fo;
    gdouble mean;

    h = harness_for (GST_VIDEO_FORMAT_GRAY8, 64, 48, &info);
    gst_util_set_object_arg (G_OBJECT (h->element), "kernel-shape", "disk");
    g_object_set (h->element, "radius", 100000.0f, NULL);
    in = make_frame (&info, FILL_RANDOM, 5, 0, 0);
    out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
    fail_unless (out != NULL);
    fail_unless (gst_video_frame_map (&fi, &info, in, GST_MAP_READ));
    fail_unless (gst_video_frame_map (&fo, &info, out, GST_MAP_READ));
    mean = (comp_get (&fi, 0, 0, 0) + comp_get (&fi, 0, 63, 0) +
        comp_get (&fi, 0, 0, 47) + comp_get (&fi, 0, 63, 47)) / 4.0;
    for (gint y = 0; y < 48; y++)
      for (gint x = 0; x < 64; x++)
        fail_unless (fabs (comp_get (&fo, 0, x, y) - mean) <= 1.3,
            "(%d,%d): %u, the corners' mean %.2f", x, y,
            comp_get (&fo, 0, x, y), mean);
    gst_video_frame_unmap (&fi);
    gst_video_frame_unmap (&fo);
    gst_buffer_unref (in);
    gst_buffer_unref (out);
    gst_harness_teardown (h);
  }

  /* a device allocation that fails (test hook) also names the frame */
  h = harness_for (GST_VIDEO_FORMAT_RGBA, 64, 48, &info);
  g_object_set (h->element, "radius", 3.0f, NULL);
  clf_debug_fail_alloc_after (0);
  error = push_expect_error (h, &info);
  clf_debug_fail_alloc_after (-1);
  fail_unless (g_error_matches (error, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_NO_SPACE_LEFT));
  fail_unless (strstr (error->message, "64x48") != NULL, "%s", error->message);
  g_error_free (error);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* ---- tests: streaming behaviour ----------------------------------------- */

/* New caps mid-stream: size and format change, each result exact. */
GST_START_TEST (test_caps_change)
{
  GstVideoInfo info;
  GstHarness *h = harness_for (GST_VIDEO_FORMAT_RGBA, 32, 24, &info);
  GstBuffer *in;

  g_object_set (h->element, "radius", 4.0f, NULL);
  in = make_frame (&info, FILL_RANDOM, 31, 0, 0);
  push_and_check_shape (h, &info, in, SHAPE_GAUSSIAN, 4.0, EDGE_CLAMP,
      "before caps change");
  gst_buffer_unref (in);

  harness_recaps (h, GST_VIDEO_FORMAT_I420, 50, 40, &info);
  in = make_frame (&info, FILL_RANDOM, 32, 0, 0);
  push_and_check_shape (h, &info, in, SHAPE_GAUSSIAN, 4.0, EDGE_CLAMP,
      "after caps change");
  gst_buffer_unref (in);

  harness_recaps (h, GST_VIDEO_FORMAT_GRAY8, 16, 16, &info);
  in = make_frame (&info, FILL_RANDOM, 33, 0, 0);
  push_and_check_shape (h, &info, in, SHAPE_GAUSSIAN, 4.0, EDGE_CLAMP,
      "second caps change");
  gst_buffer_unref (in);

  gst_harness_teardown (h);
}

GST_END_TEST;

/* Properties changed while PLAYING apply from the next frame; radius 0
 * passes the very buffer through. */
GST_START_TEST (test_change_while_playing)
{
  GstVideoInfo info;
  GstHarness *h = harness_for (GST_VIDEO_FORMAT_NV12, 41, 31, &info);
  GstBuffer *in = make_frame (&info, FILL_RANDOM, 41, 0, 0), *out;

  fail_unless_equals_int (GST_STATE (h->element), GST_STATE_PLAYING);
  g_object_set (h->element, "radius", 2.0f, NULL);
  push_and_check_shape (h, &info, in, SHAPE_GAUSSIAN, 2.0, EDGE_CLAMP,
      "radius 2");

  g_object_set (h->element, "radius", 9.0f, NULL);
  gst_util_set_object_arg (G_OBJECT (h->element), "kernel-shape", "box");
  push_and_check_shape (h, &info, in, SHAPE_BOX, 9.0, EDGE_WRAP, "box 9 wrap");

  /* same extent, so the same padded grid: only the spectrum changes */
  gst_util_set_object_arg (G_OBJECT (h->element), "kernel-shape", "disk");
  push_and_check_shape (h, &info, in, SHAPE_DISK, 9.0, EDGE_WRAP,
      "disk 9 wrap");

  g_object_set (h->element, "radius", 0.0f, NULL);
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
      GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless (out == in, "radius 0 must pass the buffer through");
  gst_buffer_unref (out);

  g_object_set (h->element, "radius", 3.0f, NULL);
  gst_util_set_object_arg (G_OBJECT (h->element), "kernel-shape", "disk");
  push_and_check_shape (h, &info, in, SHAPE_DISK, 3.0, EDGE_WRAP,
      "disk 3 after passthrough");

  gst_buffer_unref (in);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The radius driven by a GstController: linear 1 -> 9 over one second of
 * stream time, sampled at each buffer's timestamp. */
GST_START_TEST (test_controller)
{
  GstVideoInfo info;
  GstHarness *h = harness_for (GST_VIDEO_FORMAT_GRAY8, 40, 30, &info);
  GstControlSource *cs = gst_interpolation_control_source_new ();
  GstTimedValueControlSource *tvcs = (GstTimedValueControlSource *) cs;
  static const gdouble times[] = { 0.0, 0.5, 1.0 };
  gint i;

  g_object_set (cs, "mode", GST_INTERPOLATION_MODE_LINEAR, NULL);
  gst_timed_value_control_source_set (tvcs, 0, 1.0);
  gst_timed_value_control_source_set (tvcs, GST_SECOND, 9.0);
  gst_object_add_control_binding (GST_OBJECT (h->element),
      gst_direct_control_binding_new_absolute (GST_OBJECT (h->element),
          "radius", cs));
  for (i = 0; i < 3; i++) {
    GstBuffer *in = make_frame (&info, FILL_RANDOM, 50 + i, 0, 0);
    gdouble radius = 1.0 + 8.0 * times[i];
    gfloat got;

    GST_BUFFER_PTS (in) = (GstClockTime) (times[i] * GST_SECOND);
    push_and_check_shape (h, &info, in, SHAPE_GAUSSIAN, radius, EDGE_CLAMP,
        "controlled radius");
    g_object_get (h->element, "radius", &got, NULL);
    fail_unless_equals_float (got, radius);
    gst_buffer_unref (in);
  }
  gst_object_unref (cs);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A real pipeline with a blur whose radius changes from another thread
 * while it plays: every frame must arrive and none may fail. */
GST_START_TEST (test_pipeline_playing)
{
  GstElement *pipe = gst_parse_launch ("videotestsrc num-buffers=40 "
      "is-live=true ! video/x-raw,format=I420,width=96,height=64,"
      "framerate=200/1 ! clfftconvolve name=c ! fakesink name=s "
      "signal-handoffs=true", NULL);
  GstElement *c = gst_bin_get_by_name (GST_BIN (pipe), "c");
  GstMessage *msg;
  gint i;

  fail_unless (pipe != NULL);
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  for (i = 0; i < 20; i++) {
    g_object_set (c, "radius", (gfloat) (i % 5) * 7.5f, NULL);
    gst_util_set_object_arg (G_OBJECT (c), "kernel-shape", shape_names[i % 3]);
    g_usleep (5000);
  }
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipe),
      300 * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (c);
  gst_object_unref (pipe);
}

GST_END_TEST;

/* ---- frame overlap ------------------------------------------------------ */

/* Pulls the next output and checks it is frame `in` convolved, with in's
 * timestamp. */
static void
pull_and_check_overlap (GstHarness * h, const GstVideoInfo * info,
    GstBuffer * in, const gchar * what)
{
  GstBuffer *out = gst_harness_try_pull (h);
  RefKernel k[2];

  fail_unless (out != NULL, "%s: no output", what);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (out), GST_BUFFER_PTS (in));
  k[0] = ref_shape_kernel (SHAPE_GAUSSIAN, 6.0);
  k[1] = ref_shape_kernel (SHAPE_GAUSSIAN, 3.0);
  check_frame (info, in, out, k, EDGE_CLAMP, what);
  ref_kernel_free (&k[0]);
  ref_kernel_free (&k[1]);
  gst_buffer_unref (out);
}

static GstBuffer *
overlap_frame (const GstVideoInfo * info, guint i)
{
  GstBuffer *in = make_frame (info, FILL_RANDOM, 100 + i, 0, 0);

  GST_BUFFER_PTS (in) = i * GST_BUFFER_DURATION (in);
  return in;
}

/* frame-overlap=true holds each frame back until the next one comes in,
 * through the two frame buffers and copy queues a GPU uses (forced here on
 * any device): every frame comes out once, in order, convolved; a caps
 * change and EOS push the frame held back out first. */
GST_START_TEST (test_frame_overlap)
{
  GstVideoInfo info, info2;
  GstHarness *h;
  GstBuffer *in[6];
  guint i;

  g_setenv ("CLFFT_TRANSFER_QUEUES", "1", TRUE);
  h = harness_for (GST_VIDEO_FORMAT_RGBA, 45, 33, &info);
  g_object_set (h->element, "radius", 6.0f, "frame-overlap", TRUE, NULL);
  for (i = 0; i < 4; i++) {
    in[i] = overlap_frame (&info, i);
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in[i])),
        GST_FLOW_OK);
    /* the first frame is held back, then each push releases the one before */
    fail_unless_equals_int (gst_harness_buffers_in_queue (h), i > 0);
    if (i > 0)
      pull_and_check_overlap (h, &info, in[i - 1], "overlapped frame");
  }

  /* new caps: the RGBA frame held back goes out before them */
  harness_recaps (h, GST_VIDEO_FORMAT_I420, 50, 40, &info2);
  pull_and_check_overlap (h, &info, in[3], "frame before new caps");
  for (i = 4; i < 6; i++) {
    in[i] = overlap_frame (&info2, i);
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in[i])),
        GST_FLOW_OK);
  }
  pull_and_check_overlap (h, &info2, in[4], "frame after new caps");
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);

  /* EOS: the last frame, then EOS */
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  pull_and_check_overlap (h, &info2, in[5], "last frame at EOS");
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);

  for (i = 0; i < 6; i++)
    gst_buffer_unref (in[i]);
  gst_harness_teardown (h);
  g_unsetenv ("CLFFT_TRANSFER_QUEUES");
}

GST_END_TEST;

/* A flush drops the frame held back; the latency query counts it. */
GST_START_TEST (test_frame_overlap_flush_and_latency)
{
  GstVideoInfo info;
  GstHarness *h = gst_harness_new ("clfftconvolve");
  GstBuffer *in[2];
  GstQuery *q;
  GstClockTime min;
  GstCaps *caps;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, 32, 24);
  GST_VIDEO_INFO_FPS_N (&info) = 30;
  GST_VIDEO_INFO_FPS_D (&info) = 1;
  caps = gst_video_info_to_caps (&info);
  gst_harness_set_caps (h, gst_caps_ref (caps), caps);
  g_object_set (h->element, "radius", 6.0f, "frame-overlap", TRUE, NULL);

  in[0] = overlap_frame (&info, 0);
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in[0])),
      GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gst_harness_play (h);
  gst_harness_set_caps (h, gst_video_info_to_caps (&info),
      gst_video_info_to_caps (&info));
  in[1] = overlap_frame (&info, 1);
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in[1])),
      GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);

  /* upstream (the harness) reports no latency: ours is one frame */
  q = gst_query_new_latency ();
  fail_unless (gst_pad_peer_query (h->sinkpad, q));
  gst_query_parse_latency (q, NULL, &min, NULL);
  fail_unless_equals_uint64 (min, GST_SECOND / 30);
  gst_query_unref (q);

  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  pull_and_check_overlap (h, &info, in[1], "frame after the flush");
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);
  gst_buffer_unref (in[0]);
  gst_buffer_unref (in[1]);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* ---- audio dispatch ----------------------------------------------------- */

/* Audio caps go to the audio half: the output with the EOS tail equals the
 * direct convolution, and the latency query adds the block. */
GST_START_TEST (test_audio_dispatch)
{
  static const gdouble ir[] = { 0.5, 0.25, -0.125, 0.0625 };
  const guint n = 3000, chunk = 500;
  GstHarness *h = gst_harness_new ("clfftconvolve");
  GstVideoInfo vinfo;
  GstBuffer *vin;
  GstQuery *q;
  GValue arr = G_VALUE_INIT, v = G_VALUE_INIT;
  gfloat *x = g_new (gfloat, n);
  gdouble *y = g_new0 (gdouble, n + 3), num = 0.0, den = 0.0;
  GstClockTime min, max;
  gboolean live;
  guint i, k, got = 0;

  /* a video frame first, then audio on the same element */
  gst_video_info_set_format (&vinfo, GST_VIDEO_FORMAT_GRAY8, 16, 16);
  gst_harness_set_caps (h, gst_video_info_to_caps (&vinfo),
      gst_video_info_to_caps (&vinfo));
  vin = make_frame (&vinfo, FILL_RANDOM, 3, 0, 0);
  fail_unless_equals_int (gst_harness_push (h, vin), GST_FLOW_OK);
  gst_buffer_unref (gst_harness_pull (h));

  g_value_init (&arr, GST_TYPE_ARRAY);
  g_value_init (&v, G_TYPE_DOUBLE);
  for (i = 0; i < G_N_ELEMENTS (ir); i++) {
    g_value_set_double (&v, ir[i]);
    gst_value_array_append_value (&arr, &v);
  }
  g_object_set_property (G_OBJECT (h->element), "impulse-response", &arr);
  g_value_unset (&arr);
  g_value_unset (&v);
  g_object_set (h->element, "block-size", 256, NULL);
  gst_harness_set_caps_str (h, "audio/x-raw,format=" GST_AUDIO_NE (F32)
      ",layout=interleaved,rate=48000,channels=1",
      "audio/x-raw,format=" GST_AUDIO_NE (F32)
      ",layout=interleaved,rate=48000,channels=1");

  for (i = 0; i < n; i++)
    x[i] = sinf (i * 0.01f) * 0.5f + ((i * 7919) % 101) / 404.0f;
  for (i = 0; i < n + 3; i++)
    for (k = 0; k < G_N_ELEMENTS (ir); k++)
      if (i >= k && i - k < n)
        y[i] += ir[k] * x[i - k];

  for (i = 0; i < n; i += chunk) {
    GstBuffer *b = gst_buffer_new_memdup (x + i, chunk * sizeof (gfloat));
    GST_BUFFER_PTS (b) = gst_util_uint64_scale (i, GST_SECOND, 48000);
    GST_BUFFER_DURATION (b) = gst_util_uint64_scale (chunk, GST_SECOND, 48000);
    fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
  }
  q = gst_query_new_latency ();
  fail_unless (gst_pad_query (GST_PAD (h->element->srcpads->data), q));
  gst_query_parse_latency (q, &live, &min, &max);
  fail_unless_equals_uint64 (min, gst_util_uint64_scale (256, GST_SECOND,
          48000));
  gst_query_unref (q);

  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  while (gst_harness_buffers_in_queue (h) > 0) {
    GstBuffer *b = gst_harness_pull (h);
    GstMapInfo map;
    const gfloat *o;
    guint m;

    gst_buffer_map (b, &map, GST_MAP_READ);
    o = (const gfloat *) map.data;
    m = map.size / sizeof (gfloat);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (b),
        gst_util_uint64_scale (got, GST_SECOND, 48000));
    for (i = 0; i < m && got + i < n + 3; i++) {
      num += (o[i] - y[got + i]) * (o[i] - y[got + i]);
      den += y[got + i] * y[got + i];
    }
    got += m;
    gst_buffer_unmap (b, &map);
    gst_buffer_unref (b);
  }
  fail_unless (got >= n + 3, "got %u samples, want %u", got, n + 3);
  fail_unless (sqrt (num / den) <= 1e-5, "relative RMS %g", sqrt (num / den));
  g_free (x);
  g_free (y);
  gst_harness_teardown (h);
}

GST_END_TEST;

static Suite *
clfftconvolve_video_suite (void)
{
  Suite *s = suite_create ("clfftconvolve-video");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_formats);
  tcase_add_test (tc, test_strides);
  tcase_add_test (tc, test_shapes_and_edges);
  tcase_add_test (tc, test_radii);
  tcase_add_test (tc, test_edge_switch);
  tcase_add_test (tc, test_tiny_frames);
  tcase_add_test (tc, test_impulse);
  tcase_add_test (tc, test_custom_kernel);
  tcase_add_test (tc, test_frame_alone_grid);
  tcase_add_test (tc, test_frame_alone_radius_change);
  tcase_add_test (tc, test_kernel_files);
  tcase_add_test (tc, test_kernel_file_errors);
  tcase_add_test (tc, test_kernel_errors);
  tcase_add_test (tc, test_bad_radius);
  tcase_add_test (tc, test_bad_device);
  tcase_add_test (tc, test_fused_lines);
  tcase_add_test (tc, test_frame_alone_lines);
  tcase_add_test (tc, test_lines_in_chunks);
  tcase_add_test (tc, test_long_fused_lines);
  tcase_add_test (tc, test_too_large);
  tcase_add_test (tc, test_caps_change);
  tcase_add_test (tc, test_change_while_playing);
  tcase_add_test (tc, test_controller);
  tcase_add_test (tc, test_pipeline_playing);
  tcase_add_test (tc, test_frame_overlap);
  tcase_add_test (tc, test_frame_overlap_flush_and_latency);
  tcase_add_test (tc, test_audio_dispatch);
  return s;
}

GST_CHECK_MAIN (clfftconvolve_video);

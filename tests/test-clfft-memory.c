/* test-clfft-memory.c: chained clfft elements keep frames on the device (memory:CLFFTBuffer) and fall back to system memory elsewhere. */
#include <gst/check/gstcheck.h>
#include <gst/video/video.h>
#include <math.h>
#include <string.h>

#include "clf.h"

/* as gst/gstclfftmemory.h defines them */
#define FEATURE "memory:CLFFTBuffer"
#define MAP_CLFFT (GST_MAP_FLAG_LAST << 1)
#define SYSMEM "video/x-raw(memory:SystemMemory)"
#define DEVMEM "video/x-raw(" FEATURE ")"

/* A moving test pattern, so every frame differs and a frame shown twice
 * or out of order is seen. */
#define SOURCE "videotestsrc pattern=ball num-buffers=%u ! " \
    "video/x-raw,format=%s,width=%u,height=%u,framerate=30/1"

/* ---- running pipelines --------------------------------------------------- */

typedef struct
{
  GPtrArray *frames;            /* GstBuffer, as the appsink got them */
  GstVideoInfo info;            /* of the appsink's caps */
  GPtrArray *messages;          /* GstStructure of "spectrum" messages */
  ClfTransferCounts transfers;  /* from PLAYING to EOS */
} Run;

static void
run_clear (Run * run)
{
  g_ptr_array_unref (run->frames);
  g_ptr_array_unref (run->messages);
}

static gboolean
caps_have_feature (GstCaps * caps)
{
  return caps && gst_caps_get_size (caps) > 0 &&
      gst_caps_features_contains (gst_caps_get_features (caps, 0), FEATURE);
}

/* Whether the current caps of pad "element:pad" of pipe have the feature;
 * fails if the pad has no caps. */
static gboolean
pad_has_feature (GstElement * pipe, const gchar * spec)
{
  gchar **parts = g_strsplit (spec, ":", 2);
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipe), parts[0]);
  GstPad *pad;
  GstCaps *caps;
  gboolean ret;

  fail_unless (e != NULL, "no element %s", parts[0]);
  pad = gst_element_get_static_pad (e, parts[1]);
  fail_unless (pad != NULL, "no pad %s", spec);
  caps = gst_pad_get_current_caps (pad);
  fail_unless (caps != NULL, "%s has no caps", spec);
  ret = caps_have_feature (caps);
  gst_caps_unref (caps);
  gst_object_unref (pad);
  gst_object_unref (e);
  g_strfreev (parts);
  return ret;
}

static GstSample *
pull (GstElement * sink)
{
  GstSample *s = NULL;
  g_signal_emit_by_name (sink, "pull-sample", &s);
  return s;
}

static void
keep_sample (Run * run, GstSample * sample)
{
  if (run->frames->len == 0)
    fail_unless (gst_video_info_from_caps (&run->info,
            gst_sample_get_caps (sample)));
  g_ptr_array_add (run->frames, gst_buffer_ref (gst_sample_get_buffer
          (sample)));
  gst_sample_unref (sample);
}

/* After EOS: no error, and the spectrum messages in posting order. */
static void
collect_messages (GstElement * pipe, Run * run)
{
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *m;

  while ((m = gst_bus_pop (bus))) {
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
      GError *err;
      gchar *dbg;

      gst_message_parse_error (m, &err, &dbg);
      fail ("error from %s: %s (%s)", GST_OBJECT_NAME (GST_MESSAGE_SRC (m)),
          err->message, dbg);
    }
    if (run && GST_MESSAGE_TYPE (m) == GST_MESSAGE_ELEMENT &&
        gst_message_has_name (m, "spectrum"))
      g_ptr_array_add (run->messages,
          gst_structure_copy (gst_message_get_structure (m)));
    gst_message_unref (m);
  }
  gst_object_unref (bus);
}

static GstElement *
parse (const gchar * desc)
{
  GError *error = NULL;
  GstElement *pipe = gst_parse_launch (desc, &error);

  fail_unless (pipe != NULL && error == NULL, "%s: %s", desc,
      error ? error->message : "");
  return pipe;
}

/* Counts transfers from here. */
static void
play (GstElement * pipe)
{
  clf_debug_reset_transfers ();
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
}

static GstElement *
start (const gchar * desc)
{
  GstElement *pipe = parse (desc);

  play (pipe);
  return pipe;
}

static void
run_init (Run * run)
{
  run->frames = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  run->messages = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_structure_free);
}

/* Runs desc (with an appsink named "sink") to EOS and keeps every frame.
 * For each of the n_pads pads "element:pad", whether its caps had the
 * feature goes to feature[i]. The pipeline is gone when this returns:
 * whatever the caller does with the frames, their memory outlived the
 * elements that made it. */
static void
run_pipeline (const gchar * desc, const gchar * const *pads, guint n_pads,
    gboolean * feature, Run * run)
{
  GstElement *pipe = start (desc);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  GstSample *sample;
  guint i;

  run_init (run);
  while ((sample = pull (sink)))
    keep_sample (run, sample);
  clf_debug_get_transfers (&run->transfers);
  collect_messages (pipe, run);
  for (i = 0; i < n_pads; i++)
    feature[i] = pad_has_feature (pipe, pads[i]);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipe);
}

/* ---- comparing frames ---------------------------------------------------- */

/* The bytes of plane p that belong to the picture (not row padding). */
static void
plane_extent (const GstVideoInfo * info, guint p, gsize * row_bytes,
    guint * rows)
{
  guint c;

  *row_bytes = 0;
  *rows = 0;
  for (c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (info); c++) {
    if (GST_VIDEO_INFO_COMP_PLANE (info, c) != p)
      continue;
    *row_bytes = MAX (*row_bytes, (gsize) GST_VIDEO_INFO_COMP_WIDTH (info, c)
        * GST_VIDEO_INFO_COMP_PSTRIDE (info, c));
    *rows = MAX (*rows, (guint) GST_VIDEO_INFO_COMP_HEIGHT (info, c));
  }
}

/* The pictures of a and b, mapped for the CPU, are byte-identical. */
static void
assert_same_frame (const GstVideoInfo * info, GstBuffer * a, GstBuffer * b,
    guint index)
{
  GstVideoFrame fa, fb;
  guint p, y;

  fail_unless (gst_video_frame_map (&fa, info, a, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fb, info, b, GST_MAP_READ));
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    gsize row_bytes;
    guint rows;

    plane_extent (info, p, &row_bytes, &rows);
    for (y = 0; y < rows; y++) {
      const guint8 *ra = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fa, p)
          + (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&fa, p);
      const guint8 *rb = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fb, p)
          + (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&fb, p);

      fail_unless (memcmp (ra, rb, row_bytes) == 0,
          "frame %u of %s differs in plane %u, row %u", index,
          GST_VIDEO_INFO_NAME (info), p, y);
    }
  }
  gst_video_frame_unmap (&fb);
  gst_video_frame_unmap (&fa);
}

static void
assert_same_frames (Run * a, Run * b)
{
  guint i;

  fail_unless (a->frames->len > 0);
  fail_unless_equals_int (a->frames->len, b->frames->len);
  fail_unless (gst_video_info_is_equal (&a->info, &b->info));
  for (i = 0; i < a->frames->len; i++)
    assert_same_frame (&a->info, g_ptr_array_index (a->frames, i),
        g_ptr_array_index (b->frames, i), i);
}

/* The radial spectra of clfftspectrum's messages agree (the device sums
 * them with atomics, in no fixed order: within float rounding). */
static void
assert_same_messages (Run * a, Run * b)
{
  guint i, j;

  fail_unless (a->messages->len > 0);
  fail_unless_equals_int (a->messages->len, b->messages->len);
  for (i = 0; i < a->messages->len; i++) {
    const GValue *ma = gst_structure_get_value (g_ptr_array_index
        (a->messages, i), "magnitude");
    const GValue *mb = gst_structure_get_value (g_ptr_array_index
        (b->messages, i), "magnitude");

    fail_unless (ma != NULL && mb != NULL);
    fail_unless_equals_int (gst_value_list_get_size (ma),
        gst_value_list_get_size (mb));
    for (j = 0; j < gst_value_list_get_size (ma); j++) {
      gfloat va = g_value_get_float (gst_value_list_get_value (ma, j));
      gfloat vb = g_value_get_float (gst_value_list_get_value (mb, j));

      fail_unless (fabsf (va - vb) < 1e-3f, "message %u band %u: %g vs %g",
          i, j, va, vb);
    }
  }
}

static gboolean
is_clfft_buffer (GstBuffer * buf)
{
  return gst_buffer_n_memory (buf) == 1 &&
      gst_memory_is_type (gst_buffer_peek_memory (buf, 0), "CLFFTBuffer");
}

/* ---- tests --------------------------------------------------------------- */

/* Two clfftconvolve in a row negotiate memory:CLFFTBuffer between them
 * (not towards videotestsrc), and give what the same chain gives through
 * system memory: with padded rows and chroma planes (I420 63x47), bytes
 * that belong to no channel (RGBx), 16-bit samples. */
GST_START_TEST (test_convolve_chain)
{
  static const struct
  {
    const gchar *format;
    guint w, h;
  } cases[] = { {"I420", 63, 47}, {"RGBx", 48, 32}, {"GRAY16_LE", 40, 30} };
  static const gchar *const pads[] = { "a:src", "a:sink", "b:src" };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    gchar *src = g_strdup_printf (SOURCE, 4, cases[i].format, cases[i].w,
        cases[i].h);
    gchar *dev = g_strdup_printf ("%s ! clfftconvolve name=a radius=3 ! "
        "clfftconvolve name=b radius=5 ! appsink name=sink", src);
    gchar *sys = g_strdup_printf ("%s ! clfftconvolve name=a radius=3 ! "
        SYSMEM " ! clfftconvolve name=b radius=5 ! appsink name=sink", src);
    gboolean fd[3], fs[3];
    Run rd, rs;

    run_pipeline (dev, pads, 3, fd, &rd);
    run_pipeline (sys, pads, 3, fs, &rs);
    fail_unless (fd[0], "%s: no device memory between the elements", dev);
    fail_if (fd[1], "%s: device memory from videotestsrc", dev);
    fail_if (fs[0], "%s: device memory through a system capsfilter", sys);
    /* an appsink without caps takes anything, device memory too (as
     * GstGL and CUDA elements do): it maps for the CPU */
    fail_unless (fd[2] && fs[2]);
    assert_same_frames (&rd, &rs);
    run_clear (&rd);
    run_clear (&rs);
    g_free (src);
    g_free (dev);
    g_free (sys);
  }
}

GST_END_TEST;

/* clfftconvolve ! clfftspectrum ! clfftconvolve: the spectrum reads its
 * input and writes its (GRAY8, rows padded from 66 to 68 bytes) output on
 * the device, with the same pictures and radial spectra as through system
 * memory. */
GST_START_TEST (test_convolve_spectrum_chain)
{
  static const gchar *const pads[] = { "a:src", "s:src" };
  gchar *src = g_strdup_printf (SOURCE, 4, "I420", 66, 50);
  gchar *dev = g_strdup_printf ("%s ! clfftconvolve name=a radius=2 ! "
      "clfftspectrum name=s bands=16 ! clfftconvolve name=c radius=1 ! "
      "appsink name=sink caps=video/x-raw", src);
  gchar *sys = g_strdup_printf ("%s ! clfftconvolve name=a radius=2 ! "
      SYSMEM " ! clfftspectrum name=s bands=16 ! " SYSMEM " ! "
      "clfftconvolve name=c radius=1 ! appsink name=sink caps=video/x-raw",
      src);
  gboolean fd[2], fs[2];
  Run rd, rs;

  run_pipeline (dev, pads, 2, fd, &rd);
  run_pipeline (sys, pads, 2, fs, &rs);
  fail_unless (fd[0] && fd[1], "%s: no device memory between the elements",
      dev);
  fail_if (fs[0] || fs[1]);
  assert_same_frames (&rd, &rs);
  assert_same_messages (&rd, &rs);
  fail_unless_equals_int (rd.messages->len, 4);
  run_clear (&rd);
  run_clear (&rs);
  g_free (src);
  g_free (dev);
  g_free (sys);
}

GST_END_TEST;

/* An appsink asking for device memory gets clfft memories; mapped for the
 * CPU (after the pipeline is gone) they hold the pictures the system
 * memory run gives. Each is downloaded once, at its first map. A plain
 * appsink (video/x-raw) gets system memory. */
GST_START_TEST (test_appsink_device_caps)
{
  static const gchar *const pads[] = { "a:src" };
  gchar *src = g_strdup_printf (SOURCE, 5, "RGBA", 64, 48);
  gchar *dev = g_strdup_printf ("%s ! clfftconvolve name=a radius=4 ! "
      "appsink name=sink caps=\"" DEVMEM "\"", src);
  gchar *sys = g_strdup_printf ("%s ! clfftconvolve name=a radius=4 ! "
      "appsink name=sink caps=video/x-raw", src);
  gboolean fd, fs;
  ClfTransferCounts t;
  Run rd, rs;
  guint i;

  run_pipeline (dev, pads, 1, &fd, &rd);
  run_pipeline (sys, pads, 1, &fs, &rs);
  fail_unless (fd);
  fail_if (fs);
  for (i = 0; i < rd.frames->len; i++) {
    fail_unless (is_clfft_buffer (g_ptr_array_index (rd.frames, i)));
    fail_if (is_clfft_buffer (g_ptr_array_index (rs.frames, i)));
  }
  /* the frames never left the device while playing */
  fail_unless_equals_int (rd.transfers.uploads, 5);
  fail_unless_equals_int (rd.transfers.downloads, 0);

  clf_debug_reset_transfers ();
  assert_same_frames (&rd, &rs);
  clf_debug_get_transfers (&t);
  fail_unless_equals_int (t.downloads, 5);
  fail_unless_equals_int (t.download_bytes, 5 * 64 * 48 * 4);
  /* the host copy is kept while the device does not write */
  assert_same_frames (&rd, &rs);
  clf_debug_get_transfers (&t);
  fail_unless_equals_int (t.downloads, 5);
  fail_unless_equals_int (t.uploads, 0);
  run_clear (&rd);
  run_clear (&rs);
  g_free (src);
  g_free (dev);
  g_free (sys);
}

GST_END_TEST;

/* An element that cannot take device memory between two clfftconvolve
 * (videoconvert changing RGBA to BGRA) makes both links system memory,
 * and the result is the one of the device chain converted afterwards:
 * the blur treats every channel alike, so the order of a byte swap and
 * the blur does not matter. */
GST_START_TEST (test_system_element_between)
{
  static const gchar *const pads[] = { "a:src", "b:sink" };
  gchar *src = g_strdup_printf (SOURCE, 4, "RGBA", 64, 48);
  gchar *between = g_strdup_printf ("%s ! clfftconvolve name=a radius=3 ! "
      "videoconvert ! video/x-raw,format=BGRA ! clfftconvolve name=b "
      "radius=5 ! appsink name=sink caps=video/x-raw", src);
  gchar *after = g_strdup_printf ("%s ! clfftconvolve name=a radius=3 ! "
      "clfftconvolve name=b radius=5 ! videoconvert ! "
      "video/x-raw,format=BGRA ! appsink name=sink caps=video/x-raw", src);
  gboolean fb[2], fa[2];
  Run rb, ra;

  run_pipeline (between, pads, 2, fb, &rb);
  run_pipeline (after, pads, 2, fa, &ra);
  fail_if (fb[0] || fb[1], "%s: device memory into videoconvert", between);
  fail_unless (fa[0] && fa[1]);
  assert_same_frames (&rb, &ra);
  run_clear (&rb);
  run_clear (&ra);
  g_free (src);
  g_free (between);
  g_free (after);
}

GST_END_TEST;

/* Frames cross between host and device once each way in a chain of two,
 * instead of twice each way through system memory. */
GST_START_TEST (test_transfer_counts)
{
  const guint n = 6, size = 64 * 48;
  gchar *src = g_strdup_printf (SOURCE, n, "GRAY8", 64, 48);
  gchar *dev = g_strdup_printf ("%s ! clfftconvolve radius=3 ! "
      "clfftconvolve radius=5 ! appsink name=sink caps=video/x-raw", src);
  gchar *sys = g_strdup_printf ("%s ! clfftconvolve radius=3 ! " SYSMEM
      " ! clfftconvolve radius=5 ! appsink name=sink caps=video/x-raw", src);
  Run rd, rs;

  run_pipeline (dev, NULL, 0, NULL, &rd);
  run_pipeline (sys, NULL, 0, NULL, &rs);
  fail_unless_equals_int (rd.frames->len, n);
  fail_unless_equals_int (rd.transfers.uploads, n);
  fail_unless_equals_int (rd.transfers.downloads, n);
  fail_unless_equals_int (rd.transfers.upload_bytes, n * size);
  fail_unless_equals_int (rd.transfers.download_bytes, n * size);
  fail_unless_equals_int (rs.transfers.uploads, 2 * n);
  fail_unless_equals_int (rs.transfers.downloads, 2 * n);
  assert_same_frames (&rd, &rs);
  run_clear (&rd);
  run_clear (&rs);
  g_free (src);
  g_free (dev);
  g_free (sys);
}

GST_END_TEST;

/* The context object an element runs on, from its context query. */
static gpointer
element_clf_context (GstElement * pipe, const gchar * name)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipe), name);
  GstPad *pad = gst_element_get_static_pad (e, "src");
  GstQuery *q = gst_query_new_context ("gst.clfft.context");
  GstContext *context = NULL;
  gpointer ctx;

  fail_unless (gst_pad_query (pad, q));
  gst_query_parse_context (q, &context);
  fail_unless (gst_structure_get (gst_context_get_structure (context),
          "clf-context", g_type_from_name ("ClfContext"), &ctx, NULL));
  /* only its identity is compared: drop the copy's reference */
  clf_context_unref (ctx);
  gst_query_unref (q);
  gst_object_unref (pad);
  gst_object_unref (e);
  return ctx;
}

/* The default device's name: as a device spec it picks that device, but
 * through a context of its own, so the two elements below do not share. */
static gchar *
default_device_name (void)
{
  ClfError err = { CLF_OK, "" };
  ClfContext *ctx = clf_context_new (NULL, &err);
  gchar *name;

  fail_unless (ctx != NULL, "no OpenCL device: %s", err.message);
  name = g_strdup (clf_context_get_device_name (ctx));
  clf_context_unref (ctx);
  return name;
}

/* Caps cannot tell contexts apart, so elements on two contexts still
 * negotiate the feature; the second treats the first's memories as
 * foreign: mapped (a download on the first's queue) and uploaded. */
GST_START_TEST (test_foreign_context)
{
  const guint n = 3;
  gchar *device = default_device_name ();
  gchar *src = g_strdup_printf (SOURCE, n, "GRAY8", 64, 48);
  gchar *dev = g_strdup_printf ("%s ! clfftconvolve name=a radius=3 "
      "device=\"%s\" ! clfftconvolve name=b radius=5 ! appsink name=sink "
      "caps=video/x-raw", src, device);
  gchar *sys = g_strdup_printf ("%s ! clfftconvolve radius=3 ! " SYSMEM
      " ! clfftconvolve radius=5 ! appsink name=sink caps=video/x-raw", src);
  GstElement *pipe;
  GstSample *sample;
  GstElement *sink;
  Run rd, rs;

  /* run by hand, to look at the elements' contexts while they run */
  pipe = start (dev);
  sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  run_init (&rd);
  while ((sample = pull (sink)))
    keep_sample (&rd, sample);
  clf_debug_get_transfers (&rd.transfers);
  collect_messages (pipe, &rd);
  fail_unless (pad_has_feature (pipe, "a:src"));
  fail_unless (element_clf_context (pipe, "a") != element_clf_context (pipe,
          "b"), "both elements run on one context");
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipe);

  run_pipeline (sys, NULL, 0, NULL, &rs);
  fail_unless_equals_int (rd.transfers.uploads, 2 * n);
  fail_unless_equals_int (rd.transfers.downloads, 2 * n);
  assert_same_frames (&rd, &rs);
  run_clear (&rd);
  run_clear (&rs);
  g_free (device);
  g_free (src);
  g_free (dev);
  g_free (sys);
}

GST_END_TEST;

/* The memory's own sync rules, through its allocator (taken from a frame
 * a clfftconvolve made): a new memory reads as zeros without a transfer;
 * CPU writes are uploaded once, when a clfftconvolve of the same context
 * uses the memory on the device; copies (whole or part) take the newer
 * side. */
GST_START_TEST (test_memory_sync)
{
  const guint w = 64, h = 48, size = w * h;
  gchar *src = g_strdup_printf (SOURCE, 1, "GRAY8", w, h);
  gchar *grab = g_strdup_printf ("%s ! clfftconvolve radius=1 ! appsink "
      "name=sink caps=\"" DEVMEM "\"", src);
  gchar *caps = g_strdup_printf ("video/x-raw(%s),format=GRAY8,width=%u,"
      "height=%u,framerate=0/1", FEATURE, w, h);
  gchar *through = g_strdup_printf ("appsrc name=in format=time caps=\"%s\" ! "
      "clfftconvolve radius=3 ! appsink name=sink caps=video/x-raw", caps);
  gchar *through_sys = g_strdup_printf ("appsrc name=in format=time "
      "caps=\"video/x-raw,format=GRAY8,width=%u,height=%u,framerate=0/1\" ! "
      "clfftconvolve radius=3 ! appsink name=sink caps=video/x-raw", w, h);
  GstAllocator *alloc;
  GstMemory *mem, *copy;
  GstMapInfo map;
  ClfTransferCounts t;
  guint8 *pattern = g_malloc (size);
  GstBuffer *results[2];
  GstVideoInfo info;
  Run r;
  guint i, k;

  run_pipeline (grab, NULL, 0, NULL, &r);
  alloc = gst_object_ref (gst_buffer_peek_memory (g_ptr_array_index
          (r.frames, 0), 0)->allocator);
  run_clear (&r);

  clf_debug_reset_transfers ();
  mem = gst_allocator_alloc (alloc, size, NULL);
  fail_unless (mem != NULL && gst_memory_is_type (mem, "CLFFTBuffer"));
  fail_unless (gst_memory_map (mem, &map, GST_MAP_READ));
  for (i = 0; i < size; i++)
    fail_unless (map.data[i] == 0);
  gst_memory_unmap (mem, &map);

  for (i = 0; i < size; i++)
    pattern[i] = (guint8) ((i * 37u) ^ (i >> 6));
  fail_unless (gst_memory_map (mem, &map, GST_MAP_WRITE));
  memcpy (map.data, pattern, size);
  gst_memory_unmap (mem, &map);
  fail_unless (gst_memory_map (mem, &map, GST_MAP_READ));
  fail_unless (memcmp (map.data, pattern, size) == 0);
  gst_memory_unmap (mem, &map);
  clf_debug_get_transfers (&t);
  fail_unless_equals_int (t.uploads + t.downloads, 0);

  /* a copy while the host copy is the newer one */
  copy = gst_memory_copy (mem, 100, 1000);
  fail_unless (copy != NULL && gst_memory_is_type (copy, "CLFFTBuffer"));
  fail_unless (gst_memory_map (copy, &map, GST_MAP_READ));
  fail_unless_equals_int (map.size, 1000);
  fail_unless (memcmp (map.data, pattern + 100, 1000) == 0);
  gst_memory_unmap (copy, &map);
  gst_memory_unref (copy);

  /* the same frame through clfftconvolve from device memory and from
   * system memory */
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, w, h);
  for (k = 0; k < 2; k++) {
    GstElement *pipe = start (k == 0 ? through : through_sys);
    GstElement *in = gst_bin_get_by_name (GST_BIN (pipe), "in");
    GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
    GstBuffer *buf = gst_buffer_new ();
    GstFlowReturn ret;
    GstSample *s;

    if (k == 0)
      gst_buffer_append_memory (buf, gst_memory_ref (mem));
    else
      gst_buffer_append_memory (buf, gst_memory_new_wrapped (0,
              g_memdup2 (pattern, size), size, 0, size, NULL, NULL));
    GST_BUFFER_PTS (buf) = 0;
    g_signal_emit_by_name (in, "push-buffer", buf, &ret);
    fail_unless_equals_int (ret, GST_FLOW_OK);
    gst_buffer_unref (buf);
    g_signal_emit_by_name (in, "end-of-stream", &ret);
    s = pull (sink);
    fail_unless (s != NULL);
    results[k] = gst_buffer_ref (gst_sample_get_buffer (s));
    gst_sample_unref (s);
    clf_debug_get_transfers (&t);
    /* from device memory: the memory uploads what the CPU wrote, once;
     * the element uploads nothing itself */
    fail_unless_equals_int (t.uploads, 1);
    fail_unless_equals_int (t.upload_bytes, size);
    fail_unless_equals_int (t.downloads, 1);
    gst_element_set_state (pipe, GST_STATE_NULL);
    gst_object_unref (in);
    gst_object_unref (sink);
    gst_object_unref (pipe);
  }
  /* (without the upload, the device would have blurred zeros) */
  assert_same_frame (&info, results[0], results[1], 0);

  /* the device is current now: used again, the memory uploads nothing,
   * and a copy is made on the device */
  clf_debug_reset_transfers ();
  fail_unless (gst_memory_map (mem, &map, GST_MAP_READ | MAP_CLFFT));
  gst_memory_unmap (mem, &map);
  copy = gst_memory_copy (mem, 0, -1);
  fail_unless (gst_memory_map (copy, &map, GST_MAP_READ));
  fail_unless (memcmp (map.data, pattern, size) == 0);
  gst_memory_unmap (copy, &map);
  clf_debug_get_transfers (&t);
  fail_unless_equals_int (t.uploads, 0);
  fail_unless_equals_int (t.downloads, 1);
  gst_memory_unref (copy);

  gst_buffer_unref (results[0]);
  gst_buffer_unref (results[1]);
  gst_memory_unref (mem);
  gst_object_unref (alloc);
  g_free (pattern);
  g_free (src);
  g_free (grab);
  g_free (caps);
  g_free (through);
  g_free (through_sys);
}

GST_END_TEST;

/* Output frames come from a pool: over 24 frames the elements make a
 * handful of device buffers, not one per frame. Seen at the second
 * element's input and at the sink, by tagging each memory the first time
 * it passes (a pooled memory comes back with its tag). */
static GQuark
seen_quark (void)
{
  return g_quark_from_static_string ("test-clfft-memory-seen");
}

static guint
count_new_memory (GstBuffer * buf)
{
  GstMemory *mem = gst_buffer_peek_memory (buf, 0);

  fail_unless (gst_memory_is_type (mem, "CLFFTBuffer"));
  if (gst_mini_object_get_qdata (GST_MINI_OBJECT_CAST (mem), seen_quark ()))
    return 0;
  gst_mini_object_set_qdata (GST_MINI_OBJECT_CAST (mem), seen_quark (),
      GINT_TO_POINTER (1), NULL);
  return 1;
}

static GstPadProbeReturn
count_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  guint *count = user_data;

  *count += count_new_memory (GST_PAD_PROBE_INFO_BUFFER (info));
  return GST_PAD_PROBE_OK;
}

GST_START_TEST (test_pool_reuse)
{
  const guint n = 24;
  gchar *src = g_strdup_printf (SOURCE, n, "GRAY8", 64, 48);
  gchar *desc = g_strdup_printf ("%s ! clfftconvolve radius=3 ! "
      "clfftconvolve name=b radius=5 ! appsink name=sink max-buffers=1 "
      "caps=\"" DEVMEM "\"", src);
  GstElement *pipe = start (desc);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  GstElement *b = gst_bin_get_by_name (GST_BIN (pipe), "b");
  GstPad *pad = gst_element_get_static_pad (b, "sink");
  guint at_b = 0, at_sink = 0, frames = 0;
  GstSample *s;

  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, count_probe, &at_b, NULL);
  while ((s = pull (sink))) {
    at_sink += count_new_memory (gst_sample_get_buffer (s));
    frames++;
    gst_sample_unref (s);
  }
  collect_messages (pipe, NULL);
  fail_unless_equals_int (frames, n);
  fail_unless (at_b >= 1 && at_b <= 6, "%u device buffers for %u frames",
      at_b, n);
  fail_unless (at_sink >= 1 && at_sink <= 6, "%u device buffers for %u "
      "frames", at_sink, n);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pad);
  gst_object_unref (b);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  g_free (src);
  g_free (desc);
}

GST_END_TEST;

static GstPadProbeReturn
pinned_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  guint *count = user_data;
  GstMemory *mem = gst_buffer_peek_memory (GST_PAD_PROBE_INFO_BUFFER (info),
      0);

  if (gst_memory_is_type (mem, "CLFFTPinned"))
    (*count)++;
  return GST_PAD_PROBE_OK;
}

/* In system memory the frames a clfft element reads (from the pool it
 * proposes upstream) and writes (from the pool it decides on) are mapped
 * OpenCL host memory, which drivers copy by DMA; they behave as ordinary
 * memory: shared regions, copies and maps after the pipeline is gone. */
GST_START_TEST (test_pinned_system_memory)
{
  const guint n = 6;
  gchar *src = g_strdup_printf (SOURCE, n, "GRAY8", 64, 48);
  gchar *desc = g_strdup_printf ("%s ! clfftconvolve name=c radius=3 ! "
      "appsink name=sink caps=video/x-raw", src);
  gchar *ref_desc = g_strdup_printf ("%s ! clfftconvolve radius=3 ! "
      "video/x-raw ! videoconvert ! video/x-raw,format=GRAY8 ! "
      "appsink name=sink caps=video/x-raw", src);
  GstElement *pipe = parse (desc);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  GstElement *c = gst_bin_get_by_name (GST_BIN (pipe), "c");
  GstPad *pad = gst_element_get_static_pad (c, "sink");
  guint pinned_in = 0, pinned_out = 0;
  GPtrArray *frames = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  const gchar *none[] = { NULL };
  gboolean unused;
  Run ref;
  GstSample *s;
  guint i;

  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, pinned_probe, &pinned_in,
      NULL);
  play (pipe);
  while ((s = pull (sink))) {
    GstBuffer *b = gst_sample_get_buffer (s);

    if (gst_memory_is_type (gst_buffer_peek_memory (b, 0), "CLFFTPinned"))
      pinned_out++;
    g_ptr_array_add (frames, gst_buffer_ref (b));
    gst_sample_unref (s);
  }
  collect_messages (pipe, NULL);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pad);
  gst_object_unref (c);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  fail_unless_equals_int (frames->len, n);
  fail_unless_equals_int (pinned_in, n);
  fail_unless_equals_int (pinned_out, n);

  /* the same frames as through a CPU element that copies them */
  run_init (&ref);
  run_pipeline (ref_desc, none, 0, &unused, &ref);
  fail_unless_equals_int (ref.frames->len, n);
  for (i = 0; i < n; i++) {
    GstBuffer *b = g_ptr_array_index (frames, i);
    GstBuffer *r = g_ptr_array_index (ref.frames, i);
    GstBuffer *part = gst_buffer_copy_region (b, GST_BUFFER_COPY_MEMORY, 64,
        128);
    GstBuffer *deep = gst_buffer_copy_deep (b);
    GstMapInfo mb, mr, mp, md;

    fail_unless (gst_buffer_map (b, &mb, GST_MAP_READ));
    fail_unless (gst_buffer_map (r, &mr, GST_MAP_READ));
    fail_unless (gst_buffer_map (part, &mp, GST_MAP_READ));
    fail_unless (gst_buffer_map (deep, &md, GST_MAP_READ));
    fail_unless_equals_int (mb.size, mr.size);
    fail_unless (memcmp (mb.data, mr.data, mb.size) == 0, "frame %u", i);
    fail_unless_equals_int (mp.size, 128);
    fail_unless (memcmp (mp.data, mb.data + 64, 128) == 0);
    fail_unless (memcmp (md.data, mb.data, mb.size) == 0);
    gst_buffer_unmap (b, &mb);
    gst_buffer_unmap (r, &mr);
    gst_buffer_unmap (part, &mp);
    gst_buffer_unmap (deep, &md);
    gst_buffer_unref (part);
    gst_buffer_unref (deep);
  }
  run_clear (&ref);
  g_ptr_array_unref (frames);
  g_free (src);
  g_free (desc);
  g_free (ref_desc);
}

GST_END_TEST;

/* Caps events on a pad, in order: TRUE for the feature. */
static GstPadProbeReturn
caps_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GArray *seen = user_data;
  GstEvent *event = GST_PAD_PROBE_INFO_EVENT (info);

  if (GST_EVENT_TYPE (event) == GST_EVENT_CAPS) {
    GstCaps *caps;
    gboolean feature;

    gst_event_parse_caps (event, &caps);
    feature = caps_have_feature (caps);
    g_array_append_val (seen, feature);
  }
  return GST_PAD_PROBE_OK;
}

/* The link between two clfftconvolve goes from device to system memory
 * and back while playing (a capsfilter's caps changed): each change is
 * renegotiated and every frame is still right. */
GST_START_TEST (test_renegotiate)
{
  const guint n = 16, first = 4, second = 10;
  gchar *src = g_strdup_printf (SOURCE, n, "I420", 48, 36);
  gchar *desc = g_strdup_printf ("%s ! clfftconvolve name=a radius=3 ! "
      "capsfilter name=cf caps=\"" DEVMEM "\" ! clfftconvolve name=b "
      "radius=5 ! appsink name=sink max-buffers=1 caps=video/x-raw", src);
  gchar *sys = g_strdup_printf ("%s ! clfftconvolve radius=3 ! " SYSMEM
      " ! clfftconvolve radius=5 ! appsink name=sink caps=video/x-raw", src);
  GstElement *pipe = parse (desc);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  GstElement *cf = gst_bin_get_by_name (GST_BIN (pipe), "cf");
  GstElement *a = gst_bin_get_by_name (GST_BIN (pipe), "a");
  GstPad *pad = gst_element_get_static_pad (a, "src");
  GArray *seen = g_array_new (FALSE, FALSE, sizeof (gboolean));
  GstCaps *caps;
  GstSample *s;
  Run rd, rs;

  run_init (&rd);
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, caps_probe,
      seen, NULL);
  play (pipe);
  while ((s = pull (sink))) {
    keep_sample (&rd, s);
    if (rd.frames->len == first || rd.frames->len == second) {
      caps = gst_caps_from_string (rd.frames->len == first ? "video/x-raw" :
          DEVMEM);
      g_object_set (cf, "caps", caps, NULL);
      gst_caps_unref (caps);
    }
  }
  collect_messages (pipe, &rd);
  gst_element_set_state (pipe, GST_STATE_NULL);
  fail_unless_equals_int (rd.frames->len, n);
  /* device, system, device */
  fail_unless_equals_int (seen->len, 3);
  fail_unless (g_array_index (seen, gboolean, 0));
  fail_if (g_array_index (seen, gboolean, 1));
  fail_unless (g_array_index (seen, gboolean, 2));

  run_pipeline (sys, NULL, 0, NULL, &rs);
  assert_same_frames (&rd, &rs);
  run_clear (&rd);
  run_clear (&rs);
  g_array_unref (seen);
  gst_object_unref (pad);
  gst_object_unref (a);
  gst_object_unref (cf);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  g_free (src);
  g_free (desc);
  g_free (sys);
}

GST_END_TEST;

static Suite *
clfft_memory_suite (void)
{
  Suite *s = suite_create ("clfft-memory");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_convolve_chain);
  tcase_add_test (tc, test_convolve_spectrum_chain);
  tcase_add_test (tc, test_appsink_device_caps);
  tcase_add_test (tc, test_system_element_between);
  tcase_add_test (tc, test_transfer_counts);
  tcase_add_test (tc, test_foreign_context);
  tcase_add_test (tc, test_memory_sync);
  tcase_add_test (tc, test_pinned_system_memory);
  tcase_add_test (tc, test_pool_reuse);
  tcase_add_test (tc, test_renegotiate);
  return s;
}

GST_CHECK_MAIN (clfft_memory);

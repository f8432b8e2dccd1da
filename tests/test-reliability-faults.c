/* test-reliability-faults.c: clfft elements under faults: no OpenCL platform, kernels that do not build, failing device allocations, corrupt or unwritable kernel caches, frames larger than the device. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/audio/audio.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "clf.h"

/* Every scenario runs in the test process (allocation failures) or in a
 * child process of this same binary started with --child=MODE and its own
 * environment (no platform, caches, device memory limits), since the
 * OpenCL ICD loader and the elements' shared contexts are set up once per
 * process. */

/* ---- small pipelines that must work ------------------------------------- */

/* Failure text of the last check, for the report. */
static gchar *last_failure;

static void
set_failure (const gchar * fmt, ...)
{
  va_list ap;

  g_free (last_failure);
  va_start (ap, fmt);
  last_failure = g_strdup_vprintf (fmt, ap);
  va_end (ap);
}

typedef enum
{
  RUN_OK,                       /* worked, output checked */
  RUN_ERROR,                    /* failed with an error message (in *error) */
  RUN_WRONG                     /* worked but wrong, or failed silently */
} RunResult;

/* The error message the element posted, if any. */
static GError *
pop_error (GstBus * bus)
{
  GstMessage *m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  GError *error = NULL;

  if (m) {
    gst_message_parse_error (m, &error, NULL);
    gst_message_unref (m);
  }
  return error;
}

static GstHarness *
harness_with_bus (const gchar * launch, GstBus ** bus)
{
  GstHarness *h = gst_harness_new_parse (launch);

  *bus = gst_bus_new ();
  gst_element_set_bus (h->element, *bus);
  return h;
}

static void
harness_free (GstHarness * h, GstBus * bus)
{
  gst_bus_set_flushing (bus, TRUE);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

static RunResult
finish (GstFlowReturn ret, GstBus * bus, GError ** error, gboolean ok)
{
  GError *e = pop_error (bus);

  if (ret == GST_FLOW_OK && !e)
    return ok ? RUN_OK : RUN_WRONG;
  if (!e) {
    set_failure ("flow %s without an error message", gst_flow_get_name (ret));
    return RUN_WRONG;
  }
  g_propagate_error (error, e);
  return RUN_ERROR;
}

/* clfftconvolve on a GRAY8 frame with a one-tap shift kernel: out(x, y)
 * = in(x - 1, y + 1), wrapped; exact (see test-reliability-video.c). */
static RunResult
run_convolve_video (gint w, gint h, GstVideoFormat format, GError ** error)
{
  GstBus *bus;
  GstHarness *hn = harness_with_bus ("clfftconvolve edge-mode=wrap "
      "kernel=\"<0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0>\"", &bus);
  GstVideoInfo info;
  GstBuffer *in, *out = NULL;
  GstFlowReturn ret;
  gboolean ok = TRUE;
  RunResult res;

  gst_video_info_set_format (&info, format, w, h);
  gst_harness_set_caps (hn, gst_video_info_to_caps (&info),
      gst_video_info_to_caps (&info));
  in = gst_buffer_new_allocate (NULL, info.size, NULL);
  {
    GstMapInfo map;
    gsize i;
    gst_buffer_map (in, &map, GST_MAP_WRITE);
    for (i = 0; i < map.size; i++)
      map.data[i] = (guint8) ((i * 97 + 13) % 256);
    gst_buffer_unmap (in, &map);
  }
  ret = gst_harness_push (hn, gst_buffer_ref (in));
  if (ret == GST_FLOW_OK && format == GST_VIDEO_FORMAT_GRAY8) {
    GstVideoFrame fi, fo;
    gint x, y;

    out = gst_harness_pull (hn);
    gst_video_frame_map (&fi, &info, in, GST_MAP_READ);
    gst_video_frame_map (&fo, &info, out, GST_MAP_READ);
    for (y = 0; y < h && ok; y++)
      for (x = 0; x < w && ok; x++) {
        guint8 want = ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fi, 0))
            [((y + 1) % h) * GST_VIDEO_FRAME_PLANE_STRIDE (&fi, 0) +
            (x - 1 + w) % w];
        guint8 got = ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fo, 0))
            [y * GST_VIDEO_FRAME_PLANE_STRIDE (&fo, 0) + x];
        if (got != want) {
          set_failure ("convolve %dx%d (%d,%d): %u, want %u", w, h, x, y, got,
              want);
          ok = FALSE;
        }
      }
    gst_video_frame_unmap (&fi);
    gst_video_frame_unmap (&fo);
  } else if (ret == GST_FLOW_OK) {
    out = gst_harness_pull (hn);
  }
  gst_clear_buffer (&out);
  gst_buffer_unref (in);
  res = finish (ret, bus, error, ok);
  harness_free (hn, bus);
  return res;
}

/* clfftconvolve on audio: an impulse through <0.5, 0.25, -0.125>. */
static RunResult
run_convolve_audio (GError ** error)
{
  GstBus *bus;
  GstHarness *hn = harness_with_bus ("clfftconvolve block-size=64 "
      "impulse-response=\"<0.5, 0.25, -0.125>\"", &bus);
  const gchar *caps = "audio/x-raw,format=" GST_AUDIO_NE (F32)
      ",layout=interleaved,rate=48000,channels=1";
  gfloat x[100] = { 1.0f, 0, };
  static const gfloat want[] = { 0.5f, 0.25f, -0.125f };
  GstBuffer *b;
  GstFlowReturn ret;
  gboolean ok = TRUE;
  guint got = 0;
  RunResult res;

  gst_harness_set_caps_str (hn, caps, caps);
  b = gst_buffer_new_memdup (x, sizeof (x));
  GST_BUFFER_PTS (b) = 0;
  ret = gst_harness_push (hn, b);
  if (ret == GST_FLOW_OK) {
    gst_harness_push_event (hn, gst_event_new_eos ());
    while ((b = gst_harness_try_pull (hn))) {
      GstMapInfo map;
      guint i;
      gst_buffer_map (b, &map, GST_MAP_READ);
      for (i = 0; i < map.size / 4; i++, got++) {
        gfloat v = ((gfloat *) map.data)[i], w = got < 3 ? want[got] : 0.0f;
        if (fabsf (v - w) > 1e-6f) {
          set_failure ("convolve audio sample %u: %g, want %g", got, v, w);
          ok = FALSE;
        }
      }
      gst_buffer_unmap (b, &map);
      gst_buffer_unref (b);
    }
    if (got != 102) {
      set_failure ("convolve audio: %u samples, want 102", got);
      ok = FALSE;
    }
  }
  res = finish (ret, bus, error, ok);
  harness_free (hn, bus);
  return res;
}

/* clfftspectrum on audio: a sine at band 5 of 16 peaks there. */
static RunResult
run_spectrum_audio (GError ** error)
{
  GstBus *bus;
  GstHarness *hn = harness_with_bus ("clfftspectrum bands=16 "
      "interval=10000000 message-format=array", &bus);
  const gchar *caps = "audio/x-raw,format=" GST_AUDIO_NE (F32)
      ",layout=interleaved,rate=3000,channels=1";
  gfloat x[300];
  GstBuffer *b;
  GstFlowReturn ret;
  GstMessage *m, *error_msg = NULL;
  gboolean ok = TRUE;
  guint i, messages = 0;
  RunResult res;

  /* band k is at k * rate / 30 Hz: band 5 = 500 Hz */
  for (i = 0; i < 300; i++)
    x[i] = 0.5f * sinf (2 * G_PI * 500.0 * i / 3000.0);
  gst_harness_set_caps_str (hn, caps, caps);
  b = gst_buffer_new_memdup (x, sizeof (x));
  GST_BUFFER_PTS (b) = 0;
  ret = gst_harness_push (hn, b);
  if (ret == GST_FLOW_OK) {
    gst_buffer_unref (gst_harness_pull (hn));
    /* element messages, leaving errors for finish () */
    while ((m = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT |
                GST_MESSAGE_ERROR))) {
      const GValue *mag;
      guint best = 0, k;

      if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
        error_msg = m;
        continue;
      }
      mag = gst_structure_get_value (gst_message_get_structure (m),
          "magnitude");
      for (k = 1; k < 16; k++)
        if (g_value_get_float (gst_value_array_get_value (mag, k)) >
            g_value_get_float (gst_value_array_get_value (mag, best)))
          best = k;
      if (best != 5) {
        set_failure ("spectrum audio: peak in band %u, want 5", best);
        ok = FALSE;
      }
      messages++;
      gst_message_unref (m);
    }
    if (messages != 10) {
      set_failure ("spectrum audio: %u messages, want 10", messages);
      ok = FALSE;
    }
    if (error_msg)
      gst_bus_post (bus, error_msg);
  }
  res = finish (ret, bus, error, ok);
  harness_free (hn, bus);
  return res;
}

/* clfftspectrum on video: the DC of a positive image is its brightest
 * bin, shown white at the centre. */
static RunResult
run_spectrum_video (gint w, gint h, GstVideoFormat format, GError ** error)
{
  GstBus *bus;
  GstHarness *hn = harness_with_bus ("clfftspectrum post-messages=false",
      &bus);
  GstVideoInfo info, oinfo;
  GstBuffer *in, *out;
  GstFlowReturn ret;
  gboolean ok = TRUE;
  RunResult res;

  gst_video_info_set_format (&info, format, w, h);
  gst_video_info_set_format (&oinfo, GST_VIDEO_FORMAT_GRAY8, w, h);
  gst_harness_set_caps (hn, gst_video_info_to_caps (&info),
      gst_video_info_to_caps (&oinfo));
  in = gst_buffer_new_allocate (NULL, info.size, NULL);
  gst_buffer_memset (in, 0, 0x40, info.size);
  ret = gst_harness_push (hn, in);
  if (ret == GST_FLOW_OK) {
    guint8 centre;
    out = gst_harness_pull (hn);
    gst_buffer_extract (out, (h / 2) * GST_VIDEO_INFO_PLANE_STRIDE (&oinfo,
            0) + w / 2, &centre, 1);
    if (centre != 255) {
      set_failure ("spectrum video: centre %u, want 255", centre);
      ok = FALSE;
    }
    gst_buffer_unref (out);
  }
  res = finish (ret, bus, error, ok);
  harness_free (hn, bus);
  return res;
}

/* A launch line played to EOS (RUN_OK) or to an error (RUN_ERROR, the
 * error in *error), without a harness: elements that cannot start make
 * the state change fail, which a harness would assert on. */
static RunResult
run_launch (const gchar * desc, GError ** error)
{
  GstElement *pipe = gst_parse_launch (desc, NULL);
  GstMessage *m;
  RunResult res;

  if (!pipe) {
    set_failure ("cannot parse %s", desc);
    return RUN_WRONG;
  }
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  m = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipe), 30 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  if (!m) {
    set_failure ("%s: neither EOS nor an error within 30 s", desc);
    res = RUN_WRONG;
  } else if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
    gst_message_parse_error (m, error, NULL);
    res = RUN_ERROR;
  } else {
    res = RUN_OK;
  }
  if (m)
    gst_message_unref (m);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
  return res;
}

/* All four must work; returns FALSE with last_failure set otherwise. */
static gboolean
all_pipelines_work (void)
{
  GError *error = NULL;
  RunResult r[4];
  guint i;

  r[0] = run_convolve_video (21, 13, GST_VIDEO_FORMAT_GRAY8, &error);
  if (error)
    set_failure ("convolve video: %s", error->message);
  g_clear_error (&error);
  r[1] = run_convolve_audio (&error);
  if (error)
    set_failure ("convolve audio: %s", error->message);
  g_clear_error (&error);
  r[2] = run_spectrum_audio (&error);
  if (error)
    set_failure ("spectrum audio: %s", error->message);
  g_clear_error (&error);
  r[3] = run_spectrum_video (17, 11, GST_VIDEO_FORMAT_GRAY8, &error);
  if (error)
    set_failure ("spectrum video: %s", error->message);
  g_clear_error (&error);
  for (i = 0; i < 4; i++)
    if (r[i] != RUN_OK)
      return FALSE;
  return TRUE;
}

/* ---- child processes ----------------------------------------------------- */

/* The modes a child runs; each prints what it found and exits 0 when the
 * behaviour is the expected one. */
static int
child_main (const gchar * mode)
{
  if (g_str_equal (mode, "pipelines")) {
    if (!all_pipelines_work ()) {
      g_print ("FAILED: %s\n", last_failure);
      return 1;
    }
    g_print ("all pipelines work\n");
    return 0;
  }

  if (g_str_equal (mode, "no-platform")) {
    /* every element fails to start with an error naming the cause, twice
     * (the ICD loader does not look again within a process) */
    static const gchar *lines[] = {
      "videotestsrc num-buffers=1 ! video/x-raw,width=16,height=16 ! "
          "clfftconvolve ! fakesink",
      "audiotestsrc num-buffers=1 ! clfftconvolve "
          "impulse-response=\"<0.5>\" ! fakesink",
      "audiotestsrc num-buffers=1 ! clfftspectrum ! fakesink",
      "videotestsrc num-buffers=1 ! video/x-raw,width=16,height=16 ! "
          "clfftspectrum ! fakesink",
    };
    guint attempt, i;
    for (attempt = 0; attempt < 2; attempt++) {
      for (i = 0; i < G_N_ELEMENTS (lines); i++) {
        GError *error = NULL;
        if (run_launch (lines[i], &error) != RUN_ERROR) {
          g_print ("FAILED: %s did not fail with an error\n", lines[i]);
          return 1;
        }
        if (!g_error_matches (error, GST_RESOURCE_ERROR,
                GST_RESOURCE_ERROR_NOT_FOUND)
            || !strstr (error->message, "platform")) {
          g_print ("FAILED: %s: unclear error: %s\n", lines[i], error->message);
          return 1;
        }
        g_print ("%s: %s\n", lines[i], error->message);
        g_error_free (error);
      }
    }
    return 0;
  }

  if (g_str_equal (mode, "build-fails")) {
    /* every element fails with an error naming the build failure and the
     * device, twice, without a crash */
    static const gchar *lines[] = {
      "videotestsrc num-buffers=1 ! video/x-raw,width=16,height=16 ! "
          "clfftconvolve ! fakesink",
      "audiotestsrc num-buffers=1 ! clfftconvolve "
          "impulse-response=\"<0.5>\" ! fakesink",
      "audiotestsrc num-buffers=1 ! clfftspectrum ! fakesink",
      "videotestsrc num-buffers=1 ! video/x-raw,width=16,height=16 ! "
          "clfftspectrum ! fakesink",
    };
    guint attempt, i;
    for (attempt = 0; attempt < 2; attempt++) {
      for (i = 0; i < G_N_ELEMENTS (lines); i++) {
        GError *error = NULL;
        if (run_launch (lines[i], &error) != RUN_ERROR) {
          g_print ("FAILED: %s did not fail with an error\n", lines[i]);
          return 1;
        }
        if (!strstr (error->message, "build failed")
            || !strstr (error->message, "Portable Computing Language")) {
          g_print ("FAILED: %s: unclear error: %s\n", lines[i], error->message);
          return 1;
        }
        g_print ("%s: %s\n", lines[i], error->message);
        g_error_free (error);
      }
    }
    return 0;
  }

  if (g_str_equal (mode, "device-too-small")) {
    /* frames beyond the device's memory fail with an error naming the
     * cause; smaller ones work on afterwards in the same process */
    GError *error = NULL;
    RunResult r;

    r = run_convolve_video (16384, 16384, GST_VIDEO_FORMAT_RGBA, &error);
    if (r != RUN_ERROR || !g_error_matches (error, GST_RESOURCE_ERROR,
            GST_RESOURCE_ERROR_NO_SPACE_LEFT)
        || !strstr (error->message, "16384x16384")) {
      g_print ("FAILED: 16384x16384 RGBA convolution: %s\n",
          error ? error->message : "no error");
      return 1;
    }
    g_print ("convolve: %s\n", error->message);
    g_clear_error (&error);
    r = run_spectrum_video (16384, 16384, GST_VIDEO_FORMAT_RGBA, &error);
    if (r != RUN_ERROR || !g_error_matches (error, GST_RESOURCE_ERROR,
            GST_RESOURCE_ERROR_NO_SPACE_LEFT)) {
      g_print ("FAILED: 16384x16384 RGBA spectrum: %s\n",
          error ? error->message : "no error");
      return 1;
    }
    g_print ("spectrum: %s\n", error->message);
    g_clear_error (&error);
    if (!all_pipelines_work ()) {
      g_print ("FAILED after the big frames: %s\n", last_failure);
      return 1;
    }
    return 0;
  }

  g_print ("unknown child mode %s\n", mode);
  return 2;
}

/* The last `max` bytes of s (all of it when shorter). */
static const gchar *
tail_of (const gchar * s, gsize max)
{
  gsize len = s ? strlen (s) : 0;

  return len > max ? s + len - max : (s ? s : "");
}

/* Runs this binary as a child in `mode` with the environment changes
 * (NAME=VALUE, NULL-terminated); fails unless it exits 0. Returns its
 * output (g_free). */
static gchar *
run_child (const gchar * mode, const gchar * const *env_changes)
{
  gchar *self = g_file_read_link ("/proc/self/exe", NULL);
  gchar *arg = g_strdup_printf ("--child=%s", mode);
  gchar *argv[] = { self, arg, NULL };
  gchar **envp = g_get_environ ();
  gchar *out = NULL, *err = NULL;
  gint status = 0;
  GError *error = NULL;

  fail_unless (self != NULL);
  for (; env_changes && *env_changes; env_changes++) {
    gchar **kv = g_strsplit (*env_changes, "=", 2);
    envp = g_environ_setenv (envp, kv[0], kv[1], TRUE);
    g_strfreev (kv);
  }
  fail_unless (g_spawn_sync (NULL, argv, envp, G_SPAWN_DEFAULT, NULL, NULL,
          &out, &err, &status, &error), "spawn: %s", error ? error->message :
      "");
  GST_INFO ("child %s: %s\n%s", mode, out, err);
  /* the tails only: check aborts on failure messages over a few KiB */
  fail_unless (g_spawn_check_wait_status (status, NULL),
      "child %s failed (status %d):\n%s\nstderr:\n%s", mode, status,
      tail_of (out, 1500), tail_of (err, 2500));
  g_free (err);
  g_strfreev (envp);
  g_free (arg);
  g_free (self);
  return out;
}

/* ---- tests: no platform -------------------------------------------------- */

/* An empty ICD vendor directory: no OpenCL platform at all. Each element
 * fails to start with RESOURCE/NOT_FOUND naming the missing platform, no
 * crash; this process, which has PoCL, works on. */
GST_START_TEST (test_no_platform)
{
  gchar *dir = g_dir_make_tmp ("clfft-no-icd-XXXXXX", NULL);
  gchar *env = g_strdup_printf ("OCL_ICD_VENDORS=%s", dir);
  const gchar *changes[] = { env, "OPENCL_VENDOR_PATH=/nonexistent", NULL };
  gchar *out = run_child ("no-platform", changes);

  fail_unless (strstr (out, "platform") != NULL, "%s", out);
  fail_unless (all_pipelines_work (), "%s", last_failure);
  g_free (out);
  g_rmdir (dir);
  g_free (dir);
  g_free (env);
}

GST_END_TEST;

/* ---- tests: kernels that do not build ------------------------------------ */

/* Whether the elements' default device is PoCL, which the cases below
 * steer through its environment variables */
static gboolean
default_device_is_pocl (void)
{
  ClfError err;
  ClfContext *ctx = clf_context_new (NULL, &err);
  gboolean pocl;

  fail_unless (ctx != NULL, "%s", err.message);
  pocl = strstr (clf_context_get_platform_name (ctx), "Portable") != NULL;
  clf_context_unref (ctx);
  return pocl;
}

/* A device whose compiler fails on every kernel, made with PoCL's extra
 * build flags (get_global_id defined away) and both kernel caches off:
 * each element fails with an error naming the build failure and the
 * device; this process works on. PoCL only. */
GST_START_TEST (test_build_fails)
{
  const gchar *changes[] = { "CLFFT_CACHE_DIR=", "POCL_KERNEL_CACHE=0",
    "POCL_EXTRA_BUILD_FLAGS=-Dget_global_id=clfft_undefined_function", NULL
  };
  gchar *out;

  if (!default_device_is_pocl ())
    return;
  out = run_child ("build-fails", changes);
  fail_unless (strstr (out, "build failed") != NULL, "%s", out);
  fail_unless (all_pipelines_work (), "%s", last_failure);
  g_free (out);
}

GST_END_TEST;

/* ---- tests: allocation failures ------------------------------------------ */

typedef RunResult (*Scenario) (GError ** error);

static RunResult
scenario_convolve_video (GError ** error)
{
  return run_convolve_video (21, 13, GST_VIDEO_FORMAT_GRAY8, error);
}

static RunResult
scenario_convolve_i420 (GError ** error)
{
  return run_convolve_video (23, 17, GST_VIDEO_FORMAT_I420, error);
}

static RunResult
scenario_spectrum_video (GError ** error)
{
  return run_spectrum_video (17, 11, GST_VIDEO_FORMAT_GRAY8, error);
}

/* Fails the first, second, ... device allocation of a scenario until it
 * needs no more: each failure is an error naming the cause and the
 * device, and the scenario then works. */
static void
sweep_allocations (Scenario scenario, const gchar * name, const gchar * device)
{
  guint n, failures = 0;

  for (n = 0; n < 100; n++) {
    GError *error = NULL;
    RunResult r;

    clf_debug_fail_alloc_after (n);
    r = scenario (&error);
    clf_debug_fail_alloc_after (-1);
    if (r == RUN_OK)
      break;
    fail_unless (r == RUN_ERROR, "%s, allocation %u failing: %s", name, n,
        last_failure);
    GST_INFO ("%s, allocation %u failing: %s", name, n, error->message);
    fail_unless (g_error_matches (error, GST_RESOURCE_ERROR,
            GST_RESOURCE_ERROR_NO_SPACE_LEFT), "%s, allocation %u: %s: %s",
        name, n, g_quark_to_string (error->domain), error->message);
    fail_unless (strstr (error->message, device) != NULL,
        "%s, allocation %u: the device is not named: %s", name, n,
        error->message);
    g_error_free (error);
    failures++;
  }
  fail_unless (n < 100, "%s never worked", name);
  fail_unless (failures > 0, "%s allocates nothing?", name);
  GST_INFO ("%s: %u allocations, each failure reported", name, failures);
  /* and a fresh run works */
  fail_unless (scenario (NULL) == RUN_OK, "%s after the sweep: %s", name,
      last_failure);
}

GST_START_TEST (test_allocation_failures)
{
  ClfError err;
  ClfContext *ctx = clf_context_new (NULL, &err);
  gchar *device;

  fail_unless (ctx != NULL, "%s", err.message);
  device = g_strdup (clf_context_get_device_name (ctx));
  clf_context_unref (ctx);

  sweep_allocations (scenario_convolve_video, "clfftconvolve GRAY8", device);
  sweep_allocations (scenario_convolve_i420, "clfftconvolve I420", device);
  sweep_allocations (run_convolve_audio, "clfftconvolve audio", device);
  sweep_allocations (run_spectrum_audio, "clfftspectrum audio", device);
  sweep_allocations (scenario_spectrum_video, "clfftspectrum video", device);
  fail_unless (all_pipelines_work (), "%s", last_failure);
  g_free (device);
}

GST_END_TEST;

/* A failed reconfiguration mid-stream (a new radius whose buffers cannot
 * be allocated) is an error for that frame only: the next frame, after
 * the radius is changed again, is right. */
GST_START_TEST (test_allocation_failure_mid_stream)
{
  GstBus *bus;
  GstHarness *hn = gst_harness_new ("clfftconvolve");
  GstVideoInfo info;
  GstBuffer *in, *out;
  GError *error;
  guint n;

  bus = gst_bus_new ();
  gst_element_set_bus (hn->element, bus);
  g_object_set (hn->element, "radius", 2.0f, NULL);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 40, 30);
  gst_harness_set_caps (hn, gst_video_info_to_caps (&info),
      gst_video_info_to_caps (&info));
  in = gst_buffer_new_allocate (NULL, info.size, NULL);
  gst_buffer_memset (in, 0, 100, info.size);
  fail_unless_equals_int (gst_harness_push (hn, gst_buffer_ref (in)),
      GST_FLOW_OK);
  gst_buffer_unref (gst_harness_pull (hn));
  for (n = 0; n < 3; n++) {
    /* a radius that needs a bigger grid, with its first allocation
     * failing */
    g_object_set (hn->element, "radius", 30.0f + 10 * n, NULL);
    clf_debug_fail_alloc_after (0);
    fail_unless_equals_int (gst_harness_push (hn, gst_buffer_ref (in)),
        GST_FLOW_ERROR);
    clf_debug_fail_alloc_after (-1);
    error = pop_error (bus);
    fail_unless (g_error_matches (error, GST_RESOURCE_ERROR,
            GST_RESOURCE_ERROR_NO_SPACE_LEFT));
    g_error_free (error);
    /* a constant frame blurred stays constant */
    g_object_set (hn->element, "radius", 3.0f + n, NULL);
    fail_unless_equals_int (gst_harness_push (hn, gst_buffer_ref (in)),
        GST_FLOW_OK);
    out = gst_harness_pull (hn);
    {
      GstMapInfo map;
      gint x, y;
      gst_buffer_map (out, &map, GST_MAP_READ);
      for (y = 0; y < 30; y++)
        for (x = 0; x < 40; x++)
          fail_unless_equals_int (map.data[y *
                  GST_VIDEO_INFO_PLANE_STRIDE (&info, 0) + x], 100);
      gst_buffer_unmap (out, &map);
    }
    gst_buffer_unref (out);
  }
  gst_buffer_unref (in);
  harness_free (hn, bus);
}

GST_END_TEST;

/* ---- tests: the kernel binary cache -------------------------------------- */

static GPtrArray *
cache_files (const gchar * dir)
{
  GPtrArray *files = g_ptr_array_new_with_free_func (g_free);
  GDir *d = g_dir_open (dir, 0, NULL);
  const gchar *n;

  fail_unless (d != NULL, "no cache directory %s", dir);
  while ((n = g_dir_read_name (d)))
    if (g_str_has_suffix (n, ".bin"))
      g_ptr_array_add (files, g_build_filename (dir, n, NULL));
  g_dir_close (d);
  return files;
}

static void
remove_dir (const gchar * dir)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  const gchar *n;

  if (!d)
    return;
  while ((n = g_dir_read_name (d))) {
    gchar *p = g_build_filename (dir, n, NULL);
    g_unlink (p);
    g_free (p);
  }
  g_dir_close (d);
  g_rmdir (dir);
}

/* Runs the pipelines in a child whose cache is `dir`, with binaries
 * cached on PoCL too (which by default keeps its own). */
static void
pipelines_with_cache (const gchar * dir, const gchar * what)
{
  gchar *env = g_strdup_printf ("CLFFT_CACHE_DIR=%s", dir);
  const gchar *changes[] = { env, "CLFFT_CACHE_BINARIES=1", NULL };
  gchar *out;

  GST_INFO ("cache %s: %s", what, dir);
  out = run_child ("pipelines", changes);
  g_free (out);
  g_free (env);
}

/* Rewrites every cache file with f (data, size -> new contents). */
typedef GBytes *(*Corrupt) (const guint8 * data, gsize size, guint index);

static void
corrupt_all (GPtrArray * files, Corrupt f)
{
  guint i;

  for (i = 0; i < files->len; i++) {
    gchar *data;
    gsize size;
    GBytes *b;

    fail_unless (g_file_get_contents (g_ptr_array_index (files, i), &data,
            &size, NULL));
    b = f ((const guint8 *) data, size, i);
    fail_unless (g_file_set_contents (g_ptr_array_index (files, i),
            g_bytes_get_data (b, NULL), g_bytes_get_size (b), NULL));
    g_bytes_unref (b);
    g_free (data);
  }
}

static GBytes *
garbage (const guint8 * data, gsize size, guint index)
{
  guint8 *g = g_malloc (size);
  guint32 s = 12345 + index;
  gsize i;

  for (i = 0; i < size; i++) {
    s = s * 1103515245 + 12345;
    g[i] = s >> 24;
  }
  return g_bytes_new_take (g, size);
}

static GBytes *
truncated (const guint8 * data, gsize size, guint index)
{
  return g_bytes_new (data, MIN (size, 20 + index % 7));
}

static GBytes *
half (const guint8 * data, gsize size, guint index)
{
  return g_bytes_new (data, size / 2);
}

/* The file's own header kept (magic, key, size, checksum) but the binary's
 * bytes flipped in its middle: the checksum no longer matches. */
static GBytes *
flipped (const guint8 * data, gsize size, guint index)
{
  guint8 *g = g_memdup2 (data, size);
  gsize i;

  for (i = size / 2; i < size / 2 + 64 && i < size; i++)
    g[i] ^= 0x5a;
  return g_bytes_new_take (g, size);
}

/* The checksum of a changed binary recomputed, as a corruption that
 * passes the cache's own check would look (FNV-1a, as the cache): the
 * driver's own header damaged, which the OpenCL driver must refuse, and
 * the core rebuild. (Bytes flipped in the middle of the driver's part
 * pass every check there is where they fall in native code, which a
 * PoCL binary carries for kernels its own cache had built: such a
 * binary crashed the pipelines, and only a signature could tell.) */
static GBytes *
flipped_resummed (const guint8 * data, gsize size, guint index)
{
  guint8 *g = g_memdup2 (data, size);
  guint64 h = 0xcbf29ce484222325ull;
  gsize i;

  /* header: magic, key, size, checksum (8 bytes each) */
  fail_unless (size > 40 && memcmp (data, "CLFBIN02", 8) == 0);
  for (i = 32; i < 40; i++)
    g[i] ^= 0x5a;
  for (i = 32; i < size; i++) {
    h ^= g[i];
    h *= 0x100000001b3ull;
  }
  memcpy (g + 24, &h, 8);
  return g_bytes_new_take (g, size);
}

/* Each program's file given another program's valid binary, checksum and
 * all (as a cache copied between builds might): the kernels the element
 * asks for are then missing from it. */
static GPtrArray *rotate_files;

static GBytes *
rotated (const guint8 * data, gsize size, guint index)
{
  gchar *other;
  gsize other_size;

  fail_unless (g_file_get_contents (g_ptr_array_index (rotate_files,
              (index + 1) % rotate_files->len), &other, &other_size, NULL));
  return g_bytes_new_take (other, other_size);
}

/* A cache that is fine, garbage, truncated, half written, bit-flipped,
 * or with the driver's header damaged under a matching checksum: every
 * time the kernels are rebuilt where the damage shows, every file is
 * written again, and the pipelines work. */
GST_START_TEST (test_corrupt_cache)
{
  static const struct
  {
    const gchar *name;
    Corrupt f;
  } corruptions[] = {
    /* found by the cache's checks */
    {"garbage", garbage}, {"truncated", truncated}, {"half", half},
    {"flipped", flipped},
    /* refused by the driver */
    {"driver header flipped, checksum recomputed", flipped_resummed},
  };
  gchar *dir = g_dir_make_tmp ("clfft-cache-XXXXXX", NULL);
  GPtrArray *files;
  gchar driver_magic[8];
  guint i;

  /* a fresh cache fills */
  pipelines_with_cache (dir, "empty");
  files = cache_files (dir);
  fail_unless (files->len >= 3, "only %u cache files", files->len);
  /* from a valid cache */
  pipelines_with_cache (dir, "valid");
  /* the driver's header, as every valid binary of this device starts */
  {
    gchar *data;
    gsize size;
    fail_unless (g_file_get_contents (g_ptr_array_index (files, 0), &data,
            &size, NULL));
    fail_unless (size > 40);
    memcpy (driver_magic, data + 32, 8);
    g_free (data);
  }

  for (i = 0; i < G_N_ELEMENTS (corruptions); i++) {
    guint k;
    corrupt_all (files, corruptions[i].f);
    pipelines_with_cache (dir, corruptions[i].name);
    /* rebuilt binaries replace the corrupt ones */
    for (k = 0; k < files->len; k++) {
      gchar *data;
      gsize size;
      fail_unless (g_file_get_contents (g_ptr_array_index (files, k), &data,
              &size, NULL));
      fail_unless (size > 40 && memcmp (data, "CLFBIN02", 8) == 0 &&
          memcmp (data + 32, driver_magic, 8) == 0, "%s: %s not rewritten",
          corruptions[i].name, (gchar *) g_ptr_array_index (files, k));
      g_free (data);
    }
  }
  g_ptr_array_unref (files);
  remove_dir (dir);
  g_free (dir);
}

GST_END_TEST;

/* Each program's file holding another program's binary, header and
 * checksum valid (as a cache copied between builds would): the key stored
 * in each file no longer matches, so the core rebuilds. */
GST_START_TEST (test_cache_swapped_binaries)
{
  gchar *dir = g_dir_make_tmp ("clfft-cache-XXXXXX", NULL);
  GPtrArray *files;

  pipelines_with_cache (dir, "empty");
  files = cache_files (dir);
  rotate_files = files;
  corrupt_all (files, rotated);
  pipelines_with_cache (dir, "binaries swapped between programs");
  g_ptr_array_unref (files);
  remove_dir (dir);
  g_free (dir);
}

GST_END_TEST;

GST_START_TEST (test_unwritable_cache)
{
  gchar *dir = g_dir_make_tmp ("clfft-cache-XXXXXX", NULL);
  gchar *file = g_build_filename (dir, "a-file", NULL);
  gchar *below_file = g_build_filename (file, "cache", NULL);
  gchar *ro = g_build_filename (dir, "read-only", NULL);

  fail_unless (g_file_set_contents (file, "not a directory", -1, NULL));
  /* a cache directory that cannot be created (its parent is a file) */
  pipelines_with_cache (below_file, "below a file");
  /* the cache directory is a file */
  pipelines_with_cache (file, "a file");
  /* a read-only directory (root writes anyway; then it is just a cache) */
  fail_unless (g_mkdir (ro, 0555) == 0);
  pipelines_with_cache (ro, "read-only");
  if (geteuid () != 0) {
    GDir *d = g_dir_open (ro, 0, NULL);
    fail_unless (g_dir_read_name (d) == NULL, "wrote into a read-only dir");
    g_dir_close (d);
  }
  g_chmod (ro, 0755);
  remove_dir (ro);
  g_unlink (file);
  g_rmdir (dir);
  g_free (ro);
  g_free (below_file);
  g_free (file);
  g_free (dir);
}

GST_END_TEST;

/* By default the binaries are cached everywhere but on PoCL, whose own
 * cache keeps them (asking PoCL for them costs a compile). */
GST_START_TEST (test_cache_left_to_pocl)
{
  gchar *dir = g_dir_make_tmp ("clfft-cache-XXXXXX", NULL);
  gchar *env = g_strdup_printf ("CLFFT_CACHE_DIR=%s", dir);
  const gchar *changes[] = { env, "CLFFT_CACHE_BINARIES=", NULL };
  GDir *d;
  guint files;

  g_free (run_child ("pipelines", changes));
  d = g_dir_open (dir, 0, NULL);
  files = 0;
  if (d) {
    while (g_dir_read_name (d))
      files++;
    g_dir_close (d);
  }
  if (default_device_is_pocl ()) {
    fail_unless_equals_int (files, 0);
  } else {
    fail_unless (files >= 3, "only %u cache files", files);
  }
  remove_dir (dir);
  g_free (env);
  g_free (dir);
}

GST_END_TEST;

/* ---- tests: frames larger than the device -------------------------------- */

/* PoCL limited to 1 GiB (256 MiB per buffer): a 16384x16384 RGBA frame
 * (1 GiB) cannot be convolved or transformed; the error names the cause,
 * and smaller frames work on in the same process. PoCL only: a GPU's
 * memory is not limited this way (an H200 convolves that frame). */
GST_START_TEST (test_frame_larger_than_device)
{
  const gchar *changes[] = { "POCL_MEMORY_LIMIT=1", NULL };
  gchar *out;

  if (!default_device_is_pocl ())
    return;
  out = run_child ("device-too-small", changes);

  g_free (out);
}

GST_END_TEST;

static Suite *
reliability_faults_suite (void)
{
  Suite *s = suite_create ("reliability-faults");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_no_platform);
  tcase_add_test (tc, test_build_fails);
  tcase_add_test (tc, test_allocation_failures);
  tcase_add_test (tc, test_allocation_failure_mid_stream);
  tcase_add_test (tc, test_corrupt_cache);
  tcase_add_test (tc, test_unwritable_cache);
  tcase_add_test (tc, test_cache_left_to_pocl);
  tcase_add_test (tc, test_frame_larger_than_device);
  tcase_add_test (tc, test_cache_swapped_binaries);
  return s;
}

int
main (int argc, char **argv)
{
  Suite *s;

  if (argc > 1 && g_str_has_prefix (argv[1], "--child=")) {
    gst_init (NULL, NULL);
    return child_main (argv[1] + strlen ("--child="));
  }
  gst_check_init (&argc, &argv);
  s = reliability_faults_suite ();
  return gst_check_run_suite (s, "reliability_faults", __FILE__);
}

/* test-reliability-corpus.c: replays the fuzzers' seed corpora (tests/fuzz/corpus-*) through clfftconvolve's kernel and impulse response loaders. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/audio/audio.h>
#include <gst/video/video.h>
#include <math.h>
#include <string.h>

/* Agreement of the element's output with GStreamer's own decoding of an
 * impulse response: the input is a unit impulse, so the output is the
 * response itself after two float32 FFTs of a few thousand points (error
 * ~1e-7 relative to the largest tap); S16/S24 files quantise the same way
 * in libsndfile and audioconvert. */
#define IR_TOLERANCE 1e-5

/* The frame the kernels convolve: odd sizes, so rows have padding. */
#define FRAME_W 13
#define FRAME_H 11

/* Files of the seed corpora that hold a valid kernel or response; every
 * other file may load or fail, but only with a clean GST_RESOURCE_ERROR
 * naming the file (broken files, and crash reproducers added later). */
static const gchar *good_kernels[] = {
  "grey1-5x3.png", "grey2-5x3.png", "grey4-5x3.png", "grey8-5x3.png",
  "grey16-5x3.png", "grey8-1x1.png", "grey8-7x5.png",
  "grey8-interlaced-7x5.png", "grey2-interlaced-3x10.png",
  "grey8-subfilter-6x2.png", "grey8-trns-3x3.png", "greyalpha8-3x2.png",
  "greyalpha16-2x2.png", "palette1-9x2.png", "palette4-3x3.png",
  "palette8-trns-4x2.png", "rgb8-4x3.png", "rgb16-2x2.png", "rgb8-9x9.png",
  "rgb8-interlaced-9x9.png", "rgba8-3x3.png", "rgba16-2x3.png",
  "p5-8bit-3x3.pgm", "p5-16bit-4x3.pgm", "p2-comment-3x2.pgm",
  "p2-maxval1-2x2.pgm", "p2-above-maxval.pgm", NULL
};

static const gchar *bad_kernels[] = {
  "empty", "not-an-image.txt", "png-truncated.png", "png-signature-only.png",
  "png-bad-crc.png", "png-huge.png", "png-4096x4096-no-data.png",
  "png-zero-width.png", "png-bad-depth.png", "p5-truncated.pgm",
  "p2-too-few.pgm", "p5-huge.pgm", "p5-zero-height.pgm", "p5-maxval0.pgm",
  "p5-maxval-too-big.pgm", "p5-no-separator.pgm", "p2-overflow.pgm",
  "p2-negative.pgm", NULL
};

/* Valid responses with their channel count. */
typedef struct
{
  const gchar *name;
  guint channels;
} GoodIr;

static const GoodIr good_irs[] = {
  {"pcm16-mono-8.wav", 1}, {"pcm16-stereo-5.wav", 2}, {"pcm8-mono-4.wav", 1},
  {"pcm24-mono-3.wav", 1}, {"pcm32-mono-2.wav", 1},
  {"float32-mono-6.wav", 1}, {"float64-stereo-4.wav", 2},
  {"float32-extensible-3ch.wav", 3}, {"pcm16-64ch-2.wav", 64},
  {"au-float-mono-4.au", 1}, {"aiff-pcm16-stereo-3.aiff", 2},
  {"flac-mono-48.flac", 1}, {"wav-truncated-data.wav", 1},
  {"wav-huge-data-size.wav", 1}, {NULL, 0}
};

static const gchar *bad_irs[] = {
  "empty", "not-audio.txt", "float32-nan.wav", "float32-inf.wav",
  "float32-huge.wav", "wav-zero-frames.wav", "wav-zero-channels.wav",
  "wav-header-only.wav", NULL
};

static gboolean
in_list (const gchar * const *list, const gchar * name)
{
  for (; *list; list++)
    if (strcmp (*list, name) == 0)
      return TRUE;
  return FALSE;
}

/* tests/fuzz/NAME of the source tree. Meson compiles this file as
 * "../tests/..." from the build root, which is the parent of the plugin
 * folder the tests are given. */
static gchar *
corpus_dir (const gchar * name)
{
  const gchar *env = g_getenv ("CLFFT_FUZZ_DIR");
  gchar *file, *tests, *dir;

  if (env)
    return g_build_filename (env, name, NULL);
  if (g_path_is_absolute (__FILE__)) {
    file = g_strdup (__FILE__);
  } else {
    const gchar *plugins = g_getenv ("GST_PLUGIN_PATH_1_0");
    gchar *root;

    fail_unless (plugins != NULL, "set CLFFT_FUZZ_DIR or GST_PLUGIN_PATH_1_0");
    root = g_path_get_dirname (plugins);
    file = g_build_filename (root, __FILE__, NULL);
    g_free (root);
  }
  tests = g_path_get_dirname (file);
  dir = g_build_filename (tests, "fuzz", name, NULL);
  g_free (tests);
  g_free (file);
  fail_unless (g_file_test (dir, G_FILE_TEST_IS_DIR), "no corpus at %s", dir);
  return dir;
}

/* The corpus files, sorted, as full paths. */
static GPtrArray *
list_files (const gchar * dir)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  const gchar *n;

  fail_unless (d != NULL);
  while ((n = g_dir_read_name (d)))
    g_ptr_array_add (names, g_build_filename (dir, n, NULL));
  g_dir_close (d);
  g_ptr_array_sort (names, (GCompareFunc) g_strcmp0);
  fail_unless (names->len > 10, "only %u files in %s", names->len, dir);
  return names;
}

/* The first error on bus, or NULL. */
static GError *
pop_error (GstBus * bus)
{
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  GError *error = NULL;

  if (!msg)
    return NULL;
  gst_message_parse_error (msg, &error, NULL);
  gst_message_unref (msg);
  return error;
}

static void
check_clean_error (GError * error, const gchar * path)
{
  fail_unless (error != NULL, "%s: failed without an error message", path);
  fail_unless (error->domain == GST_RESOURCE_ERROR, "%s: %s domain: %s",
      path, g_quark_to_string (error->domain), error->message);
  fail_unless (strstr (error->message, path) != NULL,
      "%s: the message does not name the file: %s", path, error->message);
}

/* ---- kernels -------------------------------------------------------------- */

/* One GRAY8 frame through clfftconvolve with the kernel image at path
 * (unnormalised, so that an all-black image is a valid zero kernel).
 * Returns the output frame, or NULL after checking the error. */
static GstBuffer *
convolve_with_kernel_file (const gchar * path)
{
  GstHarness *h = gst_harness_new ("clfftconvolve");
  GstBus *bus = gst_bus_new ();
  GstVideoInfo info;
  GstBuffer *in, *out = NULL;
  GstMapInfo map;
  GstFlowReturn ret;
  gsize i;

  gst_element_set_bus (h->element, bus);
  g_object_set (h->element, "kernel-location", path, "normalize", FALSE,
      "edge-mode", 2 /* wrap */ , NULL);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, FRAME_W, FRAME_H);
  gst_harness_set_caps (h, gst_video_info_to_caps (&info),
      gst_video_info_to_caps (&info));
  in = gst_buffer_new_allocate (NULL, info.size, NULL);
  gst_buffer_map (in, &map, GST_MAP_WRITE);
  for (i = 0; i < map.size; i++)
    map.data[i] = (guint8) ((i * 37 + 11) % 23);
  gst_buffer_unmap (in, &map);
  ret = gst_harness_push (h, in);
  if (ret == GST_FLOW_OK) {
    out = gst_harness_pull (h);
    fail_unless (out != NULL);
    fail_unless (pop_error (bus) == NULL);
  } else {
    fail_unless_equals_int (ret, GST_FLOW_ERROR);
    check_clean_error (pop_error (bus), path);
  }
  gst_element_set_bus (h->element, NULL);
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  return out;
}

/* The visible pixels of two GRAY8 outputs (row padding is undefined). */
static void
check_same_frames (GstBuffer * a, GstBuffer * b, const gchar * what)
{
  GstVideoInfo info;
  GstVideoFrame fa, fb;
  gint y;

  fail_unless (a != NULL && b != NULL, "%s: missing output", what);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, FRAME_W, FRAME_H);
  fail_unless (gst_video_frame_map (&fa, &info, a, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fb, &info, b, GST_MAP_READ));
  for (y = 0; y < FRAME_H; y++)
    fail_unless (memcmp ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fa, 0) +
            y * GST_VIDEO_FRAME_PLANE_STRIDE (&fa, 0),
            (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fb, 0) +
            y * GST_VIDEO_FRAME_PLANE_STRIDE (&fb, 0), FRAME_W) == 0,
        "%s: outputs differ in row %d", what, y);
  gst_video_frame_unmap (&fa);
  gst_video_frame_unmap (&fb);
}

GST_START_TEST (test_kernel_corpus)
{
  gchar *dir = corpus_dir ("corpus-kernel");
  GPtrArray *files = list_files (dir);
  GHashTable *outputs = g_hash_table_new_full (g_str_hash, g_str_equal,
      g_free, (GDestroyNotify) gst_buffer_unref);
  static const gchar *twins[][2] = {
    {"grey8-7x5.png", "grey8-interlaced-7x5.png"},
    {"rgb8-9x9.png", "rgb8-interlaced-9x9.png"},
  };
  guint i;

  for (i = 0; i < files->len; i++) {
    const gchar *path = g_ptr_array_index (files, i);
    gchar *name = g_path_get_basename (path);
    GstBuffer *out = convolve_with_kernel_file (path);

    GST_INFO ("%s: %s", name, out ? "loaded" : "refused");
    if (in_list (good_kernels, name))
      fail_unless (out != NULL, "%s is a valid kernel image", name);
    if (in_list (bad_kernels, name))
      fail_unless (out == NULL, "%s is not a valid kernel image", name);
    if (out)
      g_hash_table_insert (outputs, name, out);
    else
      g_free (name);
  }
  /* interlacing is storage: the same pixels, the same kernel */
  for (i = 0; i < G_N_ELEMENTS (twins); i++)
    check_same_frames (g_hash_table_lookup (outputs, twins[i][0]),
        g_hash_table_lookup (outputs, twins[i][1]), twins[i][1]);

  g_hash_table_unref (outputs);
  g_ptr_array_unref (files);
  g_free (dir);
}

GST_END_TEST;

/* ---- impulse responses ---------------------------------------------------- */

/* The response as GStreamer's own decoders and audioconvert read it:
 * frames x channels doubles, or NULL where GStreamer cannot read it. */
static gdouble *
decode_with_gstreamer (const gchar * path, guint channels, guint * frames)
{
  gchar *desc = g_strdup_printf ("filesrc location=\"%s\" ! decodebin ! "
      "audioconvert ! audio/x-raw,format=" GST_AUDIO_NE (F64)
      ",layout=interleaved,channels=%u ! appsink name=sink sync=false "
      "wait-on-eos=false",
      path, channels);
  GstElement *pipe = gst_parse_launch (desc, NULL);
  GstElement *sink;
  GByteArray *bytes = g_byte_array_new ();
  GstMessage *msg;
  gboolean ok;

  g_free (desc);
  fail_unless (pipe != NULL);
  sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  /* the unbounded appsink queue takes everything before EOS; files
   * GStreamer cannot read end in an error instead */
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipe), 20 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  ok = msg != NULL && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS;
  if (msg)
    gst_message_unref (msg);
  while (ok) {
    GstSample *sample = NULL;
    GstMapInfo map;

    g_signal_emit_by_name (sink, "try-pull-sample", (GstClockTime) 0, &sample);
    if (!sample)
      break;
    gst_buffer_map (gst_sample_get_buffer (sample), &map, GST_MAP_READ);
    g_byte_array_append (bytes, map.data, map.size);
    gst_buffer_unmap (gst_sample_get_buffer (sample), &map);
    gst_sample_unref (sample);
  }
  ok = ok && bytes->len > 0;
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  *frames = bytes->len / (sizeof (gdouble) * channels);
  if (!ok) {
    g_byte_array_free (bytes, TRUE);
    return NULL;
  }
  return (gdouble *) g_byte_array_free (bytes, FALSE);
}

/* Convolves a unit impulse (then silence) of `channels` F32 channels with
 * the response at path. Returns the output (frames x channels floats, the
 * tail drained at EOS) or NULL after checking the error. */
static gfloat *
impulse_through_ir_file (const gchar * path, guint channels, guint * frames)
{
  const guint n = 64;
  GstHarness *h = gst_harness_new ("clfftconvolve");
  GstBus *bus = gst_bus_new ();
  GstAudioInfo info;
  GstBuffer *in, *b;
  GByteArray *bytes = g_byte_array_new ();
  GstMapInfo map;
  GstFlowReturn ret;
  gchar *caps;

  gst_element_set_bus (h->element, bus);
  g_object_set (h->element, "ir-location", path, "block-size", 32, NULL);
  gst_audio_info_set_format (&info, GST_AUDIO_FORMAT_F32, 48000, channels,
      NULL);
  caps = g_strdup_printf ("audio/x-raw,format=" GST_AUDIO_NE (F32)
      ",layout=interleaved,rate=48000,channels=%u%s", channels,
      channels > 2 ? ",channel-mask=(bitmask)0" : "");
  gst_harness_set_caps_str (h, caps, caps);
  g_free (caps);
  in = gst_buffer_new_allocate (NULL, (gsize) n * channels * sizeof (gfloat),
      NULL);
  gst_buffer_memset (in, 0, 0, gst_buffer_get_size (in));
  gst_buffer_map (in, &map, GST_MAP_WRITE);
  for (guint c = 0; c < channels; c++)
    ((gfloat *) map.data)[c] = 1.0f;
  gst_buffer_unmap (in, &map);
  GST_BUFFER_PTS (in) = 0;
  ret = gst_harness_push (h, in);
  if (ret != GST_FLOW_OK) {
    /* caps that the response refuses: not negotiated, with the reason */
    fail_unless (ret == GST_FLOW_NOT_NEGOTIATED || ret == GST_FLOW_ERROR,
        "%s: flow %s", path, gst_flow_get_name (ret));
    check_clean_error (pop_error (bus), path);
    g_byte_array_free (bytes, TRUE);
    bytes = NULL;
  } else {
    fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
    while ((b = gst_harness_try_pull (h))) {
      gst_buffer_map (b, &map, GST_MAP_READ);
      g_byte_array_append (bytes, map.data, map.size);
      gst_buffer_unmap (b, &map);
      gst_buffer_unref (b);
    }
    fail_unless (pop_error (bus) == NULL);
    *frames = bytes->len / (sizeof (gfloat) * channels);
  }
  gst_element_set_bus (h->element, NULL);
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  return bytes ? (gfloat *) g_byte_array_free (bytes, FALSE) : NULL;
}

GST_START_TEST (test_ir_corpus)
{
  gchar *dir = corpus_dir ("corpus-ir");
  GPtrArray *files = list_files (dir);
  guint i, compared = 0;

  for (i = 0; i < files->len; i++) {
    const gchar *path = g_ptr_array_index (files, i);
    gchar *name = g_path_get_basename (path);
    const GoodIr *good = NULL;
    guint frames = 0, ref_frames = 0, channels = 1, k;
    gfloat *out;
    gdouble *ref;

    for (k = 0; good_irs[k].name; k++)
      if (strcmp (good_irs[k].name, name) == 0)
        good = &good_irs[k];
    if (good)
      channels = good->channels;
    out = impulse_through_ir_file (path, channels, &frames);
    GST_INFO ("%s: %s", name, out ? "loaded" : "refused");
    if (good)
      fail_unless (out != NULL, "%s is a valid response", name);
    if (in_list (bad_irs, name))
      fail_unless (out == NULL, "%s is not a valid response", name);

    /* where GStreamer reads the file too, the output is the response
     * (audioconvert warns about unpositioned channels beyond stereo) */
    ref = out && channels <= 2 ?
        decode_with_gstreamer (path, channels, &ref_frames) : NULL;
    if (ref) {
      gdouble peak = 0.0, worst = 0.0;
      guint j;

      fail_unless (frames >= ref_frames, "%s: %u output frames for a "
          "%u-frame response", name, frames, ref_frames);
      for (j = 0; j < ref_frames * channels; j++)
        peak = MAX (peak, fabs (ref[j]));
      for (j = 0; j < frames * channels; j++) {
        gdouble want = j < ref_frames * channels ? ref[j] : 0.0;
        worst = MAX (worst, fabs (out[j] - want));
      }
      fail_unless (worst <= IR_TOLERANCE * MAX (peak, 1e-3), "%s: output "
          "differs from GStreamer's decoding by %g (peak %g)", name, worst,
          peak);
      compared++;
      g_free (ref);
    }
    g_free (out);
    g_free (name);
  }
  /* most of the valid seeds are also readable by GStreamer */
  fail_unless (compared >= 8, "only %u responses compared", compared);
  g_ptr_array_unref (files);
  g_free (dir);
}

GST_END_TEST;

static Suite *
reliability_corpus_suite (void)
{
  Suite *s = suite_create ("reliability-corpus");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_kernel_corpus);
  tcase_add_test (tc, test_ir_corpus);
  return s;
}

GST_CHECK_MAIN (reliability_corpus);

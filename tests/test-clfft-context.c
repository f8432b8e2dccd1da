/* test-clfft-context.c: clfft elements share one OpenCL context through GstContext (neighbours, bins, the application). */
#include <gst/check/gstcheck.h>
#include <string.h>

#include "clf.h"

#define CONTEXT_TYPE "gst.clfft.context"

/* Two elements; b starts first (bins start sinks first), so a finds b's
 * context by querying its neighbour. Tiny frames: the test is about who
 * runs on which context, the convolution itself is tested elsewhere. */
#define PIPELINE "videotestsrc num-buffers=2 ! " \
  "video/x-raw,format=GRAY8,width=32,height=24 ! " \
  "clfftconvolve name=a radius=2 ! clfftconvolve name=b radius=3 ! fakesink"

typedef struct
{
  const gchar *pipeline;        /* NULL: PIPELINE */
  GstContext *app_context;      /* set on the pipeline before it starts */
  GstContext *reply_context;    /* given in reply to need-context */
  const gchar *device_a, *device_b;

  /* results */
  guint have_context;           /* have-context messages on the app bus */
  guint need_context;           /* need-context messages on the app bus */
  GstContext *context_a, *context_b;    /* what a and b answer queries with */
  gchar *name_a, *name_b;       /* their device-name properties */
  GError *error;
} Run;

/* The default device's name: as a device spec it picks the same device as
 * the default choice but is a different spec, so a different context of
 * the process-wide cache; elements only share it through GstContext. */
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

static GType
clf_context_type (void)
{
  GstElement *e;
  GType t;

  /* loading the plugin registers the boxed type */
  e = gst_element_factory_make ("clfftconvolve", NULL);
  fail_unless (e != NULL);
  gst_object_unref (e);
  t = g_type_from_name ("ClfContext");
  fail_unless (t != 0 && G_TYPE_IS_BOXED (t));
  return t;
}

/* A context as an application builds one: ctx may be NULL (device only). */
static GstContext *
app_context_new (ClfContext * ctx, const gchar * device)
{
  GstContext *context = gst_context_new (CONTEXT_TYPE, TRUE);
  GstStructure *s = gst_context_writable_structure (context);

  if (device)
    gst_structure_set (s, "device", G_TYPE_STRING, device, NULL);
  if (ctx)
    gst_structure_set (s, "clf-context", clf_context_type (), ctx, NULL);
  return context;
}

static ClfContext *
context_clf (GstContext * context)
{
  const GValue *v;

  fail_unless (context != NULL);
  v = gst_structure_get_value (gst_context_get_structure (context),
      "clf-context");
  fail_unless (v != NULL && G_VALUE_HOLDS (v, clf_context_type ()));
  return g_value_get_boxed (v);
}

static const gchar *
context_device (GstContext * context)
{
  return gst_structure_get_string (gst_context_get_structure (context),
      "device");
}

static gboolean
is_clfft_context_message (GstMessage * msg)
{
  const gchar *type = NULL;

  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_NEED_CONTEXT)
    gst_message_parse_context_type (msg, &type);
  else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_HAVE_CONTEXT) {
    GstContext *c;
    gboolean ours;

    gst_message_parse_have_context (msg, &c);
    ours = g_strcmp0 (gst_context_get_context_type (c), CONTEXT_TYPE) == 0;
    gst_context_unref (c);
    return ours;
  }
  return g_strcmp0 (type, CONTEXT_TYPE) == 0;
}

/* Counts in the posting thread: an application answering need-context
 * must do so before the element goes on. */
static GstBusSyncReply
sync_handler (GstBus * bus, GstMessage * msg, gpointer user_data)
{
  Run *run = user_data;

  if (!is_clfft_context_message (msg))
    return GST_BUS_PASS;
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_NEED_CONTEXT) {
    run->need_context++;
    if (run->reply_context)
      gst_element_set_context (GST_ELEMENT (GST_MESSAGE_SRC (msg)),
          run->reply_context);
  } else {
    run->have_context++;
  }
  return GST_BUS_PASS;
}

static GstContext *
query_element (GstElement * e)
{
  GstQuery *q = gst_query_new_context (CONTEXT_TYPE);
  GstPad *pad = gst_element_get_static_pad (e, "src");
  GstContext *context = NULL;

  if (gst_pad_query (pad, q)) {
    gst_query_parse_context (q, &context);
    gst_context_ref (context);
  }
  gst_object_unref (pad);
  gst_query_unref (q);
  return context;
}

static void
run_pipeline (Run * run)
{
  GstElement *pipeline = gst_parse_launch (run->pipeline ? run->pipeline :
      PIPELINE, NULL);
  GstElement *a, *b;
  GstBus *bus;
  GstMessage *msg;
  gboolean done = FALSE;

  fail_unless (pipeline != NULL);
  a = gst_bin_get_by_name (GST_BIN (pipeline), "a");
  b = gst_bin_get_by_name (GST_BIN (pipeline), "b");
  if (run->device_a)
    g_object_set (a, "device", run->device_a, NULL);
  if (run->device_b)
    g_object_set (b, "device", run->device_b, NULL);
  if (run->app_context)
    gst_element_set_context (pipeline, run->app_context);
  bus = gst_element_get_bus (pipeline);
  gst_bus_set_sync_handler (bus, sync_handler, run, NULL);

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  while (!done) {
    msg = gst_bus_timed_pop_filtered (bus, 120 * GST_SECOND,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    fail_unless (msg != NULL, "pipeline timed out");
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR)
      gst_message_parse_error (msg, &run->error, NULL);
    done = TRUE;
    gst_message_unref (msg);
  }

  /* still running: ask what each element runs on */
  run->context_a = query_element (a);
  run->context_b = query_element (b);
  g_object_get (a, "device-name", &run->name_a, NULL);
  g_object_get (b, "device-name", &run->name_b, NULL);

  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_bus_set_sync_handler (bus, NULL, NULL, NULL);
  gst_object_unref (bus);
  gst_object_unref (a);
  gst_object_unref (b);
  gst_object_unref (pipeline);
}

static void
run_clear (Run * run)
{
  g_clear_pointer (&run->context_a, gst_context_unref);
  g_clear_pointer (&run->context_b, gst_context_unref);
  g_clear_pointer (&run->app_context, gst_context_unref);
  g_clear_pointer (&run->reply_context, gst_context_unref);
  g_clear_pointer (&run->name_a, g_free);
  g_clear_pointer (&run->name_b, g_free);
  g_clear_error (&run->error);
}

static void
assert_ran (Run * run)
{
  fail_unless (run->error == NULL, "pipeline error: %s",
      run->error ? run->error->message : "");
  fail_unless (run->context_a != NULL && run->context_b != NULL);
  /* the property names the context the element answers with */
  fail_unless_equals_string (run->name_a,
      clf_context_describe (context_clf (run->context_a)));
  fail_unless_equals_string (run->name_b,
      clf_context_describe (context_clf (run->context_b)));
}

GST_START_TEST (test_neighbours_share)
{
  Run run = { 0, };
  gchar *name = default_device_name ();

  /* b, with a device set, makes its context first and announces it; a,
   * without a preference, takes it from b's answer to its query */
  run.device_b = name;
  run_pipeline (&run);
  assert_ran (&run);
  fail_unless (context_clf (run.context_a) == context_clf (run.context_b));
  fail_unless_equals_string (context_device (run.context_a), name);
  fail_unless_equals_int (run.have_context, 1);
  /* only b had to ask the bins and the application */
  fail_unless_equals_int (run.need_context, 1);
  run_clear (&run);
  g_free (name);
}

GST_END_TEST;

GST_START_TEST (test_device_property_wins)
{
  Run run = { 0, };
  gchar *name = default_device_name ();

  /* b makes a context for the default choice; a asks for a named device,
   * so it takes neither b's answer nor the bin's, and makes its own */
  run.device_a = name;
  run_pipeline (&run);
  assert_ran (&run);
  fail_unless (context_clf (run.context_a) != context_clf (run.context_b));
  fail_unless_equals_string (context_device (run.context_a), name);
  fail_unless_equals_string (context_device (run.context_b), "");
  fail_unless_equals_int (run.have_context, 2);
  run_clear (&run);
  g_free (name);
}

GST_END_TEST;

GST_START_TEST (test_application_context)
{
  Run run = { 0, };
  ClfError err = { CLF_OK, "" };
  /* not from the plugin's cache: only GstContext can bring it in */
  ClfContext *ctx = clf_context_new (NULL, &err);

  fail_unless (ctx != NULL, "%s", err.message);
  run.app_context = app_context_new (ctx, "");
  run_pipeline (&run);
  assert_ran (&run);
  fail_unless (context_clf (run.context_a) == ctx);
  fail_unless (context_clf (run.context_b) == ctx);
  fail_unless_equals_int (run.have_context, 0);
  fail_unless_equals_int (run.need_context, 0);
  run_clear (&run);
  clf_context_unref (ctx);
}

GST_END_TEST;

GST_START_TEST (test_application_answers_need_context)
{
  Run run = { 0, };
  ClfError err = { CLF_OK, "" };
  ClfContext *ctx = clf_context_new (NULL, &err);

  fail_unless (ctx != NULL, "%s", err.message);
  run.reply_context = app_context_new (ctx, NULL);
  run_pipeline (&run);
  assert_ran (&run);
  fail_unless (context_clf (run.context_a) == ctx);
  fail_unless (context_clf (run.context_b) == ctx);
  fail_unless_equals_int (run.have_context, 0);
  /* b asked; a found it by querying b */
  fail_unless_equals_int (run.need_context, 1);
  run_clear (&run);
  clf_context_unref (ctx);
}

GST_END_TEST;

GST_START_TEST (test_application_device_only)
{
  Run run = { 0, };
  gchar *name = default_device_name ();

  /* the application only chooses the device of every element */
  run.app_context = app_context_new (NULL, name);
  run_pipeline (&run);
  assert_ran (&run);
  fail_unless (context_clf (run.context_a) == context_clf (run.context_b));
  fail_unless_equals_string (context_device (run.context_a), name);
  fail_unless_equals_string (context_device (run.context_b), name);
  fail_unless_equals_int (run.have_context, 0);
  run_clear (&run);
  g_free (name);
}

GST_END_TEST;

GST_START_TEST (test_device_property_refuses_application_context)
{
  Run run = { 0, };
  ClfError err = { CLF_OK, "" };
  ClfContext *ctx = clf_context_new (NULL, &err);

  /* an element told to use a device that does not exist must fail rather
   * than run on whatever context the application offers */
  fail_unless (ctx != NULL, "%s", err.message);
  run.app_context = app_context_new (ctx, "");
  run.device_b = "no-such-opencl-device-xyz";
  run_pipeline (&run);
  fail_unless (run.error != NULL);
  fail_unless (g_error_matches (run.error, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_NOT_FOUND), "%s", run.error->message);
  run_clear (&run);
  clf_context_unref (ctx);
}

GST_END_TEST;

/* Both elements take part alike, in either order, on video and audio. */
GST_START_TEST (test_spectrum_and_convolve_share)
{
  static const gchar *pipelines[] = {
    "videotestsrc num-buffers=2 ! video/x-raw,format=GRAY8,width=32,"
        "height=24 ! clfftconvolve name=a radius=2 ! clfftspectrum name=b "
        "! fakesink",
    "audiotestsrc num-buffers=4 ! audio/x-raw,format=F32LE,channels=1 ! "
        "clfftconvolve name=a impulse-response=\"<0.5, 0.25>\" ! "
        "clfftspectrum name=b ! fakesink",
    "audiotestsrc num-buffers=4 ! audio/x-raw,format=F32LE,channels=1 ! "
        "clfftspectrum name=a ! clfftconvolve name=b "
        "impulse-response=\"<0.5, 0.25>\" ! fakesink",
  };
  gchar *name = default_device_name ();
  guint i;

  for (i = 0; i < G_N_ELEMENTS (pipelines); i++) {
    Run run = { 0, };

    run.pipeline = pipelines[i];
    run.device_b = name;
    run_pipeline (&run);
    assert_ran (&run);
    fail_unless (context_clf (run.context_a) == context_clf (run.context_b),
        "%s", pipelines[i]);
    fail_unless_equals_string (context_device (run.context_a), name);
    fail_unless_equals_int (run.have_context, 1);
    fail_unless_equals_int (run.need_context, 1);
    run_clear (&run);
  }
  g_free (name);
}

GST_END_TEST;

GST_START_TEST (test_pipelines_share_process_cache)
{
  Run first = { 0, }, second = { 0, };

  /* without any GstContext between them, pipelines of one process still
   * share the context for the same device spec (kernels build once) */
  run_pipeline (&first);
  run_pipeline (&second);
  assert_ran (&first);
  assert_ran (&second);
  fail_unless (context_clf (first.context_a) == context_clf (second.context_b));
  run_clear (&first);
  run_clear (&second);
}

GST_END_TEST;

static Suite *
clfft_context_suite (void)
{
  Suite *s = suite_create ("clfft-context");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 600);
  tcase_add_test (tc, test_neighbours_share);
  tcase_add_test (tc, test_device_property_wins);
  tcase_add_test (tc, test_application_context);
  tcase_add_test (tc, test_application_answers_need_context);
  tcase_add_test (tc, test_application_device_only);
  tcase_add_test (tc, test_device_property_refuses_application_context);
  tcase_add_test (tc, test_spectrum_and_convolve_share);
  tcase_add_test (tc, test_pipelines_share_process_cache);
  return s;
}

GST_CHECK_MAIN (clfft_context);

/* gstclfftdevice.c: how clfft elements find a shared ClfContext: GstContext, then a process-wide cache. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclfftdevice.h"

GST_DEBUG_CATEGORY_STATIC (gst_clfft_device_debug);
#define GST_CAT_DEFAULT gst_clfft_device_debug

static GMutex contexts_lock;
static GHashTable *contexts;    /* spec -> ClfContext*, holds one ref each */

static void
ensure_debug_category (void)
{
  static gsize done = 0;
  if (g_once_init_enter (&done)) {
    GST_DEBUG_CATEGORY_INIT (gst_clfft_device_debug, "clfftcore", 0,
        "clfft OpenCL device and FFT core");
    g_once_init_leave (&done, 1);
  }
}

GType
gst_clfft_clf_context_get_type (void)
{
  static gsize type = 0;

  if (g_once_init_enter (&type)) {
    GType t = g_boxed_type_register_static ("ClfContext",
        (GBoxedCopyFunc) clf_context_ref, (GBoxedFreeFunc) clf_context_unref);
    g_once_init_leave (&type, t);
  }
  return type;
}

void
gst_clfft_device_init (void)
{
  ensure_debug_category ();
  g_type_ensure (GST_CLFFT_TYPE_CLF_CONTEXT);
}

/* ---- GstContext sharing ------------------------------------------------- */

/* The context each element runs on, as element qdata, so that queries from
 * other threads answer with a reference they own. */
static GMutex active_lock;

static GQuark
active_quark (void)
{
  static GQuark quark = 0;

  if (!quark)
    quark = g_quark_from_static_string ("gst-clfft-active-context");
  return quark;
}

static void
set_active_context (GstElement * element, GstContext * context)
{
  g_mutex_lock (&active_lock);
  g_object_set_qdata_full (G_OBJECT (element), active_quark (),
      gst_context_ref (context), (GDestroyNotify) gst_context_unref);
  g_mutex_unlock (&active_lock);
}

static GstContext *
get_active_context (GstElement * element)
{
  GstContext *context;

  g_mutex_lock (&active_lock);
  context = g_object_get_qdata (G_OBJECT (element), active_quark ());
  if (context)
    gst_context_ref (context);
  g_mutex_unlock (&active_lock);
  return context;
}

static gboolean
spec_is_default (const gchar * spec)
{
  return !spec || !spec[0];
}

/* Whether context is a clfft context that an element asking for
 * device_spec may run on. A spec names a choice rule, not a device ("gpu"
 * and "" may pick different devices), so only an element without a
 * preference takes a context made for another spec. */
static gboolean
context_suits (GstElement * element, GstContext * context,
    const gchar * device_spec)
{
  const GstStructure *s;
  const GValue *v;
  const gchar *spec;

  if (!context || g_strcmp0 (gst_context_get_context_type (context),
          GST_CLFFT_CONTEXT_TYPE) != 0)
    return FALSE;
  s = gst_context_get_structure (context);
  v = gst_structure_get_value (s, "clf-context");
  if (v && (!G_VALUE_HOLDS (v, GST_CLFFT_TYPE_CLF_CONTEXT)
          || !g_value_get_boxed (v))) {
    GST_WARNING_OBJECT (element, "ignoring a clfft context whose "
        "clf-context field is not a ClfContext: %" GST_PTR_FORMAT, s);
    return FALSE;
  }
  spec = gst_structure_get_string (s, "device");
  if (!spec_is_default (device_spec) && g_strcmp0 (spec ? spec : "",
          device_spec) != 0) {
    GST_DEBUG_OBJECT (element, "not taking a context made for device '%s': "
        "the device property asks for '%s'", spec ? spec : "", device_spec);
    return FALSE;
  }
  return TRUE;
}

/* A context holding ctx, made for device_spec. */
static GstContext *
context_new (ClfContext * ctx, const gchar * device_spec)
{
  GstContext *context = gst_context_new (GST_CLFFT_CONTEXT_TYPE, TRUE);
  GstStructure *s = gst_context_writable_structure (context);

  gst_structure_set (s, "device", G_TYPE_STRING,
      device_spec ? device_spec : "", "clf-context",
      GST_CLFFT_TYPE_CLF_CONTEXT, ctx, "device-name", G_TYPE_STRING,
      clf_context_describe (ctx), NULL);
  return context;
}

typedef struct
{
  const gchar *device_spec;
  GstContext *found;
} PeerQuery;

static gboolean
query_peer (GstElement * element, GstPad * pad, gpointer user_data)
{
  PeerQuery *pq = user_data;
  GstQuery *query = gst_query_new_context (GST_CLFFT_CONTEXT_TYPE);
  GstContext *context = NULL;

  if (gst_pad_peer_query (pad, query)) {
    gst_query_parse_context (query, &context);
    GST_DEBUG_OBJECT (element, "%s:%s answered a context query",
        GST_DEBUG_PAD_NAME (pad));
    if (context_suits (element, context, pq->device_spec))
      pq->found = gst_context_ref (context);
  }
  gst_query_unref (query);
  return pq->found == NULL;
}

ClfContext *
gst_clfft_device_ensure_context (GstElement * element,
    const gchar * device_spec)
{
  GstContext *context;
  ClfContext *ctx = NULL;
  const gchar *origin;

  gst_clfft_device_init ();

  /* set on the element (or on a bin holding it) by the application, or
   * left there by a bin from an earlier need-context */
  origin = "set on the element";
  context = gst_element_get_context (element, GST_CLFFT_CONTEXT_TYPE);
  if (!context_suits (element, context, device_spec)) {
    PeerQuery pq = { device_spec, NULL };

    g_clear_pointer (&context, gst_context_unref);
    gst_element_foreach_src_pad (element, query_peer, &pq);
    if (!pq.found)
      gst_element_foreach_sink_pad (element, query_peer, &pq);
    context = pq.found;
    origin = "from a neighbouring element";
  }
  if (!context) {
    /* bins answer from the contexts elements announced with have-context;
     * applications from a bus sync handler; both call set_context, which
     * keeps the context in the element */
    gst_element_post_message (element,
        gst_message_new_need_context (GST_OBJECT (element),
            GST_CLFFT_CONTEXT_TYPE));
    context = gst_element_get_context (element, GST_CLFFT_CONTEXT_TYPE);
    if (!context_suits (element, context, device_spec))
      g_clear_pointer (&context, gst_context_unref);
    origin = "set in reply to need-context";
  }

  if (context) {
    const GstStructure *s = gst_context_get_structure (context);
    const GValue *v = gst_structure_get_value (s, "clf-context");

    if (v) {
      ctx = clf_context_ref (g_value_get_boxed (v));
    } else {
      /* a context naming only a device: resolve it once per process */
      const gchar *spec = gst_structure_get_string (s, "device");

      ctx = gst_clfft_device_acquire (element, spec);
      gst_context_unref (context);
      if (!ctx)
        return NULL;
      context = context_new (ctx, spec);
    }
  } else {
    ctx = gst_clfft_device_acquire (element, device_spec);
    if (!ctx)
      return NULL;
    context = context_new (ctx, device_spec);
    origin = "new, announced with have-context";
    gst_element_post_message (element,
        gst_message_new_have_context (GST_OBJECT (element),
            gst_context_ref (context)));
  }
  set_active_context (element, context);
  gst_context_unref (context);

  GST_INFO_OBJECT (element, "OpenCL device %s (context %p, %s)",
      clf_context_describe (ctx), ctx, origin);
  return ctx;
}

gboolean
gst_clfft_device_handle_context_query (GstElement * element, GstQuery * query)
{
  const gchar *type;
  GstContext *context;

  if (GST_QUERY_TYPE (query) != GST_QUERY_CONTEXT
      || !gst_query_parse_context_type (query, &type)
      || g_strcmp0 (type, GST_CLFFT_CONTEXT_TYPE) != 0)
    return FALSE;
  context = get_active_context (element);
  if (!context)
    return FALSE;
  gst_query_set_context (query, context);
  gst_context_unref (context);
  return TRUE;
}

ClfContext *
gst_clfft_device_acquire (GstElement * element, const gchar * device_spec)
{
  ClfContext *ctx;
  ClfError err = { 0, };
  const gchar *key = device_spec ? device_spec : "";

  ensure_debug_category ();

  g_mutex_lock (&contexts_lock);
  if (!contexts)
    contexts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
        (GDestroyNotify) clf_context_unref);
  ctx = g_hash_table_lookup (contexts, key);
  if (ctx) {
    clf_context_ref (ctx);
  } else {
    ctx = clf_context_new (device_spec, &err);
    if (ctx) {
      GST_INFO_OBJECT (element, "using OpenCL device %s",
          clf_context_describe (ctx));
      g_hash_table_insert (contexts, g_strdup (key), clf_context_ref (ctx));
    }
  }
  g_mutex_unlock (&contexts_lock);

  if (!ctx) {
    const gchar *env = g_getenv ("CLFFT_DEVICE");

    GST_ELEMENT_ERROR (element, RESOURCE, NOT_FOUND,
        ("No usable OpenCL device (%s): %s", clf_status_name (err.code),
            err.message),
        ("device spec '%s'%s%s%s; install an OpenCL driver (e.g. "
            "pocl-opencl-icd) or set the device property / CLFFT_DEVICE to "
            "a device gst-clfft-devices lists", key,
            !key[0] && env ? " (CLFFT_DEVICE='" : "",
            !key[0] && env ? env : "", !key[0] && env ? "')" : ""));
  }
  return ctx;
}

void
gst_clfft_device_post_error (GstElement * element, ClfContext * ctx,
    const ClfError * err, const gchar * what)
{
  const gchar *dev = ctx ? clf_context_describe (ctx) : "no device";

  switch (err->code) {
    case CLF_ERROR_OUT_OF_MEMORY:
      GST_ELEMENT_ERROR (element, RESOURCE, NO_SPACE_LEFT,
          ("Out of OpenCL device memory while %s on %s", what, dev),
          ("%s", err->message));
      break;
    case CLF_ERROR_BUILD:
      GST_ELEMENT_ERROR (element, LIBRARY, INIT,
          ("OpenCL kernel build failed while %s on %s", what, dev),
          ("%s", err->message));
      break;
    case CLF_ERROR_NO_PLATFORM:
    case CLF_ERROR_NO_DEVICE:
      GST_ELEMENT_ERROR (element, RESOURCE, NOT_FOUND,
          ("No usable OpenCL device while %s", what), ("%s", err->message));
      break;
    default:
      GST_ELEMENT_ERROR (element, LIBRARY, FAILED,
          ("OpenCL error (%s) while %s on %s", clf_status_name (err->code),
              what, dev), ("%s", err->message));
      break;
  }
}

/* gstclfftdevice.c: one shared ClfContext per device spec for all elements. */
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
    GST_ELEMENT_ERROR (element, RESOURCE, NOT_FOUND,
        ("No usable OpenCL device (%s): %s", clf_status_name (err.code),
            err.message),
        ("device spec '%s'; install an OpenCL driver (e.g. pocl-opencl-icd) "
            "or set the device property / CLFFT_DEVICE to a listed device",
            key));
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

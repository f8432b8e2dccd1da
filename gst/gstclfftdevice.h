/* gstclfftdevice.h: how clfft elements get their OpenCL context. */
#ifndef __GST_CLFFT_DEVICE_H__
#define __GST_CLFFT_DEVICE_H__

#include <gst/gst.h>
#include "clf.h"

G_BEGIN_DECLS

/* The GstContext type the clfft elements share their OpenCL context
 * through. Its structure holds:
 *   "device"      (string) the device spec the context was made for ("" =
 *                 the default choice); an application may set only this
 *                 to choose the device of every clfft element;
 *   "clf-context" (boxed ClfContext, optional) the context itself;
 *   "device-name" (string, informative) clf_context_describe().
 * An element whose device property is unset takes any such context; one
 * whose device property is set takes only a context made for that same
 * spec. */
#define GST_CLFFT_CONTEXT_TYPE "gst.clfft.context"

/* Boxed GType of ClfContext (type name "ClfContext", registered when the
 * plugin loads, so applications can find it with g_type_from_name). */
#define GST_CLFFT_TYPE_CLF_CONTEXT (gst_clfft_clf_context_get_type ())
GType gst_clfft_clf_context_get_type (void);

/* Registers the boxed type and the clfftcore debug category; called once
 * at plugin load. */
void gst_clfft_device_init (void);

/* For an element's start: the OpenCL context it should run on, found the
 * way GStreamer's GL and CUDA elements find theirs: a clfft GstContext
 * already set on the element (by the application or a bin), else one a
 * neighbouring element answers a context query with (downstream first,
 * then upstream), else one set in reply to a need-context message; else
 * the process-wide context for device_spec (gst_clfft_device_acquire),
 * announced with a have-context message. On failure posts an error and
 * returns NULL. Release with clf_context_unref. */
ClfContext *gst_clfft_device_ensure_context (GstElement * element,
    const gchar * device_spec);

/* For an element's query vfunc: answers a GST_QUERY_CONTEXT of
 * GST_CLFFT_CONTEXT_TYPE with the context the element last ensured.
 * Returns FALSE for any other query (or before the first start). */
gboolean gst_clfft_device_handle_context_query (GstElement * element,
    GstQuery * query);

/* Returns a reference to the process-wide context for device_spec (NULL or
 * "" = default choice, see clf_context_new), creating it on first use so
 * kernels build once per process. On failure posts a GST_ELEMENT_ERROR on
 * element naming the cause and returns NULL. Release with clf_context_unref. */
ClfContext *gst_clfft_device_acquire (GstElement * element,
    const gchar * device_spec);

/* Posts a GST_ELEMENT_ERROR for a core error, with the device in the text.
 * what: what the element was doing ("planning a 1024-point FFT"). */
void gst_clfft_device_post_error (GstElement * element, ClfContext * ctx,
    const ClfError * err, const gchar * what);

G_END_DECLS

#endif

/* gstclfftdevice.h: how clfft elements get their OpenCL context. */
#ifndef __GST_CLFFT_DEVICE_H__
#define __GST_CLFFT_DEVICE_H__

#include <gst/gst.h>
#include "clf.h"

G_BEGIN_DECLS

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

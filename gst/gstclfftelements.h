/* gstclfftelements.h: element registration shared by the clfft plugin. */
#ifndef __GST_CLFFT_ELEMENTS_H__
#define __GST_CLFFT_ELEMENTS_H__

#include <gst/gst.h>

G_BEGIN_DECLS

GST_ELEMENT_REGISTER_DECLARE (clfftspectrum);
GST_ELEMENT_REGISTER_DECLARE (clfftconvolve);

G_END_DECLS

#endif

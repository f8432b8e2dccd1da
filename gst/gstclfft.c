/* gstclfft.c: registers the clfft plugin and its elements. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclfftelements.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  gboolean ret = FALSE;

  ret |= GST_ELEMENT_REGISTER (clfftspectrum, plugin);
  ret |= GST_ELEMENT_REGISTER (clfftconvolve, plugin);

  return ret;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, clfft,
    "FFT spectrum analysis and convolution on OpenCL devices",
    plugin_init, VERSION, GST_LICENSE, GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)

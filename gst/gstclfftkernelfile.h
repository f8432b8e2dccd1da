/* gstclfftkernelfile.h: reads convolution kernels from PNG and PGM images. */
#ifndef __GST_CLFFT_KERNEL_FILE_H__
#define __GST_CLFFT_KERNEL_FILE_H__

#include <glib.h>

G_BEGIN_DECLS

/* The largest kernel image accepted, in taps (a 4096 x 4096 image). */
#define GST_CLFFT_KERNEL_FILE_MAX_TAPS (4096 * 4096)

/* Reads a PNG (any bit depth; colour becomes grey as 0.299 R + 0.587 G +
 * 0.114 B of the stored values, unrounded; alpha is ignored) or a
 * PGM (P5 binary or P2 text, maxval up to 65535) image. Returns width *
 * height floats, row-major, each sample divided by the format's maximum
 * (255, 65535 or the PGM maxval) so they lie in [0, 1]; g_free it. On
 * failure returns NULL and sets error in GST_RESOURCE_ERROR (NOT_FOUND,
 * OPEN_READ, or READ for content that is not a readable image) with the
 * file name in the message. */
gfloat *gst_clfft_load_kernel_image (const gchar * path, guint * width,
    guint * height, GError ** error);

G_END_DECLS

#endif

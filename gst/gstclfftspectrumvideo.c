/* gstclfftspectrumvideo.c: the 2D log-magnitude spectrum of video frames for clfftspectrum. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include "gstclfftspectrumvideo.h"
#include "gstclfftdevice.h"

GST_DEBUG_CATEGORY_EXTERN (gst_clfft_spectrum_debug);
#define GST_CAT_DEFAULT gst_clfft_spectrum_debug

/* How the luma kernel reads a pixel (spectrum_video_luma's mode). */
enum
{
  LUMA_8BIT = 0,                /* one 8-bit component (GRAY8, Y of I420/NV12) */
  LUMA_16BIT_LE = 1,            /* one 16-bit little-endian component */
  LUMA_RGB = 2                  /* 8-bit R, G, B weighted to luminance */
};

struct _GstClfftSpectrumVideo
{
  ClfContext *ctx;
  guint width, height;

  /* input */
  guint mode;
  guint pstride;                /* bytes per pixel in plane 0 */
  guint offset[3];              /* byte of R,G,B (or of the luma) in a pixel */
  gfloat coeff[3];
  gsize in_row_bytes;

  /* output */
  guint out_bpp;                /* 1 (GRAY8) or 2 (GRAY16_LE) */

  /* half = R2C half spectrum ((width/2+1) x height), else full C2C */
  gboolean half;
  ClfPlan *plan;
  gsize spec_count;             /* complex values in spec */

  cl_mem raw, real, spec, peak, out;
  cl_kernel k_luma, k_peak, k_map, k_radial_bands, k_radial_rows;
  cl_kernel k_radial_db;
  /* CPU devices, half spectrum: kernels shaped for PoCL's vectoriser
   * (kernels/spectrum.cl): luma of 4-byte pixels as words, the peak in
   * chunks of a row, the map in two halves whose bins run in a row; else
   * NULL */
  gboolean cpu_forms;
  cl_kernel k_luma_words, k_map_left, k_map_right;
  /* work-items in a group of the general spectrum_video_peak */
  size_t peak_group;

  /* radial average, sized for radial_bands */
  guint radial_bands;
  cl_mem radial_sum, radial_count, radial_db;
};

void
gst_clfft_spectrum_video_free (GstClfftSpectrumVideo * v)
{
  cl_mem *mems[] = { &v->raw, &v->real, &v->spec, &v->peak, &v->out,
    &v->radial_sum, &v->radial_count, &v->radial_db
  };
  cl_kernel *kernels[] = { &v->k_luma, &v->k_peak, &v->k_map,
    &v->k_radial_bands, &v->k_radial_rows, &v->k_radial_db, &v->k_luma_words,
    &v->k_map_left, &v->k_map_right
  };
  guint i;

  if (!v)
    return;

  /* nothing may still be queued on these objects */
  clFinish (clf_context_get_queue (v->ctx));
  for (i = 0; i < G_N_ELEMENTS (mems); i++)
    if (*mems[i])
      clReleaseMemObject (*mems[i]);
  for (i = 0; i < G_N_ELEMENTS (kernels); i++)
    if (*kernels[i])
      clReleaseKernel (*kernels[i]);
  if (v->plan)
    clf_plan_free (v->plan);
  clf_context_unref (v->ctx);
  g_free (v);
}

/* Works out how the luma kernel reads in's plane 0. */
static void
setup_input (GstClfftSpectrumVideo * v, const GstVideoInfo * in)
{
  const GstVideoFormatInfo *finfo = in->finfo;

  if (GST_VIDEO_FORMAT_INFO_IS_RGB (finfo)) {
    gdouble kr = 0.2126, kb = 0.0722;
    guint c;

    /* caps of RGB formats carry the RGB matrix, which has no luma weights:
     * use BT.709 (the sRGB primaries' luminance) unless told otherwise */
    if (!gst_video_color_matrix_get_Kr_Kb (in->colorimetry.matrix, &kr, &kb)) {
      kr = 0.2126;
      kb = 0.0722;
    }
    v->mode = LUMA_RGB;
    for (c = 0; c < 3; c++)
      v->offset[c] = GST_VIDEO_FORMAT_INFO_POFFSET (finfo, c);
    v->coeff[0] = kr;
    v->coeff[1] = 1.0 - kr - kb;
    v->coeff[2] = kb;
    v->pstride = GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, 0);
  } else {
    /* GRAY or the Y plane of YUV: component 0 */
    v->mode = GST_VIDEO_FORMAT_INFO_DEPTH (finfo, 0) > 8 ?
        LUMA_16BIT_LE : LUMA_8BIT;
    v->offset[0] = GST_VIDEO_FORMAT_INFO_POFFSET (finfo, 0);
    v->offset[1] = v->offset[2] = 0;
    v->coeff[0] = 1.0f;
    v->coeff[1] = v->coeff[2] = 0.0f;
    v->pstride = GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, 0);
  }
  v->in_row_bytes = (gsize) v->width * v->pstride;
}

static ClfPlan *
make_plan (GstClfftSpectrumVideo * v, ClfError * err)
{
  ClfPlanDesc d;
  ClfPlan *plan;

  /* R2C halves the work; if the core cannot do this size as R2C, a C2C
   * transform of the same real data gives the full spectrum instead */
  clf_plan_desc_init (&d, CLF_R2C, CLF_FORWARD, v->width, v->height, 1);
  plan = clf_plan_new (v->ctx, &d, err);
  if (plan) {
    v->half = TRUE;
    v->spec_count = (gsize) (v->width / 2 + 1) * v->height;
    return plan;
  }
  if (err->code != CLF_ERROR_UNSUPPORTED && err->code != CLF_ERROR_INVALID_ARG)
    return NULL;

  GST_INFO ("no R2C plan for %ux%u (%s), using C2C", v->width, v->height,
      err->message);
  memset (err, 0, sizeof (*err));
  clf_plan_desc_init (&d, CLF_C2C, CLF_FORWARD, v->width, v->height, 1);
  plan = clf_plan_new (v->ctx, &d, err);
  v->half = FALSE;
  v->spec_count = (gsize) v->width * v->height;
  return plan;
}

GstClfftSpectrumVideo *
gst_clfft_spectrum_video_new (GstElement * element, ClfContext * ctx,
    const GstVideoInfo * in, const GstVideoInfo * out)
{
  GstClfftSpectrumVideo *v = g_new0 (GstClfftSpectrumVideo, 1);
  ClfError err = { 0, };
  const gchar *what = "planning the 2D FFT";
  gsize npix;

  v->ctx = clf_context_ref (ctx);
  v->width = GST_VIDEO_INFO_WIDTH (in);
  v->height = GST_VIDEO_INFO_HEIGHT (in);
  npix = (gsize) v->width * v->height;
  setup_input (v, in);
  v->out_bpp = GST_VIDEO_INFO_FORMAT (out) == GST_VIDEO_FORMAT_GRAY16_LE ?
      2 : 1;

  v->plan = make_plan (v, &err);
  if (!v->plan)
    goto error;

  what = "allocating device buffers for the 2D spectrum";
  if (!(v->raw = clf_context_alloc (ctx, CL_MEM_READ_ONLY,
              v->in_row_bytes * v->height, &err)))
    goto error;
  if (!(v->real = clf_context_alloc (ctx, CL_MEM_READ_WRITE,
              MAX (clf_plan_input_size (v->plan),
                  npix * (v->half ? 1 : 2) * sizeof (gfloat)), &err)))
    goto error;
  if (!(v->spec = clf_context_alloc (ctx, CL_MEM_READ_WRITE,
              MAX (clf_plan_output_size (v->plan),
                  v->spec_count * 2 * sizeof (gfloat)), &err)))
    goto error;
  if (!(v->peak = clf_context_alloc (ctx, CL_MEM_READ_WRITE,
              sizeof (cl_uint), &err)))
    goto error;
  if (!(v->out = clf_context_alloc (ctx, CL_MEM_WRITE_ONLY,
              npix * v->out_bpp, &err)))
    goto error;

  what = "building the spectrum kernels";
  v->cpu_forms = v->half && clf_context_is_cpu (ctx);
  if (!(v->k_luma = clf_context_create_kernel (ctx, "spectrum",
              "spectrum_video_luma", &err)) ||
      !(v->k_peak = clf_context_create_kernel (ctx, "spectrum",
              v->cpu_forms ? "spectrum_video_peak_rows" :
              "spectrum_video_peak", &err)) ||
      !(v->k_map = clf_context_create_kernel (ctx, "spectrum",
              "spectrum_video_map", &err)) ||
      !(v->k_radial_bands = clf_context_create_kernel (ctx, "spectrum",
              "spectrum_video_radial_bands", &err)) ||
      !(v->k_radial_rows = clf_context_create_kernel (ctx, "spectrum",
              "spectrum_video_radial_rows", &err)) ||
      !(v->k_radial_db = clf_context_create_kernel (ctx, "spectrum",
              "spectrum_video_radial_db", &err)))
    goto error;
  if (v->cpu_forms &&
      (!(v->k_luma_words = clf_context_create_kernel (ctx, "spectrum",
                  "spectrum_video_luma_words", &err)) ||
          !(v->k_map_left = clf_context_create_kernel (ctx, "spectrum",
                  "spectrum_video_map_left", &err)) ||
          !(v->k_map_right = clf_context_create_kernel (ctx, "spectrum",
                  "spectrum_video_map_right", &err))))
    goto error;
  if (!v->cpu_forms) {
    /* the largest power of two up to 256 the device runs it in */
    size_t most = 1;
    cl_int status = clGetKernelWorkGroupInfo (v->k_peak,
        clf_context_get_device (ctx), CL_KERNEL_WORK_GROUP_SIZE,
        sizeof (most), &most, NULL);

    if (status != CL_SUCCESS) {
      clf_set_cl_error (&err, status, "clGetKernelWorkGroupInfo (peak)");
      goto error;
    }
    for (v->peak_group = 1; v->peak_group * 2 <= MIN (most, 256);)
      v->peak_group *= 2;
  }

  GST_INFO_OBJECT (element, "video spectrum %ux%u %s -> %s: %s", v->width,
      v->height, GST_VIDEO_INFO_NAME (in), GST_VIDEO_INFO_NAME (out),
      clf_plan_describe (v->plan));
  return v;

error:
  gst_clfft_device_post_error (element, ctx, &err, what);
  gst_clfft_spectrum_video_free (v);
  return NULL;
}

static gboolean
ensure_radial (GstClfftSpectrumVideo * v, guint bands, ClfError * err)
{
  if (v->radial_bands == bands)
    return TRUE;

  if (v->radial_sum)
    clReleaseMemObject (v->radial_sum);
  if (v->radial_count)
    clReleaseMemObject (v->radial_count);
  if (v->radial_db)
    clReleaseMemObject (v->radial_db);
  v->radial_sum = v->radial_count = v->radial_db = NULL;
  v->radial_bands = 0;

  if (!(v->radial_sum = clf_context_alloc (v->ctx, CL_MEM_READ_WRITE,
              (gsize) bands * sizeof (cl_float), err)) ||
      !(v->radial_count = clf_context_alloc (v->ctx, CL_MEM_READ_WRITE,
              (gsize) bands * sizeof (cl_uint), err)) ||
      !(v->radial_db = clf_context_alloc (v->ctx, CL_MEM_WRITE_ONLY,
              (gsize) bands * sizeof (cl_float), err)))
    return FALSE;
  v->radial_bands = bands;
  return TRUE;
}

#define SET_ARG(k, i, val) \
  (status |= clSetKernelArg ((k), (i), sizeof (val), &(val)))

/* A device plane of rows rows of row_bytes fits its buffer and the 32-bit
 * offsets the kernels take. */
static gboolean
check_device_plane (const GstClfftSpectrumVideoPlane * plane,
    gsize row_bytes, guint rows, const gchar * what, ClfError * err)
{
  gsize size = 0, end = plane->offset + (rows - 1) * plane->stride + row_bytes;
  cl_int status;

  status = clGetMemObjectInfo (plane->mem, CL_MEM_SIZE, sizeof (size), &size,
      NULL);
  if (status != CL_SUCCESS) {
    clf_set_cl_error (err, status, "clGetMemObjectInfo (frame)");
    return FALSE;
  }
  if (plane->stride < row_bytes || end > size || end > G_MAXUINT32) {
    err->code = CLF_ERROR_INVALID_ARG;
    g_snprintf (err->message, sizeof (err->message), "the %s frame (offset %"
        G_GSIZE_FORMAT ", stride %" G_GSIZE_FORMAT ") does not hold %u rows "
        "of %" G_GSIZE_FORMAT " bytes inside its %" G_GSIZE_FORMAT
        "-byte device buffer", what, plane->offset, plane->stride, rows,
        row_bytes, size);
    return FALSE;
  }
  return TRUE;
}

gboolean
gst_clfft_spectrum_video_process (GstClfftSpectrumVideo * v,
    GstElement * element, const GstClfftSpectrumVideoPlane * in,
    const GstClfftSpectrumVideoPlane * out, gint threshold, guint bands,
    gfloat * radial_db)
{
  cl_command_queue q = clf_context_get_queue (v->ctx);
  ClfError err = { 0, };
  const gchar *what = "computing the 2D spectrum";
  cl_int status = CL_SUCCESS;
  cl_uint width = v->width, height = v->height, half = v->half;
  cl_uint is_complex = !v->half, mode = v->mode, pstride = v->pstride;
  cl_uint out_bpp = v->out_bpp;
  cl_uint nbands = bands, spec_count = v->spec_count;
  cl_uint in_stride, in_plane, in_off[3], out_offset, out_stride;
  cl_mem src, dst;
  cl_float inv_n2, thr = threshold;
  const cl_uint zero = 0;
  gsize out_row_bytes = (gsize) v->out_bpp * width;
  size_t gs2[2] = { width, height };
  cl_kernel luma = v->k_luma;
  size_t gs1;
  gdouble n = (gdouble) width * height;
  guint c;

  /* power normalised as the audio mode's: a full-scale DC frame is 0 dB */
  inv_n2 = 1.0 / (n * n);

  /* a frame already on the device is read where it is; a host frame is
   * uploaded into v->raw */
  if (in->mem) {
    what = "reading a frame on the device";
    if (!check_device_plane (in, v->in_row_bytes, height, "input", &err))
      goto error;
    src = in->mem;
    in_stride = in->stride;
    in_plane = in->offset;
  } else {
    what = "uploading a frame";
    if (clf_context_upload (v->ctx, v->raw, 0, v->in_row_bytes, in->data,
            in->stride, v->in_row_bytes, height, FALSE, NULL, &err) != CLF_OK)
      goto error;
    src = v->raw;
    in_stride = v->in_row_bytes;
    in_plane = 0;
  }
  for (c = 0; c < 3; c++)
    in_off[c] = in_plane + v->offset[c];
  /* likewise the spectrum goes straight into a device output frame */
  if (out->mem) {
    what = "writing a frame on the device";
    if (!check_device_plane (out, out_row_bytes, height, "output", &err))
      goto error;
    dst = out->mem;
    out_offset = out->offset;
    out_stride = out->stride;
  } else {
    dst = v->out;
    out_offset = 0;
    out_stride = out_row_bytes;
  }
  what = "computing the 2D spectrum";

  if (v->k_luma_words && v->pstride == 4 && in_stride % 4 == 0 &&
      in_plane % 4 == 0) {
    /* pixels of four bytes in rows that start at multiples of 4 bytes,
     * read as words, with the components' offsets in the pixel */
    luma = v->k_luma_words;
    SET_ARG (luma, 0, src);
    SET_ARG (luma, 1, in_plane);
    SET_ARG (luma, 2, in_stride);
    SET_ARG (luma, 3, mode);
    SET_ARG (luma, 4, v->offset[0]);
    SET_ARG (luma, 5, v->offset[1]);
    SET_ARG (luma, 6, v->offset[2]);
    SET_ARG (luma, 7, v->coeff[0]);
    SET_ARG (luma, 8, v->coeff[1]);
    SET_ARG (luma, 9, v->coeff[2]);
    SET_ARG (luma, 10, width);
    SET_ARG (luma, 11, v->real);
  } else {
    SET_ARG (luma, 0, src);
    SET_ARG (luma, 1, in_stride);
    SET_ARG (luma, 2, mode);
    SET_ARG (luma, 3, pstride);
    SET_ARG (luma, 4, in_off[0]);
    SET_ARG (luma, 5, in_off[1]);
    SET_ARG (luma, 6, in_off[2]);
    SET_ARG (luma, 7, v->coeff[0]);
    SET_ARG (luma, 8, v->coeff[1]);
    SET_ARG (luma, 9, v->coeff[2]);
    SET_ARG (luma, 10, width);
    SET_ARG (luma, 11, height);
    SET_ARG (luma, 12, v->real);
    SET_ARG (luma, 13, is_complex);
  }
  if (status != CL_SUCCESS) {
    clf_set_cl_error (&err, status, "clSetKernelArg (spectrum_video_luma)");
    goto error;
  }
  status = clEnqueueNDRangeKernel (q, luma, 2, NULL, gs2, NULL, 0, NULL, NULL);
  if (status != CL_SUCCESS) {
    clf_set_cl_error (&err, status, "clEnqueueNDRangeKernel (luma)");
    goto error;
  }

  if (clf_plan_enqueue (v->plan, v->real, v->spec, &err) != CLF_OK)
    goto error;

  /* the peak is the largest |X|^2, kept as the bits of a non-negative
   * float so atomic_max on uint orders it */
  status = clEnqueueFillBuffer (q, v->peak, &zero, sizeof (zero), 0,
      sizeof (zero), 0, NULL, NULL);
  SET_ARG (v->k_peak, 0, v->spec);
  SET_ARG (v->k_peak, 1, spec_count);
  if (v->cpu_forms) {
    /* in a row: chunks of at least 4096 bins, a few per core */
    cl_uint chunk = (cl_uint) MAX ((v->spec_count + 63) / 64, 4096);

    gs1 = (v->spec_count + chunk - 1) / chunk;
    SET_ARG (v->k_peak, 2, chunk);
    SET_ARG (v->k_peak, 3, v->peak);
  } else {
    /* groups of peak_group, up to 512 of them, each strides */
    gs1 = MIN ((v->spec_count + v->peak_group - 1) / v->peak_group, 512) *
        v->peak_group;
    SET_ARG (v->k_peak, 2, v->peak);
  }
  if (status != CL_SUCCESS) {
    clf_set_cl_error (&err, status, "setting up spectrum_video_peak");
    goto error;
  }
  status = clEnqueueNDRangeKernel (q, v->k_peak, 1, NULL, &gs1,
      v->cpu_forms ? NULL : &v->peak_group, 0, NULL, NULL);
  if (status != CL_SUCCESS) {
    clf_set_cl_error (&err, status, "clEnqueueNDRangeKernel (peak)");
    goto error;
  }

  {
    /* the whole frame, or its left and right halves */
    cl_kernel maps[2] = { v->k_map, NULL };
    size_t from[2][2] = { {0, 0}, {width / 2, 0} };
    size_t size[2][2] = { {width, height}, {width - width / 2, height} };
    guint i;

    /* (16-bit pixels as words: at even offsets) */
    if (v->k_map_left && (out_bpp == 1 || (out_offset | out_stride) % 2 == 0)) {
      maps[0] = v->k_map_left;
      maps[1] = v->k_map_right;
      size[0][0] = width / 2;
    }
    for (i = 0; i < 2 && maps[i]; i++) {
      SET_ARG (maps[i], 0, v->spec);
      SET_ARG (maps[i], 1, width);
      SET_ARG (maps[i], 2, height);
      SET_ARG (maps[i], 3, half);
      SET_ARG (maps[i], 4, v->peak);
      SET_ARG (maps[i], 5, inv_n2);
      SET_ARG (maps[i], 6, thr);
      SET_ARG (maps[i], 7, dst);
      SET_ARG (maps[i], 8, out_bpp);
      SET_ARG (maps[i], 9, out_offset);
      SET_ARG (maps[i], 10, out_stride);
      if (status != CL_SUCCESS) {
        clf_set_cl_error (&err, status, "clSetKernelArg (spectrum_video_map)");
        goto error;
      }
      /* exactly a work-item per pixel: the kernels check no bounds (a
       * frame one pixel wide has no left half) */
      if (size[i][0] == 0)
        continue;
      status = clEnqueueNDRangeKernel (q, maps[i], 2, from[i], size[i], NULL,
          0, NULL, NULL);
      if (status != CL_SUCCESS) {
        clf_set_cl_error (&err, status, "clEnqueueNDRangeKernel (map)");
        goto error;
      }
    }
  }

  if (bands > 0) {
    /* up to about twice as many bands as columns, a work-item per band and
     * slice of the rows, enough of them to fill the device (a CPU device
     * takes each as a work-group of its own: PoCL would otherwise run few
     * bands' groups on one core); beyond, whose work grows with bands
     * times rows, a work-item per pair of rows */
    const gboolean by_band = bands <= 2 * (gsize) width;
    const gboolean cpu = clf_context_is_cpu (v->ctx);
    const guint pairs = height / 2 + 1;
    const guint slices = by_band ?
        CLAMP ((cpu ? 64 : 16384) / bands, 1, pairs) : pairs;
    cl_kernel k_radial = by_band ? v->k_radial_bands : v->k_radial_rows;
    size_t radial_size[2] = { by_band ? bands : slices, slices };
    size_t radial_one[2] = { 1, 1 };

    what = "computing the radial power spectrum";
    if (!ensure_radial (v, bands, &err))
      goto error;
    status = clEnqueueFillBuffer (q, v->radial_sum, &zero, sizeof (zero), 0,
        (gsize) bands * sizeof (cl_float), 0, NULL, NULL);
    status |= clEnqueueFillBuffer (q, v->radial_count, &zero, sizeof (zero),
        0, (gsize) bands * sizeof (cl_uint), 0, NULL, NULL);
    SET_ARG (k_radial, 0, v->spec);
    SET_ARG (k_radial, 1, width);
    SET_ARG (k_radial, 2, height);
    SET_ARG (k_radial, 3, half);
    SET_ARG (k_radial, 4, inv_n2);
    SET_ARG (k_radial, 5, nbands);
    SET_ARG (k_radial, 6, slices);
    SET_ARG (k_radial, 7, v->radial_sum);
    SET_ARG (k_radial, 8, v->radial_count);
    SET_ARG (v->k_radial_db, 0, v->radial_sum);
    SET_ARG (v->k_radial_db, 1, v->radial_count);
    SET_ARG (v->k_radial_db, 2, nbands);
    SET_ARG (v->k_radial_db, 3, thr);
    SET_ARG (v->k_radial_db, 4, v->radial_db);
    if (status != CL_SUCCESS) {
      clf_set_cl_error (&err, status, "setting up spectrum_video_radial");
      goto error;
    }
    status = clEnqueueNDRangeKernel (q, k_radial, by_band ? 2 : 1, NULL,
        radial_size, cpu && by_band ? radial_one : NULL, 0, NULL, NULL);
    gs1 = bands;
    status |= clEnqueueNDRangeKernel (q, v->k_radial_db, 1, NULL, &gs1, NULL,
        0, NULL, NULL);
    status |= clEnqueueReadBuffer (q, v->radial_db, CL_FALSE, 0,
        (gsize) bands * sizeof (cl_float), radial_db, 0, NULL, NULL);
    if (status != CL_SUCCESS) {
      clf_set_cl_error (&err, status, "enqueueing the radial average");
      goto error;
    }
  }

  if (out->mem) {
    /* the radial read and the output frame are complete on return, so the
     * buffer can go to any thread */
    what = "waiting for the 2D spectrum";
    if (clf_context_wait (v->ctx, &err) != CLF_OK)
      goto error;
  } else {
    what = "reading back the 2D spectrum";
    if (clf_context_download (v->ctx, v->out, 0, out_row_bytes, out->data,
            out->stride, out_row_bytes, height, TRUE, NULL, &err) != CLF_OK)
      goto error;
  }
  return TRUE;

error:
  /* the frame memory must not be touched by the device after we return */
  clFinish (q);
  gst_clfft_device_post_error (element, v->ctx, &err, what);
  return FALSE;
}

/* gstclfftconvolve.c: the clfftconvolve element, frequency-domain convolution of video frames and audio. */
/**
 * SECTION:element-clfftconvolve
 * @title: clfftconvolve
 *
 * Convolves video frames with a blur kernel of any radius, or audio with a
 * long impulse response, through FFTs on an OpenCL device. The cost does
 * not grow with the number of kernel taps: a gaussian of radius 200 costs
 * about what radius 5 costs on the same frame, plus the larger padding.
 *
 * Video: every channel (alpha too) is convolved with the kernel; chroma
 * planes of I420, YV12 and NV12 use the radius divided by their
 * subsampling (2). Kernels, sampled on the integer grid (dx, dy) and
 * normalised to unit sum:
 * - gaussian: exp(-(dx^2+dy^2) / (2 sigma^2)), sigma = radius / 3, for
 *   |dx|, |dy| <= ceil(radius);
 * - box: 1 for |dx|, |dy| <= radius;
 * - disk: 1 for dx^2 + dy^2 <= radius^2.
 * A custom kernel (#GstClfftConvolve:kernel or
 * #GstClfftConvolve:kernel-location) replaces the shape; tap (i, j) of a
 * W x H kernel sits at offset (i - W/2, j - H/2), it applies unscaled to
 * every plane, and it is a true convolution (a single bright pixel
 * reproduces the kernel, not its mirror image). Radius 0 passes frames
 * through untouched. The frame is padded by the kernel extent for the
 * edge mode, so a big radius grows the FFT size and the device memory
 * (about 4000 x 3100 floats per channel for radius 1000 on 1080p); frames
 * that do not fit fail with an error naming the sizes. Frames from or to
 * another clfft element stay on the device (caps feature
 * memory:CLFFTBuffer): chained elements upload a frame once and download
 * it once; other peers get system memory.
 *
 * Audio: uniformly partitioned overlap-save convolution with
 * #GstClfftConvolve:impulse-response or #GstClfftConvolve:ir-location; the
 * latency is one block, and the tail of the response is played out at EOS.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=1 ! clfftconvolve radius=40 ! videoconvert ! pngenc ! filesink location=blur.png
 * gst-launch-1.0 videotestsrc num-buffers=1 ! clfftconvolve radius=4 ! clfftconvolve radius=40 kernel-shape=disk ! videoconvert ! pngenc ! filesink location=blur-twice.png
 * gst-launch-1.0 filesrc location=in.wav ! wavparse ! audioconvert ! clfftconvolve ir-location=hall.wav ! audioconvert ! wavenc ! filesink location=out.wav
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "gstclfftconvolve.h"
#include "gstclfftdevice.h"
#include "gstclfftelements.h"
#include "gstclfftkernelfile.h"
#include "gstclfftmemory.h"
#include "gstclfftpinned.h"

GST_DEBUG_CATEGORY_STATIC (gst_clfft_convolve_debug);
#define GST_CAT_DEFAULT gst_clfft_convolve_debug

#define DEFAULT_KERNEL_SHAPE GST_CLFFT_CONVOLVE_KERNEL_GAUSSIAN
#define DEFAULT_RADIUS 5.0f
#define MAX_RADIUS 100000.0f
#define DEFAULT_EDGE_MODE GST_CLFFT_CONVOLVE_EDGE_CLAMP
#define DEFAULT_KERNEL_WIDTH 0
#define MAX_KERNEL_WIDTH 65536
#define DEFAULT_NORMALIZE TRUE
#define DEFAULT_BLOCK_SIZE 0
#define MAX_BLOCK_SIZE (1 << 20)
#define DEFAULT_FRAME_OVERLAP FALSE

enum
{
  PROP_0,
  PROP_KERNEL_SHAPE,
  PROP_RADIUS,
  PROP_EDGE_MODE,
  PROP_KERNEL,
  PROP_KERNEL_WIDTH,
  PROP_KERNEL_LOCATION,
  PROP_NORMALIZE,
  PROP_IMPULSE_RESPONSE,
  PROP_IR_LOCATION,
  PROP_BLOCK_SIZE,
  PROP_DEVICE,
  PROP_DEVICE_NAME,
  PROP_FRAME_OVERLAP
};

#define VIDEO_FORMATS "{ RGBA, BGRA, ARGB, ABGR, RGBx, BGRx, xRGB, xBGR, " \
    "RGB, BGR, GRAY8, GRAY16_LE, I420, YV12, NV12, Y444 }"
/* frames on the device first, so two clfft elements in a row keep them
 * there; system memory otherwise */
#define VIDEO_CAPS GST_VIDEO_CAPS_MAKE_WITH_FEATURES \
    (GST_CAPS_FEATURE_MEMORY_CLFFT_BUFFER, VIDEO_FORMATS) "; " \
    GST_VIDEO_CAPS_MAKE (VIDEO_FORMATS)
#define AUDIO_CAPS "audio/x-raw, format = (string) { " GST_AUDIO_NE (F32) \
    ", " GST_AUDIO_NE (F64) ", " GST_AUDIO_NE (S16) ", " GST_AUDIO_NE (S32) \
    " }, layout = (string) interleaved, rate = (int) [ 1, MAX ], " \
    "channels = (int) [ 1, MAX ]"

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (VIDEO_CAPS "; " AUDIO_CAPS));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (VIDEO_CAPS "; " AUDIO_CAPS));

#define GST_TYPE_CLFFT_CONVOLVE_KERNEL_SHAPE \
    (gst_clfft_convolve_kernel_shape_get_type ())
static GType
gst_clfft_convolve_kernel_shape_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CLFFT_CONVOLVE_KERNEL_GAUSSIAN,
        "Gaussian, sigma = radius / 3, cut at ceil(radius)", "gaussian"},
    {GST_CLFFT_CONVOLVE_KERNEL_BOX, "Square of side 2 floor(radius) + 1",
        "box"},
    {GST_CLFFT_CONVOLVE_KERNEL_DISK, "Disk dx^2 + dy^2 <= radius^2", "disk"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstClfftConvolveKernelShape", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

#define GST_TYPE_CLFFT_CONVOLVE_EDGE_MODE \
    (gst_clfft_convolve_edge_mode_get_type ())
static GType
gst_clfft_convolve_edge_mode_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CLFFT_CONVOLVE_EDGE_CLAMP, "Repeat the edge pixel", "clamp"},
    {GST_CLFFT_CONVOLVE_EDGE_MIRROR,
        "Reflect without repeating the edge pixel (dcb|abcd|cba)", "mirror"},
    {GST_CLFFT_CONVOLVE_EDGE_WRAP, "Repeat the frame periodically", "wrap"},
    {GST_CLFFT_CONVOLVE_EDGE_ZERO, "Zero (code value 0) outside the frame",
        "zero"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstClfftConvolveEdgeMode", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

#define gst_clfft_convolve_parent_class parent_class
G_DEFINE_TYPE (GstClfftConvolve, gst_clfft_convolve, GST_TYPE_BASE_TRANSFORM);
/* the boxed ClfContext type must exist before applications build a clfft
 * GstContext, which may be before any element is created */
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (clfftconvolve, "clfftconvolve",
    GST_RANK_NONE, GST_TYPE_CLFFT_CONVOLVE, gst_clfft_device_init ());

static void gst_clfft_convolve_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_clfft_convolve_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static void gst_clfft_convolve_finalize (GObject * object);
static gboolean gst_clfft_convolve_start (GstBaseTransform * trans);
static gboolean gst_clfft_convolve_stop (GstBaseTransform * trans);
static GstCaps *gst_clfft_convolve_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter);
static gboolean gst_clfft_convolve_set_caps (GstBaseTransform * trans,
    GstCaps * incaps, GstCaps * outcaps);
static gboolean gst_clfft_convolve_sink_event (GstBaseTransform * trans,
    GstEvent * event);
static gboolean gst_clfft_convolve_query (GstBaseTransform * trans,
    GstPadDirection direction, GstQuery * query);
static gboolean gst_clfft_convolve_decide_allocation (GstBaseTransform *
    trans, GstQuery * query);
static gboolean gst_clfft_convolve_propose_allocation (GstBaseTransform *
    trans, GstQuery * decide_query, GstQuery * query);
static void gst_clfft_convolve_before_transform (GstBaseTransform * trans,
    GstBuffer * buffer);
static GstFlowReturn gst_clfft_convolve_generate_output (GstBaseTransform *
    trans, GstBuffer ** outbuf);
static GstFlowReturn gst_clfft_convolve_transform (GstBaseTransform * trans,
    GstBuffer * inbuf, GstBuffer * outbuf);
static GstFlowReturn generate_video_output (GstClfftConvolve * self,
    GstBuffer ** outbuf);
static GstFlowReturn push_queued_frame (GstClfftConvolve * self);
static void drop_queued_frame (GstClfftConvolve * self);

static void
gst_clfft_convolve_class_init (GstClfftConvolveClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  const GParamFlags video_flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
      | GST_PARAM_MUTABLE_PLAYING;
  const GParamFlags ready_flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
      | GST_PARAM_MUTABLE_READY;

  GST_DEBUG_CATEGORY_INIT (gst_clfft_convolve_debug, "clfftconvolve", 0,
      "FFT convolution of video and audio on OpenCL");

  gobject_class->set_property = gst_clfft_convolve_set_property;
  gobject_class->get_property = gst_clfft_convolve_get_property;
  gobject_class->finalize = gst_clfft_convolve_finalize;

  g_object_class_install_property (gobject_class, PROP_KERNEL_SHAPE,
      g_param_spec_enum ("kernel-shape", "Kernel shape",
          "Shape of the video blur kernel (unless a custom kernel is set)",
          GST_TYPE_CLFFT_CONVOLVE_KERNEL_SHAPE, DEFAULT_KERNEL_SHAPE,
          video_flags | GST_PARAM_CONTROLLABLE));
  g_object_class_install_property (gobject_class, PROP_RADIUS,
      g_param_spec_float ("radius", "Radius",
          "Video blur radius in pixels (0 = pass frames through); may exceed "
          "the frame size, at the cost of a larger padded FFT",
          0.0f, MAX_RADIUS, DEFAULT_RADIUS,
          video_flags | GST_PARAM_CONTROLLABLE));
  g_object_class_install_property (gobject_class, PROP_EDGE_MODE,
      g_param_spec_enum ("edge-mode", "Edge mode",
          "How video pixels outside the frame are made up",
          GST_TYPE_CLFFT_CONVOLVE_EDGE_MODE, DEFAULT_EDGE_MODE,
          video_flags | GST_PARAM_CONTROLLABLE));
  g_object_class_install_property (gobject_class, PROP_KERNEL,
      gst_param_spec_array ("kernel", "Kernel",
          "Custom video kernel taps, row-major, e.g. \"<1.0, 2.0, 1.0>\"; "
          "replaces kernel-shape and radius, clears kernel-location",
          g_param_spec_float ("tap", "Tap", "One kernel tap", -G_MAXFLOAT,
              G_MAXFLOAT, 0.0f, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS),
          video_flags));
  g_object_class_install_property (gobject_class, PROP_KERNEL_WIDTH,
      g_param_spec_uint ("kernel-width", "Kernel width",
          "Columns of the custom kernel (0 = square kernel)", 0,
          MAX_KERNEL_WIDTH, DEFAULT_KERNEL_WIDTH, video_flags));
  g_object_class_install_property (gobject_class, PROP_KERNEL_LOCATION,
      g_param_spec_string ("kernel-location", "Kernel location",
          "PNG or PGM image used as custom video kernel (grey value / "
          "maximum); clears kernel", NULL, video_flags));
  g_object_class_install_property (gobject_class, PROP_NORMALIZE,
      g_param_spec_boolean ("normalize", "Normalize",
          "Scale the custom kernel to unit sum (a zero-sum kernel is then an "
          "error)", DEFAULT_NORMALIZE, video_flags | GST_PARAM_CONTROLLABLE));
  g_object_class_install_property (gobject_class, PROP_IMPULSE_RESPONSE,
      gst_param_spec_array ("impulse-response", "Impulse response",
          "Audio FIR taps applied to every channel, e.g. \"<0.5, 0.25>\"; "
          "clears ir-location",
          g_param_spec_double ("tap", "Tap", "One impulse response tap",
              -G_MAXDOUBLE, G_MAXDOUBLE, 0.0,
              G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS), ready_flags));
  g_object_class_install_property (gobject_class, PROP_IR_LOCATION,
      g_param_spec_string ("ir-location", "Impulse response location",
          "Audio file (WAV, FLAC, ...) holding the impulse response, one "
          "channel per audio channel or one for all; clears impulse-response",
          NULL, ready_flags));
  g_object_class_install_property (gobject_class, PROP_BLOCK_SIZE,
      g_param_spec_uint ("block-size", "Block size",
          "Audio samples per partition, which is also the latency (0 = "
          "automatic)", 0, MAX_BLOCK_SIZE, DEFAULT_BLOCK_SIZE, ready_flags));
  g_object_class_install_property (gobject_class, PROP_DEVICE,
      g_param_spec_string ("device", "Device",
          "OpenCL device: NULL = $CLFFT_DEVICE or the first GPU, else "
          "\"gpu\", \"cpu\", \"P:D\" or part of the device name", NULL,
          ready_flags));
  g_object_class_install_property (gobject_class, PROP_DEVICE_NAME,
      g_param_spec_string ("device-name", "Device name",
          "The OpenCL device the element runs on, as \"platform / device "
          "(P:D)\" (NULL until it first starts; then the last one used)",
          NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  g_object_class_install_property (gobject_class, PROP_FRAME_OVERLAP,
      g_param_spec_boolean ("frame-overlap", "Frame overlap",
          "Queue each video frame from system memory before waiting for the "
          "previous one, so that on a GPU its upload and the previous "
          "frame's download run beside the convolution. A frame then goes "
          "out when the next one comes in (or at EOS): one frame of latency",
          DEFAULT_FRAME_OVERLAP, ready_flags));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "FFT convolution (OpenCL)", "Filter/Effect/Video;Filter/Effect/Audio",
      "Blurs video with kernels of any radius and convolves audio with "
      "long impulse responses through FFTs on an OpenCL device",
      "gst-clfft developers");

  trans_class->start = GST_DEBUG_FUNCPTR (gst_clfft_convolve_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_clfft_convolve_stop);
  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_clfft_convolve_transform_caps);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_clfft_convolve_set_caps);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_clfft_convolve_sink_event);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_clfft_convolve_query);
  trans_class->decide_allocation =
      GST_DEBUG_FUNCPTR (gst_clfft_convolve_decide_allocation);
  trans_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_clfft_convolve_propose_allocation);
  trans_class->before_transform =
      GST_DEBUG_FUNCPTR (gst_clfft_convolve_before_transform);
  trans_class->generate_output =
      GST_DEBUG_FUNCPTR (gst_clfft_convolve_generate_output);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_clfft_convolve_transform);

  gst_type_mark_as_plugin_api (GST_TYPE_CLFFT_CONVOLVE_KERNEL_SHAPE, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CLFFT_CONVOLVE_EDGE_MODE, 0);
}

static void
gst_clfft_convolve_init (GstClfftConvolve * self)
{
  self->kernel_shape = DEFAULT_KERNEL_SHAPE;
  self->radius = DEFAULT_RADIUS;
  self->edge_mode = DEFAULT_EDGE_MODE;
  self->kernel = g_array_new (FALSE, FALSE, sizeof (gfloat));
  self->kernel_width = DEFAULT_KERNEL_WIDTH;
  self->normalize = DEFAULT_NORMALIZE;
  self->impulse_response = g_array_new (FALSE, FALSE, sizeof (gdouble));
  self->block_size = DEFAULT_BLOCK_SIZE;
  self->kernel_changed = TRUE;
  self->audio_latency = 0;
  self->frame_overlap = DEFAULT_FRAME_OVERLAP;
  /* the base class would put a downstream peer's caps first, which for a
   * clfft element downstream of a system-memory one is system memory: the
   * order of transform_caps (frames on the device first) is ours */
  gst_base_transform_set_prefer_passthrough (GST_BASE_TRANSFORM (self), FALSE);
}

static void
gst_clfft_convolve_finalize (GObject * object)
{
  GstClfftConvolve *self = GST_CLFFT_CONVOLVE (object);

  g_array_unref (self->kernel);
  g_array_unref (self->impulse_response);
  g_free (self->kernel_location);
  g_free (self->ir_location);
  g_free (self->device);
  g_free (self->device_name);

  G_OBJECT_CLASS (parent_class)->finalize (object);
}

/* ---- properties --------------------------------------------------------- */

/* Radius 0 without a custom kernel is the identity: let the base class
 * push the input buffer itself, unless the two sides negotiated different
 * memories (the frame then still has to move). Call without the object
 * lock. */
static void
update_passthrough (GstClfftConvolve * self)
{
  gboolean passthrough;

  GST_OBJECT_LOCK (self);
  passthrough = !self->is_audio && self->radius == 0.0f &&
      self->kernel->len == 0 && !self->kernel_location &&
      self->in_device_caps == self->out_device_caps;
  GST_OBJECT_UNLOCK (self);
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (self), passthrough);
}

/* Copies a GstValueArray of element_type into array; FALSE if an element
 * is not finite. */
static gboolean
array_from_value (GArray * array, const GValue * value, gboolean is_float)
{
  guint i, n = gst_value_array_get_size (value);

  g_array_set_size (array, 0);
  for (i = 0; i < n; i++) {
    const GValue *v = gst_value_array_get_value (value, i);
    gdouble d = is_float ? g_value_get_float (v) : g_value_get_double (v);

    /* the device computes in float: a response tap beyond its range
     * would be infinite there, as bad as a NaN */
    if (!isfinite (d) || (!is_float && fabs (d) > G_MAXFLOAT))
      return FALSE;
    if (is_float) {
      gfloat f = d;
      g_array_append_val (array, f);
    } else {
      g_array_append_val (array, d);
    }
  }
  return TRUE;
}

static void
array_to_value (GArray * array, GValue * value, gboolean is_float)
{
  GValue v = G_VALUE_INIT;
  guint i;

  g_value_init (&v, is_float ? G_TYPE_FLOAT : G_TYPE_DOUBLE);
  for (i = 0; i < array->len; i++) {
    if (is_float)
      g_value_set_float (&v, g_array_index (array, gfloat, i));
    else
      g_value_set_double (&v, g_array_index (array, gdouble, i));
    gst_value_array_append_value (value, &v);
  }
  g_value_unset (&v);
}

static void
gst_clfft_convolve_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstClfftConvolve *self = GST_CLFFT_CONVOLVE (object);
  const gchar *cleared = NULL;
  gboolean passthrough_may_change = FALSE;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_KERNEL_SHAPE:
      self->kernel_shape = g_value_get_enum (value);
      self->kernel_changed = TRUE;
      break;
    case PROP_RADIUS:{
      gfloat r = g_value_get_float (value);
      /* GObject clamps out-of-range values but lets NaN through */
      if (isnan (r)) {
        GST_OBJECT_UNLOCK (self);
        g_warning ("%s: radius NaN rejected, keeping %g",
            GST_OBJECT_NAME (self), self->radius);
        return;
      }
      self->radius = r;
      self->kernel_changed = TRUE;
      passthrough_may_change = TRUE;
      break;
    }
    case PROP_EDGE_MODE:
      self->edge_mode = g_value_get_enum (value);
      break;
    case PROP_KERNEL:{
      GArray *taps = g_array_new (FALSE, FALSE, sizeof (gfloat));
      if (!array_from_value (taps, value, TRUE)) {
        GST_OBJECT_UNLOCK (self);
        g_array_unref (taps);
        g_warning ("%s: kernel with a NaN or infinite tap rejected",
            GST_OBJECT_NAME (self));
        return;
      }
      g_array_unref (self->kernel);
      self->kernel = taps;
      if (taps->len > 0 && self->kernel_location) {
        g_clear_pointer (&self->kernel_location, g_free);
        cleared = "kernel-location";
      }
      self->kernel_changed = TRUE;
      passthrough_may_change = TRUE;
      break;
    }
    case PROP_KERNEL_WIDTH:
      self->kernel_width = g_value_get_uint (value);
      self->kernel_changed = TRUE;
      break;
    case PROP_KERNEL_LOCATION:
      g_free (self->kernel_location);
      self->kernel_location = g_value_dup_string (value);
      if (self->kernel_location && !self->kernel_location[0])
        g_clear_pointer (&self->kernel_location, g_free);
      if (self->kernel_location && self->kernel->len > 0) {
        /* a new array: the streaming thread may hold a ref to the old one */
        g_array_unref (self->kernel);
        self->kernel = g_array_new (FALSE, FALSE, sizeof (gfloat));
        cleared = "kernel";
      }
      self->kernel_changed = TRUE;
      passthrough_may_change = TRUE;
      break;
    case PROP_NORMALIZE:
      self->normalize = g_value_get_boolean (value);
      self->kernel_changed = TRUE;
      break;
    case PROP_IMPULSE_RESPONSE:{
      GArray *taps = g_array_new (FALSE, FALSE, sizeof (gdouble));
      if (!array_from_value (taps, value, FALSE)) {
        GST_OBJECT_UNLOCK (self);
        g_array_unref (taps);
        g_warning ("%s: impulse response with a NaN, infinite or "
            "beyond-float tap rejected", GST_OBJECT_NAME (self));
        return;
      }
      g_array_unref (self->impulse_response);
      self->impulse_response = taps;
      if (taps->len > 0 && self->ir_location) {
        g_clear_pointer (&self->ir_location, g_free);
        cleared = "ir-location";
      }
      break;
    }
    case PROP_IR_LOCATION:
      g_free (self->ir_location);
      self->ir_location = g_value_dup_string (value);
      if (self->ir_location && !self->ir_location[0])
        g_clear_pointer (&self->ir_location, g_free);
      if (self->ir_location && self->impulse_response->len > 0) {
        g_array_unref (self->impulse_response);
        self->impulse_response = g_array_new (FALSE, FALSE, sizeof (gdouble));
        cleared = "impulse-response";
      }
      break;
    case PROP_BLOCK_SIZE:
      self->block_size = g_value_get_uint (value);
      break;
    case PROP_DEVICE:
      g_free (self->device);
      self->device = g_value_dup_string (value);
      break;
    case PROP_FRAME_OVERLAP:
      self->frame_overlap = g_value_get_boolean (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);

  if (cleared)
    g_object_notify (object, cleared);
  if (passthrough_may_change)
    update_passthrough (self);
}

static void
gst_clfft_convolve_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstClfftConvolve *self = GST_CLFFT_CONVOLVE (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_KERNEL_SHAPE:
      g_value_set_enum (value, self->kernel_shape);
      break;
    case PROP_RADIUS:
      g_value_set_float (value, self->radius);
      break;
    case PROP_EDGE_MODE:
      g_value_set_enum (value, self->edge_mode);
      break;
    case PROP_KERNEL:
      array_to_value (self->kernel, value, TRUE);
      break;
    case PROP_KERNEL_WIDTH:
      g_value_set_uint (value, self->kernel_width);
      break;
    case PROP_KERNEL_LOCATION:
      g_value_set_string (value, self->kernel_location);
      break;
    case PROP_NORMALIZE:
      g_value_set_boolean (value, self->normalize);
      break;
    case PROP_IMPULSE_RESPONSE:
      array_to_value (self->impulse_response, value, FALSE);
      break;
    case PROP_IR_LOCATION:
      g_value_set_string (value, self->ir_location);
      break;
    case PROP_BLOCK_SIZE:
      g_value_set_uint (value, self->block_size);
      break;
    case PROP_DEVICE:
      g_value_set_string (value, self->device);
      break;
    case PROP_DEVICE_NAME:
      g_value_set_string (value, self->device_name);
      break;
    case PROP_FRAME_OVERLAP:
      g_value_set_boolean (value, self->frame_overlap);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* ---- helpers ------------------------------------------------------------ */

static void
post_gerror (GstClfftConvolve * self, const GError * error, const gchar * debug)
{
  gst_element_message_full (GST_ELEMENT (self), GST_MESSAGE_ERROR,
      error->domain, error->code, g_strdup (error->message),
      g_strdup (debug), __FILE__, GST_FUNCTION, __LINE__);
}

static void
set_audio_latency (GstClfftConvolve * self, GstClockTime latency)
{
  gboolean changed;

  GST_OBJECT_LOCK (self);
  changed = self->audio_latency != latency;
  self->audio_latency = latency;
  GST_OBJECT_UNLOCK (self);
  if (changed)
    gst_element_post_message (GST_ELEMENT (self),
        gst_message_new_latency (GST_OBJECT (self)));
}

/* Pushes what the audio convolution still holds (input not yet output and
 * the response's tail). */
static GstFlowReturn
drain_audio (GstClfftConvolve * self)
{
  GError *error = NULL;
  GstBuffer *buf;

  if (!self->audio)
    return GST_FLOW_OK;
  buf = gst_clfft_convolve_audio_drain (self->audio, &error);
  if (error) {
    post_gerror (self, error, "draining the audio convolution");
    g_error_free (error);
    gst_clear_buffer (&buf);
    return GST_FLOW_ERROR;
  }
  if (!buf)
    return GST_FLOW_OK;
  GST_DEBUG_OBJECT (self, "draining %" G_GSIZE_FORMAT " bytes at %"
      GST_TIME_FORMAT, gst_buffer_get_size (buf),
      GST_TIME_ARGS (GST_BUFFER_PTS (buf)));
  return gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (self), buf);
}

static void
free_audio (GstClfftConvolve * self)
{
  g_clear_pointer (&self->audio, gst_clfft_convolve_audio_free);
  set_audio_latency (self, 0);
}

/* ---- start / stop / caps ------------------------------------------------ */

static gboolean
gst_clfft_convolve_start (GstBaseTransform * trans)
{
  GstClfftConvolve *self = GST_CLFFT_CONVOLVE (trans);
  gchar *device;

  GST_OBJECT_LOCK (self);
  device = g_strdup (self->device);
  GST_OBJECT_UNLOCK (self);
  /* shares the context of the pipeline's other clfft elements */
  self->ctx = gst_clfft_device_ensure_context (GST_ELEMENT (self), device);
  g_free (device);
  if (!self->ctx)
    return FALSE;
  GST_OBJECT_LOCK (self);
  g_free (self->device_name);
  self->device_name = g_strdup (clf_context_describe (self->ctx));
  GST_OBJECT_UNLOCK (self);
  g_object_notify (G_OBJECT (self), "device-name");
  return TRUE;
}

static gboolean
gst_clfft_convolve_stop (GstBaseTransform * trans)
{
  GstClfftConvolve *self = GST_CLFFT_CONVOLVE (trans);

  free_audio (self);
  drop_queued_frame (self);
  g_clear_pointer (&self->conv2d, clf_convolve2d_free);
  self->conv2d_ready = FALSE;
  /* frames still held downstream keep their context through their memory */
  gst_clear_object (&self->allocator);
  gst_clear_object (&self->pinned);
  g_clear_pointer (&self->ctx, clf_context_unref);
  return TRUE;
}

static gboolean
setup_audio (GstClfftConvolve * self, const GstAudioInfo * info)
{
  GError *error = NULL;
  gdouble *ir = NULL;
  guint frames = 0, channels = 1, block;
  gchar *location;
  gboolean ok = FALSE;

  GST_OBJECT_LOCK (self);
  location = g_strdup (self->ir_location);
  block = self->block_size;
  if (!location && self->impulse_response->len > 0) {
    frames = self->impulse_response->len;
    ir = g_memdup2 (self->impulse_response->data, frames * sizeof (gdouble));
  }
  GST_OBJECT_UNLOCK (self);

  if (location && !(ir = gst_clfft_load_impulse_response (location, &frames,
              &channels, &error))) {
    post_gerror (self, error, location);
    goto done;
  }
  if (!ir || frames == 0) {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
        ("No impulse response to convolve audio with: set impulse-response "
            "or ir-location"), (NULL));
    goto done;
  }
  self->audio = gst_clfft_convolve_audio_new (self->ctx, info, ir, frames,
      channels, block, &error);
  if (!self->audio) {
    post_gerror (self, error, location);
    goto done;
  }
  self->ainfo = *info;
  set_audio_latency (self, gst_clfft_convolve_audio_get_latency (self->audio));
  ok = TRUE;

done:
  g_clear_error (&error);
  g_free (location);
  g_free (ir);
  return ok;
}

static GstCaps *
gst_clfft_convolve_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  /* same format both sides; video in either memory, the device's first */
  GstCaps *res = gst_clfft_memory_transform_caps (caps);

  if (filter) {
    GstCaps *tmp = gst_caps_intersect_full (filter, res,
        GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (res);
    res = tmp;
  }
  GST_DEBUG_OBJECT (trans, "%s caps %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
      direction == GST_PAD_SINK ? "sink" : "src", caps, res);
  return res;
}

static gboolean
gst_clfft_convolve_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstClfftConvolve *self = GST_CLFFT_CONVOLVE (trans);
  GstStructure *s = gst_caps_get_structure (incaps, 0);
  gboolean is_audio = gst_structure_has_name (s, "audio/x-raw");

  GST_DEBUG_OBJECT (self, "caps %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
      incaps, outcaps);
  GST_OBJECT_LOCK (self);
  self->in_device_caps = gst_clfft_caps_has_memory_feature (incaps);
  self->out_device_caps = gst_clfft_caps_has_memory_feature (outcaps);
  GST_OBJECT_UNLOCK (self);

  /* Whatever came before rings out in its own format first. */
  if (self->audio) {
    GstAudioInfo info;
    if (is_audio && gst_audio_info_from_caps (&info, incaps) &&
        gst_audio_info_is_equal (&info, &self->ainfo))
      return TRUE;
    drain_audio (self);
    free_audio (self);
  }

  if (is_audio) {
    GstAudioInfo info;

    if (!gst_audio_info_from_caps (&info, incaps)) {
      GST_ERROR_OBJECT (self, "invalid audio caps %" GST_PTR_FORMAT, incaps);
      return FALSE;
    }
    GST_OBJECT_LOCK (self);
    self->is_audio = TRUE;
    GST_OBJECT_UNLOCK (self);
    update_passthrough (self);
    /* the video grids can be large: give the device memory back */
    g_clear_pointer (&self->conv2d, clf_convolve2d_free);
    self->conv2d_ready = FALSE;
    return setup_audio (self, &info);
  } else {
    GstVideoInfo info;

    if (!gst_video_info_from_caps (&info, incaps)) {
      GST_ERROR_OBJECT (self, "invalid video caps %" GST_PTR_FORMAT, incaps);
      return FALSE;
    }
    GST_OBJECT_LOCK (self);
    self->is_audio = FALSE;
    GST_OBJECT_UNLOCK (self);
    self->vinfo = info;
    self->conv2d_ready = FALSE;
    if (!self->conv2d) {
      ClfError err = { CLF_OK, "" };
      self->conv2d = clf_convolve2d_new (self->ctx, &err);
      if (!self->conv2d) {
        gst_clfft_device_post_error (GST_ELEMENT (self), self->ctx, &err,
            "building the 2D convolution kernels");
        return FALSE;
      }
    }
    update_passthrough (self);
    return TRUE;
  }
}

/* ---- events and queries ------------------------------------------------- */

static gboolean
gst_clfft_convolve_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstClfftConvolve *self = GST_CLFFT_CONVOLVE (trans);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_EOS:
      /* like audiofirfilter: the response's tail belongs to the stream */
      drain_audio (self);
      break;
    case GST_EVENT_FLUSH_STOP:
      if (self->audio)
        gst_clfft_convolve_audio_reset (self->audio);
      drop_queued_frame (self);
      break;
    default:
      break;
  }
  /* the frame held back goes before anything that follows it in the
   * stream (new caps and segments, EOS, tags) */
  if (GST_EVENT_IS_SERIALIZED (event) &&
      GST_EVENT_TYPE (event) != GST_EVENT_FLUSH_STOP)
    push_queued_frame (self);
  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}

static gboolean
gst_clfft_convolve_query (GstBaseTransform * trans, GstPadDirection direction,
    GstQuery * query)
{
  GstClfftConvolve *self = GST_CLFFT_CONVOLVE (trans);

  if (gst_clfft_device_handle_context_query (GST_ELEMENT (self), query))
    return TRUE;
  if (direction == GST_PAD_SRC && GST_QUERY_TYPE (query) == GST_QUERY_LATENCY) {
    GstClockTime latency, min, max;
    gboolean live;

    GST_OBJECT_LOCK (self);
    latency = self->audio_latency;
    /* a frame is held back until the next one comes in */
    if (!self->is_audio && self->frame_overlap &&
        GST_VIDEO_INFO_FPS_N (&self->vinfo) > 0)
      latency += gst_util_uint64_scale_int (GST_SECOND,
          GST_VIDEO_INFO_FPS_D (&self->vinfo),
          GST_VIDEO_INFO_FPS_N (&self->vinfo));
    GST_OBJECT_UNLOCK (self);
    if (!gst_pad_peer_query (GST_BASE_TRANSFORM_SINK_PAD (trans), query))
      return FALSE;
    gst_query_parse_latency (query, &live, &min, &max);
    GST_DEBUG_OBJECT (self, "upstream latency %" GST_TIME_FORMAT ", ours %"
        GST_TIME_FORMAT, GST_TIME_ARGS (min), GST_TIME_ARGS (latency));
    min += latency;
    if (GST_CLOCK_TIME_IS_VALID (max))
      max += latency;
    gst_query_set_latency (query, live, min, max);
    return TRUE;
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, direction,
      query);
}

/* Without a pool from downstream (fakesink, appsink) every output frame
 * would be a fresh allocation, and the download would then fault in every
 * page of it: above glibc's 32 MiB mmap threshold (4K RGBA) that doubles
 * the frame time. A small pool of our own keeps the pages. */
static gboolean
gst_clfft_convolve_decide_allocation (GstBaseTransform * trans,
    GstQuery * query)
{
  GstClfftConvolve *self = GST_CLFFT_CONVOLVE (trans);
  GstCaps *caps = NULL;
  GstVideoInfo info;

  gst_query_parse_allocation (query, &caps, NULL);
  if (self->is_audio) {
    /* audio buffers are made by the audio half */
  } else if (self->ctx && gst_clfft_caps_has_memory_feature (caps)) {
    /* frames stay on the device: a pool of device buffers */
    gst_clfft_memory_decide_allocation (query, self->ctx, &self->allocator);
  } else if (gst_query_get_n_allocation_pools (query) == 0 && caps
      && gst_clfft_pinned_add_pool (query, caps, self->ctx, &self->pinned)) {
    /* system memory frames in page-locked memory: downloads at full speed */
  } else if (gst_query_get_n_allocation_pools (query) == 0 && caps
      && gst_video_info_from_caps (&info, caps)) {
    GstBufferPool *pool = gst_video_buffer_pool_new ();
    GstStructure *config = gst_buffer_pool_get_config (pool);

    gst_buffer_pool_config_set_params (config, caps, info.size, 2, 0);
    gst_buffer_pool_set_config (pool, config);
    gst_query_add_allocation_pool (query, pool, info.size, 2, 0);
    gst_object_unref (pool);
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->decide_allocation (trans,
      query);
}

/* Upstream gets a pool of page-locked frames for system memory video, so
 * the upload reads them at full speed; device memory needs none (the
 * frames are already where they are used). */
static gboolean
gst_clfft_convolve_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  GstClfftConvolve *self = GST_CLFFT_CONVOLVE (trans);
  GstCaps *caps = NULL;

  if (!GST_BASE_TRANSFORM_CLASS (parent_class)->propose_allocation (trans,
          decide_query, query))
    return FALSE;
  if (self->is_audio || gst_base_transform_is_passthrough (trans))
    return TRUE;
  gst_query_parse_allocation (query, &caps, NULL);
  if (caps && !gst_clfft_caps_has_memory_feature (caps)) {
    gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
    if (gst_query_get_n_allocation_pools (query) == 0)
      gst_clfft_pinned_add_pool (query, caps, self->ctx, &self->pinned);
  }
  return TRUE;
}

/* ---- processing --------------------------------------------------------- */

/* Controlled properties follow the stream time of each buffer. */
static void
gst_clfft_convolve_before_transform (GstBaseTransform * trans,
    GstBuffer * buffer)
{
  GstClockTime stream_time = GST_CLOCK_TIME_NONE;

  /* only a TIME segment maps timestamps to stream time (appsrc's default
   * segment is BYTES) */
  if (trans->segment.format == GST_FORMAT_TIME)
    stream_time = gst_segment_to_stream_time (&trans->segment,
        GST_FORMAT_TIME, GST_BUFFER_PTS (buffer));

  if (GST_CLOCK_TIME_IS_VALID (stream_time))
    gst_object_sync_values (GST_OBJECT (trans), stream_time);
}

static GstFlowReturn
gst_clfft_convolve_generate_output (GstBaseTransform * trans,
    GstBuffer ** outbuf)
{
  GstClfftConvolve *self = GST_CLFFT_CONVOLVE (trans);
  GstBuffer *inbuf;
  GError *error = NULL;
  GstFlowReturn ret;

  if (!self->is_audio)
    return generate_video_output (self, outbuf);

  /* audio output is not one buffer per input: the first block comes
   * out once a block is in, so bypass prepare_output_buffer/transform */
  *outbuf = NULL;
  inbuf = trans->queued_buf;
  trans->queued_buf = NULL;
  if (!inbuf)
    return GST_FLOW_OK;
  if (!self->audio) {
    gst_buffer_unref (inbuf);
    return GST_FLOW_NOT_NEGOTIATED;
  }
  ret = gst_clfft_convolve_audio_process (self->audio, inbuf, outbuf, &error);
  gst_buffer_unref (inbuf);
  if (ret != GST_FLOW_OK && error)
    post_gerror (self, error, "convolving audio");
  g_clear_error (&error);
  return ret;
}

/* A snapshot of the video kernel properties, taken under the lock. */
typedef struct
{
  GstClfftConvolveKernelShape shape;
  gfloat radius;
  GArray *taps;
  guint width;
  gchar *location;
  gboolean normalize;
} KernelSettings;

/* Builds the custom kernel taps (normalised unless told otherwise), or
 * returns NULL after posting an error. */
static gfloat *
custom_kernel (GstClfftConvolve * self, const KernelSettings * ks,
    guint * width, guint * height)
{
  gfloat *taps;
  guint n, w, h, i;
  gdouble sum = 0.0, abs_sum = 0.0;

  if (ks->location) {
    GError *error = NULL;
    taps = gst_clfft_load_kernel_image (ks->location, &w, &h, &error);
    if (!taps) {
      post_gerror (self, error, NULL);
      g_error_free (error);
      return NULL;
    }
    n = w * h;
  } else {
    n = ks->taps->len;
    w = ks->width;
    if (w == 0) {
      w = (guint) floor (sqrt ((gdouble) n) + 0.5);
      if (w * w != n) {
        GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
            ("The custom kernel has %u taps, not a square number: set "
                "kernel-width", n), (NULL));
        return NULL;
      }
    }
    if (n % w != 0) {
      GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
          ("The custom kernel has %u taps, not a multiple of kernel-width "
              "%u", n, w), (NULL));
      return NULL;
    }
    h = n / w;
    taps = g_memdup2 (ks->taps->data, n * sizeof (gfloat));
  }

  for (i = 0; i < n; i++) {
    sum += taps[i];
    abs_sum += fabs (taps[i]);
  }
  if (ks->normalize) {
    /* a sum lost in the rounding of its terms counts as zero */
    if (fabs (sum) <= 1e-6 * abs_sum || abs_sum == 0.0) {
      GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
          ("The custom %ux%u kernel sums to zero and cannot be normalised; "
              "set normalize=false to apply it as given", w, h),
          ("sum %g, sum of magnitudes %g", sum, abs_sum));
      g_free (taps);
      return NULL;
    }
    for (i = 0; i < n; i++)
      taps[i] = (gfloat) (taps[i] / sum);
  }
  *width = w;
  *height = h;
  return taps;
}

/* The channels of the negotiated video format as the core describes them;
 * subsampled channels use kernel 1, the others kernel 0. Returns the
 * subsampling factor of kernel 1 (1 when there is none). */
static guint
video_layout (const GstVideoInfo * info, ClfFrameLayout2d * l)
{
  const GstVideoFormatInfo *f = info->finfo;
  guint c, sub = 1;

  memset (l, 0, sizeof (*l));
  l->n_planes = GST_VIDEO_INFO_N_PLANES (info);
  l->n_channels = GST_VIDEO_INFO_N_COMPONENTS (info);
  for (c = 0; c < l->n_channels; c++) {
    ClfChannel2d *ch = &l->channels[c];
    guint p = GST_VIDEO_FORMAT_INFO_PLANE (f, c);

    ch->plane = p;
    ch->offset = GST_VIDEO_FORMAT_INFO_POFFSET (f, c);
    ch->pixel_stride = GST_VIDEO_FORMAT_INFO_PSTRIDE (f, c);
    ch->width = GST_VIDEO_INFO_COMP_WIDTH (info, c);
    ch->height = GST_VIDEO_INFO_COMP_HEIGHT (info, c);
    ch->bits = GST_VIDEO_FORMAT_INFO_DEPTH (f, c) > 8 ? 16 : 8;
    /* the listed formats subsample both axes alike (4:2:0) */
    if (GST_VIDEO_FORMAT_INFO_W_SUB (f, c) > 0) {
      ch->kernel = 1;
      sub = 1 << GST_VIDEO_FORMAT_INFO_W_SUB (f, c);
    }
    l->row_bytes[p] = MAX (l->row_bytes[p], ch->width * ch->pixel_stride);
    l->rows[p] = MAX (l->rows[p], ch->height);
  }
  return sub;
}

/* (Re)configures the core for the negotiated format and the current
 * kernel properties when either changed. */
static gboolean
ensure_video_configured (GstClfftConvolve * self)
{
  KernelSettings ks;
  gboolean changed;
  ClfFrameLayout2d layout;
  ClfKernel2d kernels[2];
  ClfError err = { CLF_OK, "" };
  gfloat *taps = NULL;
  guint sub, tw = 0, th = 0;
  gboolean ok = FALSE;

  GST_OBJECT_LOCK (self);
  changed = self->kernel_changed;
  self->kernel_changed = FALSE;
  if (!changed && self->conv2d_ready) {
    GST_OBJECT_UNLOCK (self);
    return TRUE;
  }
  ks.shape = self->kernel_shape;
  ks.radius = self->radius;
  ks.taps = g_array_ref (self->kernel);
  ks.width = self->kernel_width;
  ks.location = g_strdup (self->kernel_location);
  ks.normalize = self->normalize;
  GST_OBJECT_UNLOCK (self);

  self->conv2d_ready = FALSE;
  sub = video_layout (&self->vinfo, &layout);
  layout.edge = (ClfEdgeMode) self->edge_mode;
  if (ks.location || ks.taps->len > 0) {
    taps = custom_kernel (self, &ks, &tw, &th);
    if (!taps)
      goto done;
    kernels[0].shape = CLF_KERNEL_TAPS;
    kernels[0].taps = taps;
    kernels[0].width = tw;
    kernels[0].height = th;
    kernels[0].radius = 0.0;
    kernels[1] = kernels[0];
  } else {
    kernels[0].shape = (ClfKernelShape) ks.shape;
    kernels[0].radius = ks.radius;
    kernels[0].taps = NULL;
    kernels[0].width = kernels[0].height = 0;
    kernels[1] = kernels[0];
    kernels[1].radius = ks.radius / sub;
  }

  if (clf_convolve2d_configure (self->conv2d, &layout, kernels, 2,
          &err) != CLF_OK) {
    size_t kw, kh, cx, cy;
    gchar *what;

    clf_kernel2d_extent (&kernels[0], &kw, &kh, &cx, &cy);
    what = g_strdup_printf ("setting up the convolution of %dx%d %s frames "
        "with a %zux%zu kernel (FFT grid of up to %zux%zu)",
        GST_VIDEO_INFO_WIDTH (&self->vinfo),
        GST_VIDEO_INFO_HEIGHT (&self->vinfo),
        GST_VIDEO_INFO_NAME (&self->vinfo), kw, kh,
        clf_convolve2d_padded_length (layout.channels[0].width, kw, 1),
        clf_convolve2d_padded_length (layout.channels[0].height, kh, 0));
    gst_clfft_device_post_error (GST_ELEMENT (self), self->ctx, &err, what);
    g_free (what);
    goto done;
  }
  GST_INFO_OBJECT (self, "configured: %s",
      clf_convolve2d_describe (self->conv2d));
  self->conv2d_ready = TRUE;
  ok = TRUE;

done:
  g_free (taps);
  g_free (ks.location);
  g_array_unref (ks.taps);
  return ok;
}

/* One side of a frame for the core: a clfft memory of our context is used
 * where it is (mapped for the device, which uploads what the CPU wrote
 * into it); anything else, memories of other contexts too, is mapped for
 * the CPU. */
static gboolean
map_side (GstClfftConvolve * self, GstBuffer * buffer, gboolean write,
    GstVideoFrame * frame, GstMapInfo * map, ClfFrame2d * side)
{
  GstMapFlags flags = write ? GST_MAP_WRITE : GST_MAP_READ;
  gsize offset[GST_VIDEO_MAX_PLANES];
  gint stride[GST_VIDEO_MAX_PLANES];
  GstMemory *mem;
  guint p;

  memset (side, 0, sizeof (*side));
  if (gst_clfft_memory_frame_layout (buffer, self->ctx, &self->vinfo, &mem,
          offset, stride)) {
    if (!gst_memory_map (mem, map, flags | GST_MAP_CLFFT))
      return FALSE;
    side->mem = gst_clfft_memory_get_cl_mem (map);
    for (p = 0; p < GST_VIDEO_INFO_N_PLANES (&self->vinfo); p++) {
      side->offset[p] = offset[p];
      side->stride[p] = stride[p];
    }
    return TRUE;
  }
  if (!gst_video_frame_map (frame, &self->vinfo, buffer, flags))
    return FALSE;
  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (frame); p++) {
    side->host[p] = GST_VIDEO_FRAME_PLANE_DATA (frame, p);
    side->stride[p] = GST_VIDEO_FRAME_PLANE_STRIDE (frame, p);
  }
  return TRUE;
}

static void
unmap_side (ClfFrame2d * side, GstVideoFrame * frame, GstMapInfo * map)
{
  if (side->mem)
    gst_memory_unmap (map->memory, map);
  else
    gst_video_frame_unmap (frame);
}

/* Maps both sides of f and queues the frame on the device. */
static GstFlowReturn
submit_video_frame (GstClfftConvolve * self, GstClfftConvolveQueuedFrame * f)
{
  ClfError err = { CLF_OK, "" };
  GstBuffer *unmappable;
  ClfEdgeMode edge;
  ClfStatus st;

  if (!ensure_video_configured (self))
    return GST_FLOW_ERROR;

  GST_OBJECT_LOCK (self);
  edge = (ClfEdgeMode) self->edge_mode;
  GST_OBJECT_UNLOCK (self);

  unmappable = f->inbuf;
  if (!map_side (self, f->inbuf, FALSE, &f->in, &f->in_map, &f->src))
    goto map_failed;
  unmappable = f->outbuf;
  if (!map_side (self, f->outbuf, TRUE, &f->out, &f->out_map, &f->dst)) {
    unmap_side (&f->src, &f->in, &f->in_map);
    goto map_failed;
  }
  GST_LOG_OBJECT (self, "frame %" GST_TIME_FORMAT ", %s -> %s",
      GST_TIME_ARGS (GST_BUFFER_PTS (f->inbuf)),
      f->src.mem ? "device" : "host", f->dst.mem ? "device" : "host");
  st = clf_convolve2d_submit_frame (self->conv2d, &f->src, &f->dst, edge,
      &f->done, &err);
  if (st != CLF_OK) {
    unmap_side (&f->dst, &f->out, &f->out_map);
    unmap_side (&f->src, &f->in, &f->in_map);
    gst_clfft_device_post_error (GST_ELEMENT (self), self->ctx, &err,
        "convolving a video frame");
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;

map_failed:
  /* a short buffer is the usual cause: say what was expected (a device
   * buffer that fails to map has logged why in clfftmemory) */
  GST_ELEMENT_ERROR (self, STREAM, FAILED,
      ("Cannot map a %dx%d %s frame (%" G_GSIZE_FORMAT " bytes) from an %s "
          "buffer of %" G_GSIZE_FORMAT " bytes",
          GST_VIDEO_INFO_WIDTH (&self->vinfo),
          GST_VIDEO_INFO_HEIGHT (&self->vinfo),
          GST_VIDEO_INFO_NAME (&self->vinfo),
          GST_VIDEO_INFO_SIZE (&self->vinfo),
          unmappable == f->inbuf ? "input" : "output",
          gst_buffer_get_size (unmappable)), (NULL));
  return GST_FLOW_ERROR;
}

/* Waits until f's result is in its output buffer and unmaps both sides. */
static GstFlowReturn
finish_video_frame (GstClfftConvolve * self, GstClfftConvolveQueuedFrame * f)
{
  cl_int ret = clWaitForEvents (1, &f->done);

  clReleaseEvent (f->done);
  f->done = NULL;
  unmap_side (&f->dst, &f->out, &f->out_map);
  unmap_side (&f->src, &f->in, &f->in_map);
  if (ret != CL_SUCCESS) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("The OpenCL device failed while convolving a video frame"),
        ("clWaitForEvents returned %d on %s", ret,
            clf_context_describe (self->ctx)));
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;
}

static GstFlowReturn
gst_clfft_convolve_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GstClfftConvolve *self = GST_CLFFT_CONVOLVE (trans);
  GstClfftConvolveQueuedFrame f = { NULL, };
  GstFlowReturn ret;

  if (self->is_audio || !self->conv2d)
    return GST_FLOW_NOT_NEGOTIATED;
  f.inbuf = inbuf;
  f.outbuf = outbuf;
  ret = submit_video_frame (self, &f);
  if (ret == GST_FLOW_OK)
    ret = finish_video_frame (self, &f);
  return ret;
}

/* Finishes the frame held back: its output goes to *outbuf (NULL when
 * there was none or it failed). */
static GstFlowReturn
take_queued_frame (GstClfftConvolve * self, GstBuffer ** outbuf)
{
  GstClfftConvolveQueuedFrame *f = &self->queued;
  GstFlowReturn ret;

  *outbuf = NULL;
  if (!f->inbuf)
    return GST_FLOW_OK;
  ret = finish_video_frame (self, f);
  if (ret == GST_FLOW_OK)
    *outbuf = f->outbuf;
  else
    gst_buffer_unref (f->outbuf);
  gst_buffer_unref (f->inbuf);
  memset (f, 0, sizeof (*f));
  return ret;
}

/* Sends the frame held back downstream, ahead of an event or of a frame
 * that is not overlapped. */
static GstFlowReturn
push_queued_frame (GstClfftConvolve * self)
{
  GstBuffer *out;
  GstFlowReturn ret = take_queued_frame (self, &out);

  if (out)
    ret = gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (self), out);
  return ret;
}

/* Waits for the frame held back and discards it (flush, stop). */
static void
drop_queued_frame (GstClfftConvolve * self)
{
  GstBuffer *out;

  take_queued_frame (self, &out);
  gst_clear_buffer (&out);
}

/* frame-overlap: a frame from system memory is queued, then the one held
 * back since the previous call goes out, so the device uploads one frame
 * and downloads another while it convolves. Frames in device memory have
 * no copies to overlap and go through the base class. */
static GstFlowReturn
generate_video_output (GstClfftConvolve * self, GstBuffer ** outbuf)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  GstClfftConvolveQueuedFrame next = { NULL, };
  gboolean overlap;
  GstFlowReturn ret;

  GST_OBJECT_LOCK (self);
  overlap = self->frame_overlap && !self->in_device_caps &&
      !self->out_device_caps;
  GST_OBJECT_UNLOCK (self);
  *outbuf = NULL;
  if (!trans->queued_buf)
    return GST_FLOW_OK;
  if (!overlap || !self->conv2d || gst_base_transform_is_passthrough (trans)) {
    if ((ret = push_queued_frame (self)) != GST_FLOW_OK)
      return ret;
    return GST_BASE_TRANSFORM_CLASS (parent_class)->generate_output (trans,
        outbuf);
  }

  next.inbuf = trans->queued_buf;
  trans->queued_buf = NULL;
  ret = GST_BASE_TRANSFORM_CLASS (parent_class)->prepare_output_buffer
      (trans, next.inbuf, &next.outbuf);
  if (ret == GST_FLOW_OK && next.outbuf)
    ret = submit_video_frame (self, &next);
  if (ret != GST_FLOW_OK || !next.outbuf) {
    gst_clear_buffer (&next.outbuf);
    gst_buffer_unref (next.inbuf);
    return ret;
  }
  ret = take_queued_frame (self, outbuf);
  self->queued = next;
  return ret;
}

/* clf-convolve1d.c: uniformly partitioned overlap-save convolution of multi-channel audio on the device. */
#include "clf-convolve1d.h"
#include "clf-private.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bins per spectrum line are padded to a multiple of this so the
 * multiply-accumulate kernel can use float8 loads (see convolve1d.cl). */
#define BIN_QUANTUM 4

/* CPU devices: work items per group of convolve1d_mac, one a SIMD lane.
 * Left to PoCL, B/4 + 1 work items (2049 at B = 8192, 3 x 683) ran as a
 * few odd-sized groups; lines padded to whole groups of 8 ran a 10 s
 * stereo response 1.5-3x faster on 2 cores (bench-convolve-audio). */
#define CPU_MAC_LANES 8

/* Blocks queued before one wait: enough to hide the round trips, few
 * enough to bound the host staging. */
#define MAX_BLOCKS_PER_WAIT 16

/* Default block: the response in about 64 partitions, within these
 * bounds. The per-sample cost is one pair of 2B-point FFTs per block plus
 * ir_frames/B complex multiply-adds per bin; on PoCL with 2 cores a 10 s
 * response at 48 kHz stereo runs ~150x real time at B = 8192 (vs ~85x at
 * 2048), while short responses run > 100x down to B = 512 (10 ms at
 * 48 kHz): see tests/bench/bench-convolve-audio.c. */
#define DEFAULT_PARTITIONS 64

/* GPUs: split the partition sum over up to this many work items per bin
 * group until about TARGET_WORK_ITEMS run at once (see convolve1d.cl). */
#define MAX_SLICES 64
#define TARGET_WORK_ITEMS 16384

static volatile int forced_slices = -1;
#define DEFAULT_MIN_BLOCK 512
#define DEFAULT_MAX_BLOCK 16384

struct _ClfConvolve1d
{
  ClfContext *ctx;
  size_t channels;
  size_t block;                 /* B: samples per partition and per step */
  size_t fft_len;               /* 2B */
  size_t nbp;                   /* bins per half spectrum: B+1 rounded up */
  size_t pairs;                 /* channels packed two per complex FFT */
  size_t parts;                 /* P: partitions of the response */
  size_t ir_lines;              /* 1 (shared response) or channels */
  size_t head;                  /* ring slot that receives the next window */

  ClfPlan *fwd;                 /* C2C forward, batch pairs: window -> fresh */
  ClfPlan *inv;                 /* C2C inverse, batch pairs: packed -> outwin */
  cl_kernel mac;
  size_t slices;                /* 1: convolve1d_mac, else _mac_split */
  size_t mac_lanes;             /* convolve1d_mac's group; 1: the driver's */

  /* Two real channels share one complex line (a real, b imaginary): the
   * real FFTs of a pair cost one complex FFT, see convolve1d.cl. */
  cl_mem window;                /* [pairs][2B] complex: last two blocks */
  cl_mem fresh;                 /* [pairs][2B] complex */
  cl_mem ring;                  /* [parts][channels][nbp] complex */
  cl_mem spec;                  /* [parts][ir_lines][nbp] complex */
  cl_mem packed;                /* [pairs][2B] complex */
  cl_mem outwin;                /* [pairs][2B] complex */

  /* Host staging: windows of the blocks of one call, and the second
   * halves of the inverse transforms read back; grown on demand. */
  float *host_win;              /* [n][pairs][2B] complex */
  float *host_out;              /* [n][pairs][B] complex */
  size_t host_blocks;
  float *prev;                  /* [channels][B]: the block before the next */
  size_t device_bytes;
};

static size_t
round_up (size_t v, size_t q)
{
  return (v + q - 1) / q * q;
}

size_t
clf_convolve1d_default_block (size_t ir_frames)
{
  size_t b = DEFAULT_MIN_BLOCK;

  while (b * DEFAULT_PARTITIONS < ir_frames && b < DEFAULT_MAX_BLOCK)
    b *= 2;
  return b;
}

size_t
clf_convolve1d_get_block (ClfConvolve1d * conv)
{
  return conv->block;
}

size_t
clf_convolve1d_get_partitions (ClfConvolve1d * conv)
{
  return conv->parts;
}

size_t
clf_convolve1d_get_device_bytes (ClfConvolve1d * conv)
{
  return conv->device_bytes;
}

static cl_mem
alloc_zeroed (ClfConvolve1d * conv, size_t bytes, const char *what,
    ClfError * err)
{
  cl_mem mem;
  cl_int ret;
  const cl_float zero = 0.0f;

  mem = clf_context_alloc (conv->ctx, CL_MEM_READ_WRITE, bytes, err);
  if (!mem) {
    if (err) {
      /* keep the core's reason, add what we needed the memory for */
      char reason[sizeof (err->message)];
      memcpy (reason, err->message, sizeof (reason));
      clf_set_error (err, err->code, "cannot allocate %zu bytes of device "
          "memory for the %s of a partitioned convolution (%zu channels, "
          "%zu partitions of %zu samples): %s", bytes, what,
          conv->channels, conv->parts, conv->block, reason);
    }
    return NULL;
  }
  conv->device_bytes += bytes;
  /* padding bins are never transformed; zeroing keeps them finite */
  ret = clEnqueueFillBuffer (clf_context_get_queue (conv->ctx), mem, &zero,
      sizeof (zero), 0, bytes, 0, NULL, NULL);
  if (ret != CL_SUCCESS) {
    clf_set_cl_error (err, ret, "clEnqueueFillBuffer");
    clReleaseMemObject (mem);
    return NULL;
  }
  return mem;
}

void
clf_convolve1d_debug_force_slices (int slices)
{
  forced_slices = slices;
}

size_t
clf_convolve1d_get_slices (ClfConvolve1d * conv)
{
  return conv->slices;
}

/* One work item per bin group suits CPUs (the groups are the SIMD lanes and
 * there are far more than cores). A GPU needs tens of thousands of work
 * items in flight: when blocks are small and partitions many, the sum
 * over partitions is split too. */
static size_t
choose_slices (ClfConvolve1d * conv)
{
  cl_device_type type = 0;
  size_t groups = conv->nbp / BIN_QUANTUM * conv->pairs, slices = 1;

  if (forced_slices > 0) {
    while (slices * 2 <= (size_t) forced_slices && slices < MAX_SLICES)
      slices *= 2;
    return slices;
  }
  clGetDeviceInfo (clf_context_get_device (conv->ctx), CL_DEVICE_TYPE,
      sizeof (type), &type, NULL);
  if (!(type & CL_DEVICE_TYPE_GPU))
    return 1;
  while (slices < MAX_SLICES && slices * 2 <= conv->parts
      && groups * slices < TARGET_WORK_ITEMS)
    slices *= 2;
  return slices;
}

/* Work items a group of conv->mac may hold: the kernel's own limit, which
 * may be below the device's; 0 where the driver does not say */
static size_t
mac_group_limit (ClfConvolve1d * conv)
{
  size_t wg = 0;

  if (clGetKernelWorkGroupInfo (conv->mac,
          clf_context_get_device (conv->ctx), CL_KERNEL_WORK_GROUP_SIZE,
          sizeof (wg), &wg, NULL) != CL_SUCCESS)
    return 0;
  return wg;
}

static ClfPlan *
new_pair_plan (ClfConvolve1d * conv, ClfDirection direction, ClfError * err)
{
  ClfPlanDesc desc;

  clf_plan_desc_init (&desc, CLF_C2C, direction, conv->fft_len, 0, conv->pairs);
  return clf_plan_new (conv->ctx, &desc, err);
}

/* IR partition spectra, scaled by 1/(2B) so the inverse FFT needs no
 * normalisation pass: spec[p][l] = FFT(ir[pB .. pB+B-1, l], zero-padded). */
static int
compute_ir_spectra (ClfConvolve1d * conv, const double *ir, size_t ir_frames,
    ClfError * err)
{
  const size_t B = conv->block, N = conv->fft_len, L = conv->ir_lines;
  const size_t lines = conv->parts * L;
  const double scale = 1.0 / (double) N;
  cl_command_queue queue = clf_context_get_queue (conv->ctx);
  ClfPlan *plan = NULL;
  float *host = NULL;
  cl_mem time = NULL;
  cl_int ret;
  int ok = 0;

  host = calloc (lines * N, sizeof (float));
  if (!host) {
    clf_set_error (err, CLF_ERROR_OUT_OF_MEMORY, "cannot allocate %zu bytes "
        "of host memory for impulse response partitions",
        lines * N * sizeof (float));
    goto done;
  }
  for (size_t p = 0; p < conv->parts; p++) {
    for (size_t l = 0; l < L; l++) {
      float *dst = host + (p * L + l) * N;
      for (size_t j = 0; j < B && p * B + j < ir_frames; j++)
        dst[j] = (float) (ir[(p * B + j) * L + l] * scale);
    }
  }

  time = clf_context_alloc (conv->ctx, CL_MEM_READ_ONLY,
      lines * N * sizeof (float), err);
  if (!time)
    goto done;
  {
    ClfPlanDesc desc;

    /* half spectra padded to nbp bins per line, as the kernel reads them */
    clf_plan_desc_init (&desc, CLF_R2C, CLF_FORWARD, N, 0, lines);
    desc.out.dist = conv->nbp;
    plan = clf_plan_new (conv->ctx, &desc, err);
    if (!plan)
      goto done;
  }
  ret = clEnqueueWriteBuffer (queue, time, CL_FALSE, 0,
      lines * N * sizeof (float), host, 0, NULL, NULL);
  if (ret != CL_SUCCESS) {
    clf_set_cl_error (err, ret, "clEnqueueWriteBuffer");
    goto done;
  }
  if (clf_plan_enqueue (plan, time, conv->spec, err) != CLF_OK)
    goto done;
  /* host and time must outlive the transfer */
  ret = clFinish (queue);
  if (ret != CL_SUCCESS) {
    clf_set_cl_error (err, ret, "clFinish");
    goto done;
  }
  ok = 1;

done:
  if (plan)
    clf_plan_free (plan);
  if (time)
    clReleaseMemObject (time);
  free (host);
  return ok;
}

ClfConvolve1d *
clf_convolve1d_new (ClfContext * ctx, size_t channels, size_t block,
    const double *ir, size_t ir_frames, size_t ir_channels, ClfError * err)
{
  ClfConvolve1d *conv;
  size_t spectrum_bytes, window_bytes;

  if (!ctx || !ir || channels == 0 || ir_frames == 0 || block < 2
      || (ir_channels != 1 && ir_channels != channels)) {
    clf_set_error (err, CLF_ERROR_INVALID_ARG,
        "invalid partitioned convolution "
        "request: %zu channels, block %zu, impulse response of %zu frames "
        "x %zu channels (needs >= 1 frame, block >= 2, and 1 or %zu "
        "response channels)", channels, block, ir_frames, ir_channels,
        channels);
    return NULL;
  }
  if (block > ((size_t) 1 << 26) || channels > 65535) {
    clf_set_error (err, CLF_ERROR_INVALID_ARG, "partitioned convolution block "
        "%zu or channel count %zu too large", block, channels);
    return NULL;
  }

  conv = calloc (1, sizeof (*conv));
  if (!conv) {
    clf_set_error (err, CLF_ERROR_OUT_OF_MEMORY, "out of host memory");
    return NULL;
  }
  conv->ctx = clf_context_ref (ctx);
  conv->channels = channels;
  conv->block = block;
  conv->fft_len = 2 * block;
  conv->mac_lanes = clf_context_is_cpu (ctx) ? CPU_MAC_LANES : 1;
  conv->nbp = round_up (block + 1, BIN_QUANTUM * conv->mac_lanes);
  conv->pairs = (channels + 1) / 2;
  conv->parts = (ir_frames + block - 1) / block;
  conv->ir_lines = ir_channels;

  conv->prev = calloc (channels * block, sizeof (float));
  if (!conv->prev) {
    clf_set_error (err, CLF_ERROR_OUT_OF_MEMORY, "out of host memory");
    goto fail;
  }

  spectrum_bytes = conv->nbp * 2 * sizeof (float);
  window_bytes = conv->pairs * conv->fft_len * 2 * sizeof (float);
  /* sizes computed in size_t: parts * channels * nbp stays far below
   * SIZE_MAX for the limits checked above and any IR that fits in RAM */
  if (!(conv->spec = alloc_zeroed (conv, conv->parts * conv->ir_lines *
              spectrum_bytes, "impulse response spectra", err)))
    goto fail;
  if (!(conv->ring = alloc_zeroed (conv, conv->parts * channels *
              spectrum_bytes, "input spectrum delay line", err)))
    goto fail;
  if (!(conv->fresh = alloc_zeroed (conv, window_bytes, "input spectrum", err)))
    goto fail;
  if (!(conv->packed = alloc_zeroed (conv, window_bytes, "output spectrum",
              err)))
    goto fail;
  if (!(conv->window = alloc_zeroed (conv, window_bytes, "input window", err)))
    goto fail;
  if (!(conv->outwin = alloc_zeroed (conv, window_bytes, "output window", err)))
    goto fail;

  if (!(conv->fwd = new_pair_plan (conv, CLF_FORWARD, err)))
    goto fail;
  if (!(conv->inv = new_pair_plan (conv, CLF_INVERSE, err)))
    goto fail;
  conv->slices = choose_slices (conv);
  conv->mac = clf_context_create_kernel (ctx, "convolve1d",
      conv->slices > 1 ? "convolve1d_mac_split" : "convolve1d_mac", err);
  if (!conv->mac)
    goto fail;
  if (conv->slices > 1) {
    size_t wg = mac_group_limit (conv);
    while (wg && conv->slices > wg && conv->slices > 1)
      conv->slices /= 2;
    if (conv->slices == 1) {
      clReleaseKernel (conv->mac);
      conv->mac = clf_context_create_kernel (ctx, "convolve1d",
          "convolve1d_mac", err);
      if (!conv->mac)
        goto fail;
    }
  }
  /* a device whose groups cannot hold the lanes chooses its own */
  if (conv->slices == 1 && conv->mac_lanes > 1 &&
      mac_group_limit (conv) < conv->mac_lanes)
    conv->mac_lanes = 1;

  if (!compute_ir_spectra (conv, ir, ir_frames, err))
    goto fail;

  return conv;

fail:
  clf_convolve1d_free (conv);
  return NULL;
}

void
clf_convolve1d_free (ClfConvolve1d * conv)
{
  cl_mem *mems[] = { &conv->window, &conv->fresh, &conv->ring, &conv->spec,
    &conv->packed, &conv->outwin
  };

  if (!conv)
    return;
  /* nothing of ours may still be in flight when buffers go */
  clFinish (clf_context_get_queue (conv->ctx));
  if (conv->fwd)
    clf_plan_free (conv->fwd);
  if (conv->inv)
    clf_plan_free (conv->inv);
  if (conv->mac)
    clReleaseKernel (conv->mac);
  for (size_t i = 0; i < sizeof (mems) / sizeof (mems[0]); i++)
    if (*mems[i])
      clReleaseMemObject (*mems[i]);
  free (conv->host_win);
  free (conv->host_out);
  free (conv->prev);
  clf_context_unref (conv->ctx);
  free (conv);
}

static int
ensure_host_blocks (ClfConvolve1d * conv, size_t n, ClfError * err)
{
  size_t per_block = conv->pairs * conv->fft_len * 2;
  float *w, *o;

  if (n <= conv->host_blocks)
    return 1;
  w = realloc (conv->host_win, n * per_block * sizeof (float));
  if (w)
    conv->host_win = w;
  o = realloc (conv->host_out, n * per_block * sizeof (float));
  if (o)
    conv->host_out = o;
  if (!w || !o) {
    clf_set_error (err, CLF_ERROR_OUT_OF_MEMORY, "cannot allocate host staging "
        "for %zu blocks of %zu samples x %zu channels", n, conv->block,
        conv->channels);
    return 0;
  }
  conv->host_blocks = n;
  return 1;
}

static ClfStatus
process_chunk (ClfConvolve1d * conv, const float *in, float *out,
    size_t n_blocks, ClfError * err)
{
  const size_t B = conv->block, N = conv->fft_len, C = conv->channels;
  const size_t win_floats = conv->pairs * N * 2;
  const size_t out_floats = conv->pairs * B * 2;
  cl_command_queue queue = clf_context_get_queue (conv->ctx);
  size_t global[3], local[3];
  cl_uint n = (cl_uint) N, nbp = (cl_uint) conv->nbp, channels = (cl_uint) C;
  cl_uint ir_lines = (cl_uint) conv->ir_lines, parts = (cl_uint) conv->parts;
  /* second halves of the inverse transforms: one row per pair */
  const size_t rect_origin[3] = { B * 2 * sizeof (float), 0, 0 };
  const size_t host_origin[3] = { 0, 0, 0 };
  const size_t rect_region[3] = { B * 2 * sizeof (float), conv->pairs, 1 };
  cl_event done = NULL;
  ClfStatus status;
  cl_int ret;

  if (!ensure_host_blocks (conv, n_blocks, err))
    return err ? err->code : CLF_ERROR_OUT_OF_MEMORY;

  /* Overlap-save windows [previous block | this block], channel 2i in
   * the real and 2i+1 in the imaginary part of pair i (zero for an odd
   * last channel). */
  for (size_t b = 0; b < n_blocks; b++) {
    const float *src = in + b * B * C;
    float *win = conv->host_win + b * win_floats;
    for (size_t c = 0; c < 2 * conv->pairs; c++) {
      float *w = win + (c / 2) * N * 2 + (c & 1);
      if (c >= C) {
        for (size_t j = 0; j < N; j++)
          w[2 * j] = 0.0f;
        continue;
      }
      float *prev = conv->prev + c * B;
      for (size_t j = 0; j < B; j++)
        w[2 * j] = prev[j];
      for (size_t j = 0; j < B; j++)
        w[2 * (B + j)] = prev[j] = src[j * C + c];
    }
  }

  ret = clSetKernelArg (conv->mac, 0, sizeof (cl_mem), &conv->fresh);
  ret |= clSetKernelArg (conv->mac, 1, sizeof (cl_mem), &conv->ring);
  ret |= clSetKernelArg (conv->mac, 2, sizeof (cl_mem), &conv->spec);
  ret |= clSetKernelArg (conv->mac, 3, sizeof (cl_mem), &conv->packed);
  ret |= clSetKernelArg (conv->mac, 4, sizeof (cl_uint), &n);
  ret |= clSetKernelArg (conv->mac, 5, sizeof (cl_uint), &nbp);
  ret |= clSetKernelArg (conv->mac, 6, sizeof (cl_uint), &channels);
  ret |= clSetKernelArg (conv->mac, 7, sizeof (cl_uint), &ir_lines);
  ret |= clSetKernelArg (conv->mac, 8, sizeof (cl_uint), &parts);
  if (conv->slices > 1)
    ret |= clSetKernelArg (conv->mac, 10, 4 * conv->slices * sizeof (cl_float4),
        NULL);
  if (ret != CL_SUCCESS)
    return clf_set_cl_error (err, ret, "clSetKernelArg");
  if (conv->slices > 1) {
    global[0] = conv->slices;
    global[1] = conv->nbp / BIN_QUANTUM;
    global[2] = conv->pairs;
    local[0] = conv->slices;
    local[1] = local[2] = 1;
  } else {
    global[0] = conv->nbp / BIN_QUANTUM;
    global[1] = conv->pairs;
    local[0] = conv->mac_lanes;
    local[1] = 1;
  }

  /* Everything is queued in order on one queue: the device buffers are
   * reused block after block, and a single wait ends the call. */
  for (size_t b = 0; b < n_blocks; b++) {
    cl_uint head = (cl_uint) conv->head;

    ret = clEnqueueWriteBuffer (queue, conv->window, CL_FALSE, 0,
        win_floats * sizeof (float), conv->host_win + b * win_floats, 0,
        NULL, NULL);
    if (ret != CL_SUCCESS)
      goto cl_error_write;
    if ((status = clf_plan_enqueue (conv->fwd, conv->window, conv->fresh,
                err)) != CLF_OK)
      goto core_error;
    ret = clSetKernelArg (conv->mac, 9, sizeof (cl_uint), &head);
    if (ret != CL_SUCCESS)
      goto cl_error_arg;
    ret = conv->slices > 1 ?
        clEnqueueNDRangeKernel (queue, conv->mac, 3, NULL, global, local, 0,
        NULL, NULL) :
        clEnqueueNDRangeKernel (queue, conv->mac, 2, NULL, global,
        conv->mac_lanes > 1 ? local : NULL, 0, NULL, NULL);
    if (ret != CL_SUCCESS)
      goto cl_error_kernel;
    if ((status = clf_plan_enqueue (conv->inv, conv->packed, conv->outwin,
                err)) != CLF_OK)
      goto core_error;
    if (done)
      clReleaseEvent (done);
    done = NULL;
    ret = clEnqueueReadBufferRect (queue, conv->outwin, CL_FALSE,
        rect_origin, host_origin, rect_region, N * 2 * sizeof (float), 0,
        B * 2 * sizeof (float), 0, conv->host_out + b * out_floats, 0, NULL,
        &done);
    if (ret != CL_SUCCESS)
      goto cl_error_read;
    conv->head = (conv->head + 1) % conv->parts;
  }
  /* the queue is in order and may be shared with other elements: waiting
   * for our last read is waiting for all of ours, and only ours */
  ret = clWaitForEvents (1, &done);
  clReleaseEvent (done);
  if (ret != CL_SUCCESS)
    return clf_set_cl_error (err, ret, "clWaitForEvents");

  /* The second half of each circular convolution is the linear one; the
   * inverse transform is unscaled, the response spectra carry 1/N. */
  for (size_t b = 0; b < n_blocks; b++) {
    const float *res = conv->host_out + b * out_floats;
    float *dst = out + b * B * C;
    for (size_t c = 0; c < C; c++) {
      const float *r = res + (c / 2) * B * 2 + (c & 1);
      for (size_t j = 0; j < B; j++)
        dst[j * C + c] = r[2 * j];
    }
  }
  return CLF_OK;

cl_error_write:
  status = clf_set_cl_error (err, ret, "clEnqueueWriteBuffer");
  goto error;
cl_error_arg:
  status = clf_set_cl_error (err, ret, "clSetKernelArg");
  goto error;
cl_error_kernel:
  status =
      clf_set_cl_error (err, ret, "clEnqueueNDRangeKernel(convolve1d_mac)");
  goto error;
cl_error_read:
  status = clf_set_cl_error (err, ret, "clEnqueueReadBuffer");
  goto error;
core_error:
error:
  if (done)
    clReleaseEvent (done);
  /* queued transfers still point at our staging: let them finish, and
   * start over from silence rather than from a half-updated delay line */
  clFinish (queue);
  clf_convolve1d_reset (conv, NULL);
  return status;
}

ClfStatus
clf_convolve1d_process (ClfConvolve1d * conv, const float *in, float *out,
    size_t n_blocks, ClfError * err)
{
  const size_t frames = conv->block * conv->channels;
  /* bounded staging: a drained 10 s tail is hundreds of blocks */
  const size_t chunk = MAX_BLOCKS_PER_WAIT;

  if (!in || !out) {
    clf_set_error (err, CLF_ERROR_INVALID_ARG, "NULL audio pointer");
    return CLF_ERROR_INVALID_ARG;
  }
  for (size_t b = 0; b < n_blocks; b += chunk) {
    size_t n = n_blocks - b < chunk ? n_blocks - b : chunk;
    ClfStatus status = process_chunk (conv, in + b * frames,
        out + b * frames, n, err);
    if (status != CLF_OK)
      return status;
  }
  return CLF_OK;
}

ClfStatus
clf_convolve1d_reset (ClfConvolve1d * conv, ClfError * err)
{
  const cl_float zero = 0.0f;
  cl_command_queue queue = clf_context_get_queue (conv->ctx);
  cl_int ret;

  memset (conv->prev, 0, conv->channels * conv->block * sizeof (float));
  conv->head = 0;
  ret = clEnqueueFillBuffer (queue, conv->ring, &zero, sizeof (zero), 0,
      conv->parts * conv->channels * conv->nbp * 2 * sizeof (float), 0, NULL,
      NULL);
  if (ret != CL_SUCCESS)
    return clf_set_cl_error (err, ret, "clEnqueueFillBuffer");
  return CLF_OK;
}

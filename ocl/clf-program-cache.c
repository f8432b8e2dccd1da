/* clf-program-cache.c: builds programs, reusing binaries cached on disk. */
#include "clf-private.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CACHE_MAGIC "CLFBIN02"

static uint64_t
fnv1a (uint64_t h, const void *data, size_t len)
{
  const unsigned char *p = data;
  for (size_t i = 0; i < len; i++) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

static uint64_t
fnv1a_str (uint64_t h, const char *s)
{
  return fnv1a (h, s, strlen (s) + 1);
}

static void
device_string (cl_device_id dev, cl_device_info what, char *buf, size_t size)
{
  buf[0] = '\0';
  if (clGetDeviceInfo (dev, what, size, buf, NULL) != CL_SUCCESS)
    buf[0] = '\0';
  buf[size - 1] = '\0';
}

/* Directory for cached binaries, or NULL when caching is off
 * (CLFFT_CACHE_DIR set to "" disables it). Returns malloc'ed path. */
static char *
cache_dir (void)
{
  const char *env = getenv ("CLFFT_CACHE_DIR");
  const char *base;
  char *path;

  if (env)
    return env[0] ? strdup (env) : NULL;
  base = getenv ("XDG_CACHE_HOME");
  if (base && base[0]) {
    path = malloc (strlen (base) + 16);
    if (path)
      sprintf (path, "%s/gst-clfft", base);
    return path;
  }
  base = getenv ("HOME");
  if (!base || !base[0])
    return NULL;
  path = malloc (strlen (base) + 24);
  if (path)
    sprintf (path, "%s/.cache/gst-clfft", base);
  return path;
}

static void
make_dirs (char *path)
{
  for (char *p = path + 1; *p; p++) {
    if (*p == '/') {
      *p = '\0';
      mkdir (path, 0755);
      *p = '/';
    }
  }
  mkdir (path, 0755);
}

/* PoCL keeps its own cache of compiled kernels, and asking it for a
 * program's binary makes it compile every kernel for a generic work-group
 * size, which takes as long as the compile the kernel's first launch does
 * anyway for its own size. So on PoCL the core leaves caching to PoCL
 * unless CLFFT_CACHE_BINARIES=1 (tests of this cache). */
static int
cache_binaries (cl_platform_id platform)
{
  const char *env = getenv ("CLFFT_CACHE_BINARIES");
  char name[256] = "";

  if (env && env[0])
    return env[0] != '0';
  clGetPlatformInfo (platform, CL_PLATFORM_NAME, sizeof (name), name, NULL);
  name[sizeof (name) - 1] = '\0';
  return strstr (name, "Portable Computing Language") == NULL;
}

/* Cache file for a program, and its key (also stored inside the file, so
 * a file swapped for another program's is rebuilt, not loaded); NULL when
 * this device's binaries are not cached. */
static char *
cache_file (cl_device_id device, const char *name, const char *source,
    const char *options, uint64_t * key)
{
  char buf[1024], *dir, *file;
  uint64_t h = 0xcbf29ce484222325ull;
  cl_platform_id platform;

  if (clGetDeviceInfo (device, CL_DEVICE_PLATFORM, sizeof (platform),
          &platform, NULL) != CL_SUCCESS || !cache_binaries (platform))
    return NULL;
  dir = cache_dir ();
  if (!dir)
    return NULL;
  buf[0] = '\0';
  clGetPlatformInfo (platform, CL_PLATFORM_VERSION, sizeof (buf), buf, NULL);
  buf[sizeof (buf) - 1] = '\0';
  h = fnv1a_str (h, buf);
  device_string (device, CL_DEVICE_NAME, buf, sizeof (buf));
  h = fnv1a_str (h, buf);
  device_string (device, CL_DRIVER_VERSION, buf, sizeof (buf));
  h = fnv1a_str (h, buf);
  device_string (device, CL_DEVICE_VERSION, buf, sizeof (buf));
  h = fnv1a_str (h, buf);
  h = fnv1a_str (h, options);
  h = fnv1a_str (h, source);

  *key = h;
  file = malloc (strlen (dir) + strlen (name) + 40);
  if (file)
    sprintf (file, "%s/%s-%016llx.bin", dir, name, (unsigned long long) h);
  free (dir);
  return file;
}

/* Reads and validates a cache file; returns the binary (malloc) or NULL. */
static unsigned char *
read_cached_binary (const char *file, uint64_t key, size_t *len)
{
  FILE *f = fopen (file, "rb");
  char magic[8];
  uint64_t size, sum, stored_key;
  unsigned char *bin = NULL;

  if (!f)
    return NULL;
  if (fread (magic, 1, 8, f) != 8 || memcmp (magic, CACHE_MAGIC, 8) != 0 ||
      fread (&stored_key, sizeof (stored_key), 1, f) != 1 ||
      stored_key != key || fread (&size, sizeof (size), 1, f) != 1 ||
      fread (&sum, sizeof (sum), 1, f) != 1 || size == 0 || size > (1u << 30))
    goto out;
  bin = malloc (size);
  if (!bin)
    goto out;
  if (fread (bin, 1, size, f) != size ||
      fnv1a (0xcbf29ce484222325ull, bin, size) != sum) {
    free (bin);
    bin = NULL;
    goto out;
  }
  *len = size;
out:
  fclose (f);
  return bin;
}

/* Best effort: a cache that cannot be written only costs a rebuild. */
static void
write_cached_binary (const char *file, uint64_t key, cl_program program)
{
  size_t size = 0;
  unsigned char *bin;
  char *tmp, *dir;
  FILE *f;
  uint64_t size64, sum;
  int ok;

  if (clGetProgramInfo (program, CL_PROGRAM_BINARY_SIZES, sizeof (size),
          &size, NULL) != CL_SUCCESS || size == 0)
    return;
  bin = malloc (size);
  if (!bin)
    return;
  if (clGetProgramInfo (program, CL_PROGRAM_BINARIES, sizeof (bin), &bin,
          NULL) != CL_SUCCESS) {
    free (bin);
    return;
  }
  dir = strdup (file);
  if (dir && strrchr (dir, '/')) {
    *strrchr (dir, '/') = '\0';
    make_dirs (dir);
  }
  free (dir);

  tmp = malloc (strlen (file) + 32);
  if (!tmp) {
    free (bin);
    return;
  }
  sprintf (tmp, "%s.%ld.tmp", file, (long) getpid ());
  f = fopen (tmp, "wb");
  if (f) {
    size64 = size;
    sum = fnv1a (0xcbf29ce484222325ull, bin, size);
    ok = fwrite (CACHE_MAGIC, 1, 8, f) == 8 &&
        fwrite (&key, sizeof (key), 1, f) == 1 &&
        fwrite (&size64, sizeof (size64), 1, f) == 1 &&
        fwrite (&sum, sizeof (sum), 1, f) == 1 &&
        fwrite (bin, 1, size, f) == size;
    ok = (fclose (f) == 0) && ok;
    if (!ok || rename (tmp, file) != 0)
      unlink (tmp);
  }
  free (tmp);
  free (bin);
}

static ClfStatus
build_log_error (ClfError * err, cl_program program, cl_device_id device,
    const char *name, cl_int clerr)
{
  char *log = NULL;
  size_t len = 0;

  clGetProgramBuildInfo (program, device, CL_PROGRAM_BUILD_LOG, 0, NULL, &len);
  if (len > 0 && (log = malloc (len + 1))) {
    if (clGetProgramBuildInfo (program, device, CL_PROGRAM_BUILD_LOG, len, log,
            NULL) != CL_SUCCESS)
      log[0] = '\0';
    log[len] = '\0';
  }
  clf_set_error (err, CLF_ERROR_BUILD, "building kernels/%s.cl: %s (%d)\n%s",
      name, clf_cl_error_name (clerr), (int) clerr, log ? log : "");
  free (log);
  return CLF_ERROR_BUILD;
}

/* CLFFT_TRACE_BUILDS=1: one line per program on stderr, with the time it
 * took and the compiler's log, to see where a cold plan's time goes. */
int
clf_trace_builds (void)
{
  static int trace = -1;

  if (trace < 0)
    trace = getenv ("CLFFT_TRACE_BUILDS")
        && atoi (getenv ("CLFFT_TRACE_BUILDS")) > 0;
  return trace;
}

static void
trace_build (cl_program program, cl_device_id device, const char *name,
    const char *options, const char *how, struct timespec *t0)
{
  struct timespec t1;
  char log[4096] = "";

  if (!clf_trace_builds ())
    return;
  clock_gettime (CLOCK_MONOTONIC, &t1);
  if (program && clGetProgramBuildInfo (program, device,
          CL_PROGRAM_BUILD_LOG, sizeof (log), log, NULL) != CL_SUCCESS)
    log[0] = '\0';
  log[sizeof (log) - 1] = '\0';
  fprintf (stderr, "clfft: %s %s [%s]: %.1f ms%s%s\n", how, name,
      options ? options : "", (t1.tv_sec - t0->tv_sec) * 1e3 +
      (t1.tv_nsec - t0->tv_nsec) * 1e-6, log[0] ? "\n" : "", log);
}

cl_program
clf_program_build_cached (cl_context context, cl_device_id device,
    const char *name, const char *source, const char *options,
    ClfError * err)
{
  uint64_t key = 0;
  char *file = cache_file (device, name, source, options, &key);
  cl_program program = NULL;
  cl_int clerr;
  struct timespec t0;

  clock_gettime (CLOCK_MONOTONIC, &t0);
  if (file) {
    size_t len = 0;
    unsigned char *bin = read_cached_binary (file, key, &len);
    if (bin) {
      const unsigned char *bins[1] = { bin };
      cl_int status = CL_SUCCESS;
      program = clCreateProgramWithBinary (context, 1, &device, &len, bins,
          &status, &clerr);
      if (program && (clerr != CL_SUCCESS || status != CL_SUCCESS ||
              clBuildProgram (program, 1, &device, options, NULL,
                  NULL) != CL_SUCCESS)) {
        /* stale or corrupt binary: rebuild from source below */
        clReleaseProgram (program);
        program = NULL;
      }
      free (bin);
      if (program)
        trace_build (NULL, device, name, options, "cached", &t0);
    }
  }

  if (!program) {
    program = clCreateProgramWithSource (context, 1, &source, NULL, &clerr);
    if (!program) {
      clf_set_cl_error (err, clerr, "clCreateProgramWithSource");
      free (file);
      return NULL;
    }
    clerr = clBuildProgram (program, 1, &device, options, NULL, NULL);
    if (clerr != CL_SUCCESS) {
      build_log_error (err, program, device, name, clerr);
      clReleaseProgram (program);
      free (file);
      return NULL;
    }
    trace_build (program, device, name, options, "compiled", &t0);
    if (file)
      write_cached_binary (file, key, program);
  }
  free (file);
  return program;
}

/* gst-clfft-devices.c: lists the OpenCL devices the clfft elements can use and marks the one they choose. */
#include <clf.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
usage (FILE * out)
{
  fprintf (out,
      "Usage: gst-clfft-devices [DEVICE]\n"
      "Lists every OpenCL device as \"P:D  type  platform / device\" and "
      "marks with '*'\nthe one the clfft elements run on when their device "
      "property is DEVICE\n(default: unset, i.e. $CLFFT_DEVICE, else the "
      "first GPU, else the first device).\nDEVICE is \"gpu\", \"cpu\", "
      "\"P:D\" or part of the platform or device name.\n");
}

/* "platform / device (P:D)" -> "P:D" */
static int
describe_indices (const char *describe, char *out, size_t size)
{
  const char *open = strrchr (describe, '(');
  size_t len;

  if (!open)
    return 0;
  len = strcspn (open + 1, ")");
  if (len == 0 || len >= size)
    return 0;
  memcpy (out, open + 1, len);
  out[len] = '\0';
  return 1;
}

int
main (int argc, char **argv)
{
  ClfError err = { CLF_OK, "" };
  const char *spec = NULL, *env = getenv ("CLFFT_DEVICE");
  char *list, *line, chosen[32] = "";
  ClfContext *ctx;
  int status = 0;

  if (argc > 2 || (argc == 2 && (!strcmp (argv[1], "-h")
              || !strcmp (argv[1], "--help")))) {
    usage (argc > 2 ? stderr : stdout);
    return argc > 2 ? 2 : 0;
  }
  if (argc == 2)
    spec = argv[1];

  list = clf_list_devices (&err);
  if (!list) {
    fprintf (stderr, "gst-clfft-devices: %s: %s\n", clf_status_name (err.code),
        err.message);
    return 1;
  }

  /* the core's own choice, not a copy of its rules */
  ctx = clf_context_new (spec, &err);
  if (ctx) {
    describe_indices (clf_context_describe (ctx), chosen, sizeof (chosen));
    clf_context_unref (ctx);
  }

  printf ("   P:D  type        platform / device\n");
  for (line = strtok (list, "\n"); line; line = strtok (NULL, "\n")) {
    size_t n = strcspn (line, " ");
    int mark = chosen[0] && n == strlen (chosen) && !strncmp (line, chosen, n);
    printf (" %c %s\n", mark ? '*' : ' ', line);
  }
  free (list);

  if (!ctx) {
    fprintf (stderr, "\nNo device for '%s': %s\n", spec ? spec : "",
        err.message);
    status = 1;
  } else if (spec) {
    printf ("\n* = the device for device=\"%s\"\n", spec);
  } else if (env && env[0]) {
    printf ("\n* = the default choice, from CLFFT_DEVICE=\"%s\"\n", env);
  } else {
    printf ("\n* = the default choice (the first GPU, else the first "
        "device); set\n    the elements' device property or CLFFT_DEVICE "
        "to use another\n");
  }
  return status;
}

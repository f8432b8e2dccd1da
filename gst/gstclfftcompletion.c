/* gstclfftcompletion.c: finishes device work in the order it was queued, on a thread of its own, once each piece's OpenCL event completes. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclfftcompletion.h"

typedef struct
{
  cl_event done;
  gpointer job;
} Entry;

struct _GstClfftCompletion
{
  GMutex lock;
  GCond cond;
  GQueue entries;               /* Entry, oldest first */
  guint64 pushed, finished;
  guint max_pending;
  gboolean stopping;
  GstClfftCompletionFunc func;
  gpointer user_data;
  GThread *thread;
};

/* How long a polling wait polls before it sleeps. A sleeping waiter on
 * PoCL's pthread driver (2-core EPYC) woke 40-80 us after it began to
 * wait for an audio chunk's commands, a polling one after 20-40 us: in
 * ten alternating rounds clfftspectrum bands=1024 analysed 1038-1221 s
 * of stereo 48 kHz a second against 710-888. With PoCL's threads pinned
 * (POCL_AFFINITY=1) one of them shares a core with the poller: 623-727
 * against 690-762. 500 us gained nothing over 200. */
#define POLL_US 200

/* The event's execution status, after polling it for up to POLL_US */
static cl_int
poll_event (cl_event done, cl_int * state)
{
  gint64 until = g_get_monotonic_time () + POLL_US;
  cl_int status;

  for (;;) {
    status = clGetEventInfo (done, CL_EVENT_COMMAND_EXECUTION_STATUS,
        sizeof (*state), state, NULL);
    if (status != CL_SUCCESS || *state <= CL_COMPLETE ||
        g_get_monotonic_time () >= until)
      return status;
    /* leave the core to the device's threads where they want it */
    g_thread_yield ();
  }
}

cl_int
gst_clfft_completion_wait_event (cl_event done, gboolean poll)
{
  cl_int status = CL_SUCCESS, state = CL_QUEUED;

  if (!done)
    return CL_SUCCESS;
  if (poll)
    status = poll_event (done, &state);
  if (status == CL_SUCCESS && state > CL_COMPLETE) {
    status = clWaitForEvents (1, &done);
    if (status == CL_SUCCESS)
      status = clGetEventInfo (done, CL_EVENT_COMMAND_EXECUTION_STATUS,
          sizeof (state), &state, NULL);
  }
  clReleaseEvent (done);
  if (status == CL_SUCCESS && state < 0)
    status = state;
  return status;
}

static gpointer
completion_thread (gpointer data)
{
  GstClfftCompletion *c = data;

  g_mutex_lock (&c->lock);
  for (;;) {
    Entry *e;
    cl_int status;

    while (g_queue_is_empty (&c->entries) && !c->stopping)
      g_cond_wait (&c->cond, &c->lock);
    e = g_queue_pop_head (&c->entries);
    if (!e)
      break;
    g_mutex_unlock (&c->lock);

    /* asleep: the streaming thread may want the core meanwhile */
    status = gst_clfft_completion_wait_event (e->done, FALSE);
    c->func (e->job, status, c->user_data);
    g_free (e);

    g_mutex_lock (&c->lock);
    c->finished++;
    g_cond_broadcast (&c->cond);
  }
  g_mutex_unlock (&c->lock);
  return NULL;
}

GstClfftCompletion *
gst_clfft_completion_new (const gchar * thread_name, guint max_pending,
    GstClfftCompletionFunc func, gpointer user_data)
{
  GstClfftCompletion *c = g_new0 (GstClfftCompletion, 1);

  g_mutex_init (&c->lock);
  g_cond_init (&c->cond);
  g_queue_init (&c->entries);
  c->max_pending = MAX (max_pending, 1);
  c->func = func;
  c->user_data = user_data;
  c->thread = g_thread_new (thread_name, completion_thread, c);
  return c;
}

void
gst_clfft_completion_push (GstClfftCompletion * c, cl_event done, gpointer job)
{
  Entry *e = g_new (Entry, 1);

  e->done = done;
  e->job = job;
  g_mutex_lock (&c->lock);
  /* the thread itself must not wait for its own progress */
  if (g_thread_self () != c->thread)
    while (c->pushed - c->finished >= c->max_pending)
      g_cond_wait (&c->cond, &c->lock);
  g_queue_push_tail (&c->entries, e);
  c->pushed++;
  g_cond_broadcast (&c->cond);
  g_mutex_unlock (&c->lock);
}

void
gst_clfft_completion_drain (GstClfftCompletion * c)
{
  guint64 target;

  if (g_thread_self () == c->thread)
    return;
  g_mutex_lock (&c->lock);
  target = c->pushed;
  while (c->finished < target)
    g_cond_wait (&c->cond, &c->lock);
  g_mutex_unlock (&c->lock);
}

void
gst_clfft_completion_free (GstClfftCompletion * c)
{
  if (!c)
    return;
  gst_clfft_completion_drain (c);
  g_mutex_lock (&c->lock);
  c->stopping = TRUE;
  g_cond_broadcast (&c->cond);
  g_mutex_unlock (&c->lock);
  g_thread_join (c->thread);
  g_mutex_clear (&c->lock);
  g_cond_clear (&c->cond);
  g_free (c);
}

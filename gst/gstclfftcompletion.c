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

cl_int
gst_clfft_completion_wait_event (cl_event done)
{
  cl_int status, state = CL_COMPLETE;

  if (!done)
    return CL_SUCCESS;
  status = clWaitForEvents (1, &done);
  if (status == CL_SUCCESS)
    status = clGetEventInfo (done, CL_EVENT_COMMAND_EXECUTION_STATUS,
        sizeof (state), &state, NULL);
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

    status = gst_clfft_completion_wait_event (e->done);
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

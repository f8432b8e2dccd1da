/* gstclfftcompletion.h: finishes device work in the order it was queued, on a thread of its own, once each piece's OpenCL event completes. */
#ifndef __GST_CLFFT_COMPLETION_H__
#define __GST_CLFFT_COMPLETION_H__

#include <gst/gst.h>
#include "clf.h"

G_BEGIN_DECLS

typedef struct _GstClfftCompletion GstClfftCompletion;

/* Runs on the completion's thread for each job, in push order. status is
 * CL_SUCCESS, or the error that the job's event (or the wait) ended in. */
typedef void (*GstClfftCompletionFunc) (gpointer job, cl_int status,
    gpointer user_data);

/* Starts the thread. At most max_pending jobs wait at a time: a push
 * beyond that blocks until the oldest has finished. */
GstClfftCompletion *gst_clfft_completion_new (const gchar * thread_name,
    guint max_pending, GstClfftCompletionFunc func, gpointer user_data);

/* Queues job to be finished once done (taken over; NULL: at once, after
 * the jobs before it) has completed. */
void gst_clfft_completion_push (GstClfftCompletion * c, cl_event done,
    gpointer job);

/* Waits until every job pushed so far has finished. From the completion's
 * own thread (a function that ends up here) it returns at once. */
void gst_clfft_completion_drain (GstClfftCompletion * c);

/* Drains, then stops and joins the thread. */
void gst_clfft_completion_free (GstClfftCompletion * c);

/* Waits for done (released; NULL: nothing to wait for): CL_SUCCESS, or
 * the error the wait or the command ended in. poll: poll the event for
 * a while before sleeping, for a thread with nothing else to do that
 * waits for short work. */
cl_int gst_clfft_completion_wait_event (cl_event done, gboolean poll);

G_END_DECLS

#endif

/* comm_trace.c — the transfers of a traced run (DAG_TRACE): each one is
 * recorded from the moment it is posted until it completes, by wrapping its
 * done function, whatever the transport. The timeline draws them on the
 * rank's MPI track and joins each send to its receive with an arrow.
 */
#include "comm/comm.h"

#include <pthread.h>
#include <stdlib.h>

static bool recording;

/* One transfer in flight: what to record, and whom to call. */
struct traced {
  struct comm_event event;
  comm_done_fn done;
  void *arg;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct comm_event *events; /* completed, under lock */
static size_t nevents, cap_events;

void dag__comm_trace_start(bool on) { recording = on; }

void dag__comm_trace_stop(void) {
  recording = false;
  free(events);
  events = NULL;
  nevents = cap_events = 0;
}

static void traced_done(void *p) {
  struct traced *t = p;
  t->event.done_ns = dag__now_ns();
  pthread_mutex_lock(&lock);
  events = dag__grow(events, &cap_events, nevents, sizeof *events,
                     "the trace of transfers");
  events[nevents++] = t->event;
  pthread_mutex_unlock(&lock);
  comm_done_fn done = t->done;
  void *arg = t->arg;
  free(t);
  done(arg);
}

void dag__comm_trace_wrap(bool send, const struct region *r, int peer,
                          uint64_t tag, comm_done_fn *done, void **arg) {
  if (!recording)
    return;
  struct traced *t = malloc(sizeof *t);
  if (!t)
    dag__out_of_memory("the trace of transfers");
  *t = (struct traced){
      {tag, dag__region_bytes(r), dag__now_ns(), 0, peer, send}, *done, *arg};
  *done = traced_done;
  *arg = t;
}

const struct comm_event *dag__comm_trace_events(size_t *n) {
  pthread_mutex_lock(&lock);
  *n = nevents;
  return events;
}

void dag__comm_trace_events_done(void) { pthread_mutex_unlock(&lock); }

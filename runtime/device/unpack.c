/* unpack.c — unpacking what comes back from a device, on a few threads.
 *
 * A copy from a device lands in a page-locked staging buffer (staging.c),
 * and its rows must then be copied into the program's memory: the host's
 * costly share of the copy (one core unpacks 9.4 GB/s on the H200 machine
 * we measured, where the link brings 55). The device's own thread, which
 * learns that the copy is done, would unpack a flush of gigabytes alone at
 * one core's speed; it hands each buffer to these threads instead, which
 * unpack several at once while later copies go on. A thread that waits
 * for copies from a device helps them (dag__unpack_help): at a wait, the
 * program's own thread has nothing else to do. Idle, they also pack
 * chunks of a tile on its way to a device (pack.c).
 */
#include "device/devices.h"

#include <stdlib.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static struct unpack_job *head, *tail;
static pthread_t threads[UNPACKERS];
static int nthreads;
static int idle;   /* threads waiting for a job */
static int queued; /* jobs not taken yet */
static bool stopping;

/* The first job queued, taken off the queue (the lock held), or NULL. */
static struct unpack_job *take(void) {
  struct unpack_job *job = head;
  if (job && !(head = job->next))
    tail = NULL;
  queued -= job != NULL;
  return job;
}

static void *serve(void *arg) {
  (void)arg;
  dag__log_thread("unpack");
  pthread_mutex_lock(&lock);
  for (;;) {
    while (!head && !stopping) {
      idle++;
      pthread_cond_wait(&wake, &lock);
      idle--;
    }
    struct unpack_job *job = take();
    if (!job)
      break; /* stopping, and nothing is left */
    pthread_mutex_unlock(&lock);
    job->run(job);
    pthread_mutex_lock(&lock);
  }
  pthread_mutex_unlock(&lock);
  return NULL;
}

void dag__unpack_start(void) {
  stopping = false;
  for (nthreads = 0; nthreads < UNPACKERS; nthreads++)
    if (dag__helper_start(&threads[nthreads], serve, NULL))
      break; /* fewer threads; with none, the device's thread unpacks */
}

/* Queues job and wakes a thread; with the lock held. */
static void queue(struct unpack_job *job) {
  job->next = NULL;
  if (tail)
    tail->next = job;
  else
    head = job;
  tail = job;
  queued++;
  pthread_cond_signal(&wake);
}

void dag__unpack_later(struct unpack_job *job) {
  if (!nthreads) {
    job->run(job);
    return;
  }
  pthread_mutex_lock(&lock);
  queue(job);
  pthread_mutex_unlock(&lock);
}

bool dag__unpack_if_idle(struct unpack_job *job) {
  pthread_mutex_lock(&lock);
  bool taken = idle > queued;
  if (taken)
    queue(job);
  pthread_mutex_unlock(&lock);
  return taken;
}

bool dag__unpack_help(void) {
  pthread_mutex_lock(&lock);
  struct unpack_job *job = take();
  pthread_mutex_unlock(&lock);
  if (job)
    job->run(job);
  return job;
}

void dag__unpack_stop(void) {
  pthread_mutex_lock(&lock);
  stopping = true;
  pthread_cond_broadcast(&wake);
  pthread_mutex_unlock(&lock);
  for (int i = 0; i < nthreads; i++)
    pthread_join(threads[i], NULL);
  nthreads = 0;
}

/* pack.c — packing copies into staging buffers (staging.c) and out of
 * them: the host's share of a staged copy, done by the worker that planned
 * it and by idle unpacking threads (unpack.c). In timed mode no byte
 * moves: packing takes the model's time instead.
 */
#include "device/copies.h"

#include <pthread.h>

void dag__pack_rows(const struct space_copy *c) {
  if (dag__devices_timed)
    dag__space_spend(
        dag__devices_timed, false,
        dag__space_pack_seconds(dag__devices_timed, c->span * c->rows));
  else
    dag__space_copy_rows(c);
}

/* Packs planned copy c into its buffer. */
void dag__pack_planned(const struct planned_copy *c) {
  const struct space_copy *h = &c->copy;
  dag__pack_rows(&(struct space_copy){c->stage->at, h->src, h->span, h->rows,
                                      h->span, h->src_stride});
}

/* Packing a task's chunks on several threads: one core packs a 2048-tile
 * (4 chunks of 8 MiB) in 3.5 ms on an H200 host, five
 * times the link's time for it, and the tile's first task waits for all
 * of it. Chunks go to unpacking threads (unpack.c) that are idle; the
 * worker packs the rest. Only idle ones: when every worker packs a tile
 * of its own (a step's first tasks), handing chunks round only delays
 * each task behind the others' chunks. */
struct packing {
  pthread_mutex_t lock;
  pthread_cond_t done;
  size_t left; /* chunks handed out, not packed yet */
};

struct pack_job {
  struct unpack_job job;
  const struct planned_copy *chunk;
  struct packing *all;
};

static void run_pack_job(struct unpack_job *job) {
  struct pack_job *p = (struct pack_job *)job;
  dag__pack_planned(p->chunk);
  pthread_mutex_lock(&p->all->lock);
  if (!--p->all->left)
    pthread_cond_signal(&p->all->done);
  pthread_mutex_unlock(&p->all->lock);
}

/* Hands chunk c to an idle unpacking thread; false if none is idle. */
static bool offer(struct pack_job *j, const struct planned_copy *c,
                  struct packing *all) {
  *j = (struct pack_job){{NULL, run_pack_job}, c, all};
  pthread_mutex_lock(&all->lock);
  all->left++; /* before it can run */
  pthread_mutex_unlock(&all->lock);
  if (dag__unpack_if_idle(&j->job))
    return true;
  pthread_mutex_lock(&all->lock);
  all->left--;
  pthread_mutex_unlock(&all->lock);
  return false;
}

/* Packs the copies of p that hold a staging buffer. */
void dag__pack_plan(const struct copy_plan *p) {
  struct packing all = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};
  struct pack_job jobs[UNPACKERS];
  size_t offered = 0;
  bool kept = false; /* the worker packs the first chunk itself */
  for (size_t i = 0; i < p->n; i++) {
    const struct planned_copy *c = &p->at[i];
    if (!c->stage)
      continue;
    if (kept && offered < UNPACKERS && offer(&jobs[offered], c, &all))
      offered++;
    else
      dag__pack_planned(c);
    kept = true;
  }
  pthread_mutex_lock(&all.lock);
  while (all.left)
    pthread_cond_wait(&all.done, &all.lock);
  pthread_mutex_unlock(&all.lock);
  pthread_cond_destroy(&all.done);
  pthread_mutex_destroy(&all.lock);
}

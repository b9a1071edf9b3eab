/* space_emul.c — the emulated device: a memory space that behaves as a GPU
 * does where tests can rely on it and no GPU is, and is as hostile to the
 * runtime's ordering as a GPU is.
 *
 * Memory: its own, not the host's copy: a memory file of DAG_EMUL_MEM bytes
 * cut into granules of DAG_EMUL_GRANULE bytes (2 MiB by default, what
 * cuMemGetAllocationGranularity gives on NVIDIA), each poisoned when
 * committed and mapped into reserved address ranges as CUDA's virtual
 * memory calls map theirs, so running out of device memory, one granule
 * seen at two addresses and the cost of large granules all show.
 *
 * Queues: two, as a GPU has a copy engine beside its compute engine, each
 * served by a thread of its own. Copies run in order among themselves;
 * bodies in order among themselves, each after every copy queued before it
 * (the event a GPU stream waits on); nothing else orders them, so a copy
 * queued after a body may finish before it. Each operation waits
 * DAG_EMUL_DELAY_US plus a random share of DAG_EMUL_JITTER_US (seeded by
 * DAG_EMUL_SEED) before it runs, so the interleavings the events allow
 * really happen. A done function runs on its queue's thread once its
 * operation is over; a copy's before the bodies that wait for it start.
 *
 * Failures: DAG_EMUL_FAIL=alloc:N, copy:N or kernel:N makes the Nth
 * commit, copy or body of each emulated device fail as a GPU's can; queued
 * work that fails is not done, and its done function is told why.
 *
 * Its bodies run on its compute thread, in the process's memory.
 *
 * Locking: one mutex per device guards both queues, the copy event and the
 * free granules; each thread sleeps on its queue's condition variable while
 * the queue is empty, the compute thread on `copied` while the copies its
 * body waits for run.
 */
#include "mem/space.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* What freshly committed device memory holds: reading it before a copy
 * brought anything there shows. */
#define EMUL_POISON 0xa5

struct op {
  struct op *next;
  enum { OP_COPY, OP_LAUNCH } kind;
  struct space_copy copy;
  dag_task_fn fn;
  void *args;
  uint64_t after;      /* OP_LAUNCH: copies done before it starts */
  const char *failure; /* injected: the operation fails with this */
  dag_space_done_fn done;
  void *arg;
};

struct emul;

struct queue {
  struct emul *e;
  const char *name;
  pthread_t thread;
  pthread_cond_t wake;
  struct op *head, *tail; /* queued, in order */
  unsigned seed;          /* of its jitter */
  bool started;
};

struct emul {
  int index;
  pthread_mutex_t lock;
  struct queue copies, bodies;
  uint64_t copies_queued, copies_done; /* the copy queue's event */
  pthread_cond_t copied;               /* copies_done moved */
  bool stopping;
  long delay_us, jitter_us;
  uint64_t commits, copies_seen, launches; /* counted for DAG_EMUL_FAIL */
  char failure[160];                       /* what an injected failure says */
  int fd;                                  /* the device's memory */
  char *view;     /* all of it, mapped once: for poisoning */
  size_t granule; /* bytes */
  size_t ngranules;
  uint64_t *spare; /* free granules, a stack */
  size_t nspare;
};

static void pause_before(struct queue *q) {
  struct emul *e = q->e;
  long us = e->delay_us;
  if (e->jitter_us)
    us += (long)(rand_r(&q->seed) % (unsigned)(e->jitter_us + 1));
  if (us)
    nanosleep(&(struct timespec){us / 1000000, us % 1000000 * 1000}, NULL);
}

static void run_op(const struct op *o) {
  if (o->failure)
    return;
  if (o->kind == OP_LAUNCH)
    o->fn(o->args);
  else
    dag__space_copy_rows(&o->copy);
}

static void *serve(void *p) {
  struct queue *q = p;
  struct emul *e = q->e;
  char name[24];
  snprintf(name, sizeof name, "emul%d-%s", e->index, q->name);
  dag__log_thread(name);
  pthread_mutex_lock(&e->lock);
  for (;;) {
    while (!q->head && !e->stopping)
      pthread_cond_wait(&q->wake, &e->lock);
    struct op *o = q->head;
    if (!o)
      break; /* stopping, and nothing is left */
    while (o->kind == OP_LAUNCH && e->copies_done < o->after)
      pthread_cond_wait(&e->copied, &e->lock);
    pthread_mutex_unlock(&e->lock);
    pause_before(q);
    run_op(o);
    o->done(o->arg, o->failure);
    pthread_mutex_lock(&e->lock);
    q->head = o->next;
    if (!q->head)
      q->tail = NULL;
    if (o->kind == OP_COPY) {
      e->copies_done++; /* after its done function: see space.h */
      pthread_cond_broadcast(&e->copied);
    }
    free(o);
  }
  pthread_mutex_unlock(&e->lock);
  return NULL;
}

/* As many as DAG_DEVICES names (`emul,emul` is two), which settings.c
 * caps. */
static int emul_count(char *why, size_t len) {
  (void)why;
  (void)len;
  return DAG_MAX_DEVICE_CHOICES;
}

static void free_memory(struct emul *e) {
  if (e->view)
    munmap(e->view, e->ngranules * e->granule);
  if (e->fd >= 0)
    close(e->fd);
  free(e->spare);
}

/* The memory file and its granules, all free. */
static int make_memory(struct emul *e) {
  const struct dag_settings *s = dag__settings();
  e->granule = s->emul_granule;
  e->ngranules = s->emul_memory / e->granule;
  if (!e->ngranules)
    return dag__error_note(DAG_EINVAL,
                           "emulated device %d: DAG_EMUL_MEM (%zu bytes) is "
                           "less than one granule (DAG_EMUL_GRANULE, %zu "
                           "bytes)",
                           e->index, s->emul_memory, e->granule);
  size_t bytes = e->ngranules * e->granule;
  e->fd = memfd_create("dag-emulated-device", MFD_CLOEXEC);
  e->spare = malloc(e->ngranules * sizeof *e->spare);
  if (e->fd >= 0 && e->spare && ftruncate(e->fd, (off_t)bytes) == 0)
    e->view = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, e->fd, 0);
  if (e->fd < 0 || !e->spare || !e->view || e->view == MAP_FAILED) {
    e->view = NULL;
    free_memory(e);
    return dag__error_note(DAG_ENOMEM,
                           "emulated device %d: cannot make %zu bytes of "
                           "device memory",
                           e->index, bytes);
  }
  for (size_t i = 0; i < e->ngranules; i++)
    e->spare[i] = e->ngranules - 1 - i; /* the lowest first */
  e->nspare = e->ngranules;
  return 0;
}

static int start_queue(struct emul *e, struct queue *q, const char *name,
                       unsigned seed) {
  q->e = e;
  q->name = name;
  q->seed = seed;
  pthread_cond_init(&q->wake, NULL);
  q->started = !pthread_create(&q->thread, NULL, serve, q);
  return q->started ? 0
                    : dag__error_note(DAG_ETHREAD,
                                      "emulated device %d: cannot start its "
                                      "%s thread",
                                      e->index, name);
}

static void emul_close(void *state);

static int emul_open(int index, void **state) {
  struct emul *e = calloc(1, sizeof *e);
  if (!e)
    return dag__error_note(DAG_ENOMEM, "emulated device %d: no memory", index);
  e->index = index;
  e->fd = -1;
  int err = make_memory(e);
  if (err) {
    free(e);
    return err;
  }
  const struct dag_settings *s = dag__settings();
  e->delay_us = s->emul_delay_us;
  e->jitter_us = s->emul_jitter_us;
  pthread_mutex_init(&e->lock, NULL);
  pthread_cond_init(&e->copied, NULL);
  unsigned seed =
      (unsigned)s->emul_seed * 2654435761u + 4u * (unsigned)e->index;
  err = start_queue(e, &e->copies, "copy", seed);
  if (!err)
    err = start_queue(e, &e->bodies, "compute", seed + 1);
  if (err) {
    emul_close(e);
    return err;
  }
  *state = e;
  return 0;
}

static void stop_queue(struct queue *q) {
  if (q->started)
    pthread_join(q->thread, NULL);
  pthread_cond_destroy(&q->wake);
}

static void emul_close(void *state) {
  struct emul *e = state;
  pthread_mutex_lock(&e->lock);
  e->stopping = true;
  pthread_cond_signal(&e->copies.wake);
  pthread_cond_signal(&e->bodies.wake);
  pthread_mutex_unlock(&e->lock);
  stop_queue(&e->copies);
  stop_queue(&e->bodies);
  pthread_cond_destroy(&e->copied);
  pthread_mutex_destroy(&e->lock);
  free_memory(e);
  free(e);
}

static size_t emul_memory(void *state) {
  struct emul *e = state;
  return e->ngranules * e->granule;
}

/* The emulated device copies from any memory alike: staging buffers are
 * plain, page-aligned. */
static void *emul_host_alloc(void *state, size_t bytes) {
  (void)state;
  return aligned_alloc(4096, (bytes + 4095) & ~(size_t)4095);
}

static void emul_host_free(void *state, void *p, size_t bytes) {
  (void)state;
  (void)bytes;
  free(p);
}

static size_t emul_granule(void *state) {
  return ((struct emul *)state)->granule;
}

/* Granule-aligned, as a GPU's reservations are: a larger range is mapped
 * and what lies outside the aligned part is given back. */
static void *emul_reserve(void *state, size_t bytes) {
  size_t g = ((struct emul *)state)->granule;
  char *at = mmap(NULL, bytes + g, PROT_NONE,
                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (at == MAP_FAILED)
    return NULL;
  char *aligned = (char *)(((uintptr_t)at + g - 1) & ~(uintptr_t)(g - 1));
  if (aligned > at)
    munmap(at, (size_t)(aligned - at));
  if (aligned + bytes < at + bytes + g)
    munmap(aligned + bytes, (size_t)(at + bytes + g - (aligned + bytes)));
  return aligned;
}

static void emul_unreserve(void *state, void *at, size_t bytes) {
  (void)state;
  munmap(at, bytes);
}

/* The Nth operation of a kind fails when DAG_EMUL_FAIL says so (count is
 * that kind's counter; under the lock). */
static const char *injected(struct emul *e, enum dag_emul_fail kind,
                            uint64_t *count, const char *what) {
  const struct dag_settings *s = dag__settings();
  ++*count;
  if (s->emul_fail != kind || *count != (uint64_t)s->emul_fail_at)
    return NULL;
  snprintf(e->failure, sizeof e->failure,
           "%s failed on emulated device %d (injected: DAG_EMUL_FAIL, "
           "operation %d)",
           what, e->index, s->emul_fail_at);
  return e->failure;
}

static int emul_commit(void *state, uint64_t *mem) {
  struct emul *e = state;
  pthread_mutex_lock(&e->lock);
  const char *failure =
      injected(e, EMUL_FAIL_ALLOC, &e->commits, "allocating device memory");
  bool fits = !failure && e->nspare > 0;
  if (fits)
    *mem = e->spare[--e->nspare];
  pthread_mutex_unlock(&e->lock);
  if (failure)
    return dag__error_note(DAG_EDEVICE, "%s", failure);
  if (!fits)
    return DAG_ENOMEM;
  memset(e->view + *mem * e->granule, EMUL_POISON, e->granule);
  return 0;
}

static void emul_decommit(void *state, uint64_t mem) {
  struct emul *e = state;
  pthread_mutex_lock(&e->lock);
  e->spare[e->nspare++] = mem;
  pthread_mutex_unlock(&e->lock);
}

static int emul_map(void *state, void *at, uint64_t mem) {
  struct emul *e = state;
  void *p = mmap(at, e->granule, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
                 e->fd, (off_t)(mem * e->granule));
  return p == at ? 0
                 : dag__user_error(NULL, DAG_ENOMEM,
                                   "emulated device %d: cannot map a granule",
                                   e->index);
}

/* Back to reserved addresses with nothing behind them. */
static void emul_unmap(void *state, void *at) {
  struct emul *e = state;
  mmap(at, e->granule, PROT_NONE,
       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
}

static void enqueue(struct queue *q, struct op *o) {
  o->next = NULL;
  if (q->tail)
    q->tail->next = o;
  else
    q->head = o;
  q->tail = o;
  pthread_cond_signal(&q->wake);
}

static struct op *new_op(dag_space_done_fn done, void *arg) {
  struct op *o = calloc(1, sizeof *o);
  if (!o)
    dag__out_of_memory("the emulated device's queue");
  o->done = done;
  o->arg = arg;
  return o;
}

static void emul_copy(void *state, bool to_device, const struct space_copy *c,
                      dag_space_done_fn done, void *arg) {
  struct emul *e = state;
  struct op *o = new_op(done, arg);
  o->kind = OP_COPY;
  o->copy = *c;
  pthread_mutex_lock(&e->lock);
  o->failure =
      injected(e, EMUL_FAIL_COPY, &e->copies_seen,
               to_device ? "a copy to the device" : "a copy from the device");
  e->copies_queued++;
  enqueue(&e->copies, o);
  pthread_mutex_unlock(&e->lock);
}

static void emul_launch(void *state, dag_task_fn fn, void *args,
                        dag_space_done_fn done, void *arg) {
  struct emul *e = state;
  struct op *o = new_op(done, arg);
  o->kind = OP_LAUNCH;
  o->fn = fn;
  o->args = args;
  pthread_mutex_lock(&e->lock);
  o->failure = injected(e, EMUL_FAIL_KERNEL, &e->launches, "a kernel");
  o->after = e->copies_queued;
  enqueue(&e->bodies, o);
  pthread_mutex_unlock(&e->lock);
}

const struct dag_space_ops dag__space_emul = {
    .name = "emul",
    .count = emul_count,
    .open = emul_open,
    .close = emul_close,
    .granule = emul_granule,
    .memory = emul_memory,
    .host_alloc = emul_host_alloc,
    .host_free = emul_host_free,
    .reserve = emul_reserve,
    .unreserve = emul_unreserve,
    .commit = emul_commit,
    .decommit = emul_decommit,
    .map = emul_map,
    .unmap = emul_unmap,
    .copy = emul_copy,
    .launch = emul_launch,
};

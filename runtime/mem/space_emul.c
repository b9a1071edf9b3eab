/* space_emul.c — the emulated device: a memory space with the behaviour of
 * a GPU that tests can rely on where no GPU is. Its memory is its own (not
 * the host's copy), filled with a poison byte when allocated, and capped
 * (DAG_EMUL_MEM), so that running out of device memory can be tested. Its
 * queue is served by a thread of its own, in order, after an optional
 * delay per operation (DAG_EMUL_DELAY_US), so that copies and bodies really
 * complete later than they are queued; completions wait in a list until
 * the next poll, as CUDA events do until they are queried.
 *
 * Locking: one mutex guards the queue, the completed list and the bytes in
 * use; the thread sleeps on a condition variable while the queue is empty.
 */
#include "mem/space.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* What freshly allocated device memory holds: reading it before a copy
 * brought anything there shows. */
#define EMUL_POISON 0xa5

#define EMUL_DEFAULT_MEM ((size_t)256 << 20)

struct op {
  struct op *next;
  enum { OP_COPY, OP_LAUNCH } kind;
  struct space_copy copy;
  dag_task_fn fn;
  void *args;
  dag_space_done_fn done;
  void *arg;
};

struct emul {
  pthread_mutex_t lock;
  pthread_cond_t wake;
  struct op *head, *tail; /* queued, in order */
  struct op *completed;   /* done, waiting for a poll (newest first) */
  bool stopping;
  size_t cap, used;
  long delay_us;
  pthread_t thread;
};

/* DAG_EMUL_MEM: a number of bytes, with an optional K, M or G. */
static size_t memory_cap(void) {
  const char *v = getenv("DAG_EMUL_MEM");
  if (!v || !*v)
    return EMUL_DEFAULT_MEM;
  char *end;
  errno = 0;
  unsigned long long n = strtoull(v, &end, 10);
  int shift = *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : 0;
  if (shift)
    end++;
  if (errno || *end || n == 0 || n > (SIZE_MAX >> shift)) {
    fprintf(stderr,
            "dag: warning: DAG_EMUL_MEM='%s' is not a size in bytes (with "
            "K, M or G); using 256M\n",
            v);
    return EMUL_DEFAULT_MEM;
  }
  return (size_t)n << shift;
}

static void run_op(const struct op *o) {
  if (o->kind == OP_LAUNCH) {
    o->fn(o->args);
    return;
  }
  const struct space_copy *c = &o->copy;
  for (size_t r = 0; r < c->rows; r++)
    memcpy((char *)c->dst + r * c->stride, (const char *)c->src + r * c->stride,
           c->span);
}

static void *serve(void *p) {
  struct emul *e = p;
  pthread_mutex_lock(&e->lock);
  for (;;) {
    while (!e->head && !e->stopping)
      pthread_cond_wait(&e->wake, &e->lock);
    struct op *o = e->head;
    if (!o)
      break; /* stopping, and nothing is left */
    pthread_mutex_unlock(&e->lock);
    if (e->delay_us)
      nanosleep(&(struct timespec){e->delay_us / 1000000,
                                   e->delay_us % 1000000 * 1000},
                NULL);
    run_op(o);
    pthread_mutex_lock(&e->lock);
    e->head = o->next;
    if (!e->head)
      e->tail = NULL;
    o->next = e->completed;
    e->completed = o;
  }
  pthread_mutex_unlock(&e->lock);
  return NULL;
}

static int emul_count(void) { return 1; }

static int emul_open(int index, void **state) {
  struct emul *e = calloc(1, sizeof *e);
  if (!e)
    return dag__user_error(NULL, DAG_ENOMEM, "emulated device %d: no memory",
                           index);
  pthread_mutex_init(&e->lock, NULL);
  pthread_cond_init(&e->wake, NULL);
  e->cap = memory_cap();
  e->delay_us = dag__env_long("DAG_EMUL_DELAY_US", 0, 0, 10000000);
  if (pthread_create(&e->thread, NULL, serve, e)) {
    free(e);
    return dag__user_error(NULL, DAG_ETHREAD,
                           "emulated device %d: cannot start its thread",
                           index);
  }
  *state = e;
  return 0;
}

static bool emul_poll(void *state);

static void emul_close(void *state) {
  struct emul *e = state;
  pthread_mutex_lock(&e->lock);
  e->stopping = true;
  pthread_cond_signal(&e->wake);
  pthread_mutex_unlock(&e->lock);
  pthread_join(e->thread, NULL);
  emul_poll(e); /* the last completions, and their records */
  pthread_cond_destroy(&e->wake);
  pthread_mutex_destroy(&e->lock);
  free(e);
}

static void *emul_alloc(void *state, size_t bytes) {
  struct emul *e = state;
  pthread_mutex_lock(&e->lock);
  bool fits = bytes <= e->cap - e->used;
  if (fits)
    e->used += bytes;
  pthread_mutex_unlock(&e->lock);
  void *p = fits ? malloc(bytes ? bytes : 1) : NULL;
  if (fits && !p) {
    pthread_mutex_lock(&e->lock);
    e->used -= bytes;
    pthread_mutex_unlock(&e->lock);
  }
  if (p)
    memset(p, EMUL_POISON, bytes);
  return p;
}

static void emul_free(void *state, void *p, size_t bytes) {
  struct emul *e = state;
  free(p);
  pthread_mutex_lock(&e->lock);
  e->used -= bytes;
  pthread_mutex_unlock(&e->lock);
}

static void enqueue(struct emul *e, struct op *o) {
  o->next = NULL;
  pthread_mutex_lock(&e->lock);
  if (e->tail)
    e->tail->next = o;
  else
    e->head = o;
  e->tail = o;
  pthread_cond_signal(&e->wake);
  pthread_mutex_unlock(&e->lock);
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
  (void)to_device; /* both sides are this process's memory */
  struct op *o = new_op(done, arg);
  o->kind = OP_COPY;
  o->copy = *c;
  enqueue(state, o);
}

static void emul_launch(void *state, dag_task_fn fn, void *args,
                        dag_space_done_fn done, void *arg) {
  struct op *o = new_op(done, arg);
  o->kind = OP_LAUNCH;
  o->fn = fn;
  o->args = args;
  enqueue(state, o);
}

static bool emul_poll(void *state) {
  struct emul *e = state;
  pthread_mutex_lock(&e->lock);
  struct op *done = e->completed;
  e->completed = NULL;
  pthread_mutex_unlock(&e->lock);
  /* Oldest first: the list holds the newest first. */
  struct op *in_order = NULL;
  while (done) {
    struct op *next = done->next;
    done->next = in_order;
    in_order = done;
    done = next;
  }
  bool any = in_order != NULL;
  while (in_order) {
    struct op *next = in_order->next;
    in_order->done(in_order->arg);
    free(in_order);
    in_order = next;
  }
  return any;
}

const struct dag_space_ops dag__space_emul = {
    "emul",    emul_count, emul_open,   emul_close, emul_alloc,
    emul_free, emul_copy,  emul_launch, emul_poll};

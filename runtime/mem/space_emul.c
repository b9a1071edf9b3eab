/* space_emul.c — the emulated device: a memory space with the behaviour of
 * a GPU that tests can rely on where no GPU is. Its memory is its own (not
 * the host's copy): a memory file of DAG_EMUL_MEM bytes cut into page-sized
 * granules, each poisoned when committed, mapped into reserved address
 * ranges as CUDA's virtual memory calls map theirs, so running out of
 * device memory and one granule seen at two addresses can be tested. Its
 * queue is served by a thread of its own, in order, after an optional
 * delay per operation (DAG_EMUL_DELAY_US), so that copies and bodies really
 * complete later than they are queued; that thread also calls the done
 * functions, in order.
 *
 * Locking: one mutex guards the queue and the free granules; the thread
 * sleeps on a condition variable while the queue is empty.
 */
#include "mem/space.h"

#include <fcntl.h>
#include <pthread.h>
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
  dag_space_done_fn done;
  void *arg;
};

struct emul {
  pthread_mutex_t lock;
  pthread_cond_t wake;
  struct op *head, *tail; /* queued, in order */
  bool stopping;
  long delay_us;
  pthread_t thread;
  int fd;         /* the device's memory */
  char *view;     /* all of it, mapped once: for poisoning */
  size_t granule; /* bytes */
  size_t ngranules;
  uint64_t *spare; /* free granules, a stack */
  size_t nspare;
};

static void run_op(const struct op *o) {
  if (o->kind == OP_LAUNCH) {
    o->fn(o->args);
    return;
  }
  dag__space_copy_rows(&o->copy);
}

static void *serve(void *p) {
  struct emul *e = p;
  dag__log_thread("emul");
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
    pthread_mutex_unlock(&e->lock);
    o->done(o->arg);
    free(o);
    pthread_mutex_lock(&e->lock);
  }
  pthread_mutex_unlock(&e->lock);
  return NULL;
}

static int emul_count(void) { return 1; }

static void free_memory(struct emul *e) {
  if (e->view)
    munmap(e->view, e->ngranules * e->granule);
  if (e->fd >= 0)
    close(e->fd);
  free(e->spare);
}

/* The memory file and its granules, all free. */
static int make_memory(struct emul *e, int index) {
  e->granule = (size_t)sysconf(_SC_PAGESIZE);
  e->ngranules = (dag__settings()->emul_memory + e->granule - 1) / e->granule;
  size_t bytes = e->ngranules * e->granule;
  e->fd = memfd_create("dag-emulated-device", MFD_CLOEXEC);
  e->spare = malloc(e->ngranules * sizeof *e->spare);
  if (e->fd >= 0 && e->spare && ftruncate(e->fd, (off_t)bytes) == 0)
    e->view = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, e->fd, 0);
  if (e->fd < 0 || !e->spare || !e->view || e->view == MAP_FAILED) {
    e->view = NULL;
    free_memory(e);
    return dag__user_error(NULL, DAG_ENOMEM,
                           "emulated device %d: cannot make %zu bytes of "
                           "device memory",
                           index, bytes);
  }
  for (size_t i = 0; i < e->ngranules; i++)
    e->spare[i] = e->ngranules - 1 - i; /* the lowest first */
  e->nspare = e->ngranules;
  return 0;
}

static int emul_open(int index, void **state) {
  struct emul *e = calloc(1, sizeof *e);
  if (!e)
    return dag__user_error(NULL, DAG_ENOMEM, "emulated device %d: no memory",
                           index);
  e->fd = -1;
  int err = make_memory(e, index);
  if (err) {
    free(e);
    return err;
  }
  pthread_mutex_init(&e->lock, NULL);
  pthread_cond_init(&e->wake, NULL);
  e->delay_us = dag__settings()->emul_delay_us;
  if (pthread_create(&e->thread, NULL, serve, e)) {
    free_memory(e);
    free(e);
    return dag__user_error(NULL, DAG_ETHREAD,
                           "emulated device %d: cannot start its thread",
                           index);
  }
  *state = e;
  return 0;
}

static void emul_close(void *state) {
  struct emul *e = state;
  pthread_mutex_lock(&e->lock);
  e->stopping = true;
  pthread_cond_signal(&e->wake);
  pthread_mutex_unlock(&e->lock);
  pthread_join(e->thread, NULL);
  pthread_cond_destroy(&e->wake);
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

static void *emul_reserve(void *state, size_t bytes) {
  (void)state;
  void *at = mmap(NULL, bytes, PROT_NONE,
                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return at == MAP_FAILED ? NULL : at;
}

static void emul_unreserve(void *state, void *at, size_t bytes) {
  (void)state;
  munmap(at, bytes);
}

static bool emul_commit(void *state, uint64_t *mem) {
  struct emul *e = state;
  pthread_mutex_lock(&e->lock);
  bool fits = e->nspare > 0;
  if (fits)
    *mem = e->spare[--e->nspare];
  pthread_mutex_unlock(&e->lock);
  if (fits)
    memset(e->view + *mem * e->granule, EMUL_POISON, e->granule);
  return fits;
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
                                   "emulated device: cannot map a granule");
}

/* Back to reserved addresses with nothing behind them. */
static void emul_unmap(void *state, void *at) {
  struct emul *e = state;
  mmap(at, e->granule, PROT_NONE,
       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
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

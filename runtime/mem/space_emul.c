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
 * Engines: three, as a GPU has a copy engine each way beside its compute
 * engine, each served by a thread of its own. Copies to the device run in
 * order among themselves, and so do copies from it. The compute engine has
 * SPACE_LANES lanes per urgency (a GPU's streams of two priorities), each
 * in order; it runs, of the bodies first in their lanes whose copies are
 * done (the event a GPU stream waits on), the urgent ones first, then the
 * earliest launched; with jitter, any of them. Nothing else orders them, so
 * a copy queued after a body may finish before it, a copy back before a
 * copy in, and a body before one launched earlier. Each operation waits
 * DAG_EMUL_DELAY_US plus a random share of DAG_EMUL_JITTER_US (seeded by
 * DAG_EMUL_SEED) before it runs, so the interleavings the events allow
 * really happen. A done function runs on its engine's thread once its
 * operation is over; a copy's before the bodies that wait for it start.
 *
 * Bodies: as on CUDA, a device body runs on the thread that launches it
 * and only queues work: its kernels, given to dag_emul_launch, run on the
 * compute queue, after the copies queued before the launch. Device memory
 * is for the device's own work: while a body runs at launch, the device's
 * queues pause and its memory is mapped with no access, so a body that
 * touches device memory itself faults, and the fault is reported as that.
 * Host code that reads device memory as a CUDA-aware MPI does (a direct
 * send) says so (host_reads): while it reads, launches leave the memory
 * open (a send may last until another rank's task runs, which may wait for
 * this launch: waiting for the send could deadlock two ranks).
 *
 * Timed mode (DAG_EMUL_MODEL, emul_model.h): operations take the time a
 * device model gives them instead of doing their work. A copy moves no
 * byte; a body's work is one modelled kernel (its spend method); memory is
 * the model's, reserved and never touched. Each engine keeps a timeline:
 * an operation starts when the one before it on its engine was due to end
 * (or when it was queued, or its copies were due to end, if later) and
 * sleeps until it is due to end, so the clock is the real one and a late
 * wake-up does not add up. Delays and jitter are off.
 *
 * Failures: DAG_EMUL_FAIL=alloc:N, copy:N or kernel:N makes the Nth
 * commit, copy or kernel of each emulated device fail as a GPU's can;
 * queued work that fails is not done, and its done function (a kernel's:
 * its body's) is told why.
 *
 * Locking: one mutex per device guards the engines, the copies done, the
 * gate between launches and the rest, the mappings and the free granules;
 * each thread sleeps on its engine's condition variable while nothing it
 * has is ready to run (the compute engine's is signalled when a copy in is
 * done), and everyone on `gate` while the gate is not theirs.
 */
#include "mem/emul_model.h"
#include "mem/space.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

/* What freshly committed device memory holds: reading it before a copy
 * brought anything there shows. */
#define EMUL_POISON 0xa5

struct op {
  struct op *next;
  enum { OP_COPY, OP_KERNEL, OP_BODY_END } kind;
  struct space_copy copy;
  void (*kernel)(void *);
  void *args;          /* OP_KERNEL: its copy of them */
  uint64_t after;      /* OP_KERNEL: copies done before it starts */
  uint64_t launch;     /* OP_KERNEL, OP_BODY_END: its launch's number */
  uint64_t queued_ns;  /* timed mode: when it was queued */
  double seconds;      /* timed mode: what it takes */
  const char *failure; /* injected: the operation fails with this */
  space_done_fn done;  /* OP_COPY, OP_BODY_END */
  void *arg;
};

struct emul;

/* Operations an engine runs in order: a copy engine has one lane, the
 * compute engine SPACE_LANES of urgent bodies, then as many of others. */
struct lane {
  struct op *head, *tail; /* queued, in order */
};
#define BODY_LANES (2 * SPACE_LANES)

struct engine {
  struct emul *e;
  const char *name;
  pthread_t thread;
  pthread_cond_t wake;
  struct lane *lanes;
  int nlanes;
  unsigned seed; /* of its jitter */
  bool started;
  uint64_t due_ns;  /* timed mode: when its last operation is due to end */
  uint64_t busy_ns; /* ... and the time its operations took, in all */
  uint64_t first_ns;
};

/* Timed mode: when the last copies in were due to end, by their number.
 * A kernel whose copy is no longer among them (this many copies later) has
 * long been ready: that copy does not hold its start back. */
#define COPY_ENDS 1024
struct copy_end {
  uint64_t copy, due_ns;
};

struct emul {
  int index;
  pthread_mutex_t lock;
  struct engine copies_in, copies_out, bodies;
  struct lane in_lane, out_lane, body_lanes[BODY_LANES];
  struct space_lanes urgent_waits, other_waits;
  uint64_t copies_queued, copies_done; /* copies in: the bodies' events */
  uint64_t launches_seen;              /* bodies launched */
  /* The gate: a body at launch, operations running on the queues, and
   * host code reading device memory exclude each other. */
  pthread_cond_t gate;
  bool launching, closed; /* a body runs at launch; the memory is closed */
  int running, host_readers;
  void **mapped; /* where granules are mapped, for closing them */
  size_t nmapped, mapped_cap;
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
  const struct emul_model *model; /* timed mode; NULL: off */
  struct copy_end copy_ends[COPY_ENDS];
  uint64_t bytes_in, bytes_out;
};

/* The model of DAG_EMUL_MODEL, read once for every device. */
static struct emul_model model;
static int model_err;
static char model_why[512];

static void load_model(void) {
  model_err = dag__emul_model_load(dag__settings()->emul_model, &model);
  if (model_err)
    snprintf(model_why, sizeof model_why, "%s", dag_last_error());
}

static const struct emul_model *shared_model(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  if (!dag__settings()->emul_model)
    return NULL;
  pthread_once(&once, load_model);
  return model_err ? NULL : &model;
}

/* Sleeps until `due` (dag__now_ns's clock). */
static void sleep_until(uint64_t due) {
  struct timespec t = {(time_t)(due / 1000000000u), (long)(due % 1000000000u)};
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL))
    ;
}

static void sleep_for(double seconds) {
  static DAG_THREAD_LOCAL bool sharp;
  if (!sharp) /* wake-ups within a microsecond, not Linux's 50 */
    sharp = !prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
  sleep_until(dag__now_ns() + (uint64_t)(seconds * 1e9));
}

/* Timed mode: o, chosen by q, waits until it is due to end. Under the
 * lock, which it drops while it sleeps. */
static void run_timed(struct emul *e, struct engine *q, struct op *o) {
  uint64_t start = o->queued_ns > q->due_ns ? o->queued_ns : q->due_ns;
  const struct copy_end *copied = &e->copy_ends[o->after % COPY_ENDS];
  if (o->kind == OP_KERNEL && o->after && copied->copy == o->after &&
      copied->due_ns > start)
    start = copied->due_ns;
  uint64_t took = (uint64_t)(o->seconds * 1e9);
  q->due_ns = start + took;
  q->busy_ns += took;
  if (!q->first_ns)
    q->first_ns = start;
  if (q == &e->copies_in)
    e->copy_ends[(e->copies_done + 1) % COPY_ENDS] =
        (struct copy_end){e->copies_done + 1, q->due_ns};
  pthread_mutex_unlock(&e->lock);
  sleep_until(q->due_ns);
  pthread_mutex_lock(&e->lock);
}

static void pause_before(struct engine *q) {
  struct emul *e = q->e;
  long us = e->delay_us;
  if (e->jitter_us)
    us += (long)(rand_r(&q->seed) % (unsigned)(e->jitter_us + 1));
  if (us)
    nanosleep(&(struct timespec){us / 1000000, us % 1000000 * 1000}, NULL);
}

/* Packing's jitter, in DAG_EMUL_JITTER_US: longer than the bookkeeping of
 * the device tasks that come after it (hundreds of microseconds). */
#define HOST_JITTER 10

static void emul_host_jitter(void *state) {
  const struct emul *e = state;
  static DAG_THREAD_LOCAL unsigned seed;
  static atomic_uint threads_seen;
  if (!e->jitter_us || e->model)
    return;
  if (!seed) /* per thread, from DAG_EMUL_SEED */
    seed = (unsigned)dag__settings()->emul_seed * 2654435761u +
           4u * (atomic_fetch_add(&threads_seen, 1) + 1) + 2u;
  long us = (long)(rand_r(&seed) % (unsigned)(HOST_JITTER * e->jitter_us + 1));
  nanosleep(&(struct timespec){us / 1000000, us % 1000000 * 1000}, NULL);
}

static void run_op(const struct op *o) {
  if (o->failure)
    return;
  if (o->kind == OP_KERNEL)
    o->kernel(o->args);
  else if (o->kind == OP_COPY)
    dag__space_copy_rows(&o->copy);
}

/* Whether o, first in its lane, may start: a kernel once its copies are
 * done. */
static bool ready(const struct emul *e, const struct op *o) {
  return o && (o->kind != OP_KERNEL || e->copies_done >= o->after);
}

/* The lane of q whose first operation runs next, or NULL when none may
 * start: the end of a body first (it costs nothing), then urgent lanes'
 * before others, then the earliest launched; with jitter (untimed), any. */
static struct lane *next_lane(struct engine *q) {
  struct emul *e = q->e;
  struct lane *best = NULL;
  unsigned seen = 0;
  for (int i = 0; i < q->nlanes; i++) {
    struct lane *l = &q->lanes[i];
    if (!ready(e, l->head))
      continue;
    if (e->jitter_us && !e->model) {
      if (rand_r(&q->seed) % ++seen == 0) /* each alike likely */
        best = l;
      continue;
    }
    const struct op *o = l->head, *b = best ? best->head : NULL;
    bool o_end = o->kind == OP_BODY_END, b_end = b && b->kind == OP_BODY_END;
    bool o_urgent = i < SPACE_LANES,
         b_urgent = best && best - q->lanes < SPACE_LANES;
    if (!b || o_end > b_end ||
        (o_end == b_end && (o_urgent > b_urgent ||
                            (o_urgent == b_urgent && o->launch < b->launch))))
      best = l;
  }
  return best;
}

static bool engine_empty(const struct engine *q) {
  for (int i = 0; i < q->nlanes; i++)
    if (q->lanes[i].head)
      return false;
  return true;
}

static void *serve(void *p) {
  struct engine *q = p;
  struct emul *e = q->e;
  char name[24];
  snprintf(name, sizeof name, "emul%d-%s", e->index, q->name);
  dag__log_thread(name);
  if (e->model) /* wake-ups within a microsecond, not Linux's 50 */
    prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
  pthread_mutex_lock(&e->lock);
  for (;;) {
    struct lane *l;
    while (!(l = next_lane(q)) && !(e->stopping && engine_empty(q)))
      pthread_cond_wait(&q->wake, &e->lock);
    if (!l)
      break; /* stopping, and nothing is left */
    struct op *o = l->head;
    if (e->model) {
      if (!o->failure && o->kind != OP_BODY_END)
        run_timed(e, q, o);
    } else {
      pthread_mutex_unlock(&e->lock);
      pause_before(q);
      pthread_mutex_lock(&e->lock);
    }
    while (e->launching)
      pthread_cond_wait(&e->gate, &e->lock);
    e->running++;
    pthread_mutex_unlock(&e->lock);
    if (!e->model)
      run_op(o);
    pthread_mutex_lock(&e->lock);
    e->running--;
    pthread_cond_broadcast(&e->gate);
    pthread_mutex_unlock(&e->lock);
    if (o->done)
      o->done(o->arg, o->failure);
    free(o->args);
    pthread_mutex_lock(&e->lock);
    l->head = o->next;
    if (!l->head)
      l->tail = NULL;
    if (q == &e->copies_in) {
      e->copies_done++; /* after its done function: see space.h */
      pthread_cond_signal(&e->bodies.wake);
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
  const struct settings *s = dag__settings();
  e->granule = s->emul_granule;
  e->ngranules = (e->model ? e->model->memory : s->emul_memory) / e->granule;
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

static int start_engine(struct emul *e, struct engine *q, const char *name,
                        struct lane *lanes, int nlanes, unsigned seed) {
  q->e = e;
  q->name = name;
  q->lanes = lanes;
  q->nlanes = nlanes;
  q->seed = seed;
  pthread_cond_init(&q->wake, NULL);
  q->started = !dag__helper_start(&q->thread, serve, q);
  return q->started ? 0
                    : dag__error_note(DAG_ETHREAD,
                                      "emulated device %d: cannot start its "
                                      "%s thread",
                                      e->index, name);
}

static void emul_close(void *state);
static void catch_faults(void);

static int emul_open(int index, void **state) {
  struct emul *e = calloc(1, sizeof *e);
  if (!e)
    return dag__error_note(DAG_ENOMEM, "emulated device %d: no memory", index);
  e->index = index;
  e->fd = -1;
  e->model = shared_model();
  if (dag__settings()->emul_model && !e->model) {
    free(e);
    return dag__error_note(DAG_EINVAL, "%s", model_why);
  }
  int err = make_memory(e);
  if (err) {
    free(e);
    return err;
  }
  const struct settings *s = dag__settings();
  e->delay_us = s->emul_delay_us;
  e->jitter_us = s->emul_jitter_us;
  pthread_mutex_init(&e->lock, NULL);
  pthread_cond_init(&e->gate, NULL);
  catch_faults();
  unsigned seed =
      (unsigned)s->emul_seed * 2654435761u + 4u * (unsigned)e->index;
  err = start_engine(e, &e->copies_in, "copy-in", &e->in_lane, 1, seed);
  if (!err)
    err =
        start_engine(e, &e->copies_out, "copy-out", &e->out_lane, 1, seed + 2);
  if (!err)
    err = start_engine(e, &e->bodies, "compute", e->body_lanes, BODY_LANES,
                       seed + 1);
  if (err) {
    emul_close(e);
    return err;
  }
  *state = e;
  return 0;
}

static void stop_engine(struct engine *q) {
  if (q->started)
    pthread_join(q->thread, NULL);
  pthread_cond_destroy(&q->wake);
}

static void emul_close(void *state) {
  struct emul *e = state;
  pthread_mutex_lock(&e->lock);
  e->stopping = true;
  pthread_cond_signal(&e->copies_in.wake);
  pthread_cond_signal(&e->copies_out.wake);
  pthread_cond_signal(&e->bodies.wake);
  pthread_mutex_unlock(&e->lock);
  stop_engine(&e->copies_in);
  stop_engine(&e->copies_out);
  stop_engine(&e->bodies);
  pthread_cond_destroy(&e->gate);
  pthread_mutex_destroy(&e->lock);
  free(e->mapped);
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
static const char *injected(struct emul *e, enum emul_fail kind,
                            uint64_t *count, const char *what) {
  const struct settings *s = dag__settings();
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
  if (!e->model) /* timed: reserved, never touched */
    memset(e->view + *mem * e->granule, EMUL_POISON, e->granule);
  return 0;
}

static void emul_decommit(void *state, uint64_t mem) {
  struct emul *e = state;
  pthread_mutex_lock(&e->lock);
  e->spare[e->nspare++] = mem;
  pthread_mutex_unlock(&e->lock);
}

/* One mapping per run of granules that lie one after the other in the
 * memory file (committed one after the other, they mostly do). */
static int emul_map(void *state, void *at, const uint64_t *mem, size_t n) {
  struct emul *e = state;
  pthread_mutex_lock(&e->lock);
  int access = e->closed ? PROT_NONE : PROT_READ | PROT_WRITE;
  bool mapped = true;
  for (size_t i = 0, run; mapped && i < n; i += run) {
    for (run = 1; i + run < n && mem[i + run] == mem[i] + run; run++)
      ;
    char *to = (char *)at + i * e->granule;
    mapped = mmap(to, run * e->granule, access, MAP_SHARED | MAP_FIXED, e->fd,
                  (off_t)(mem[i] * e->granule)) == to;
    e->mapped = dag__grow(e->mapped, &e->mapped_cap, e->nmapped + run,
                          sizeof *e->mapped, "the emulated device's mappings");
    for (size_t k = 0; mapped && k < run; k++)
      e->mapped[e->nmapped++] = to + k * e->granule;
  }
  pthread_mutex_unlock(&e->lock);
  return mapped ? 0
                : dag__user_error(NULL, DAG_ENOMEM,
                                  "emulated device %d: cannot map a granule",
                                  e->index);
}

/* Back to reserved addresses with nothing behind them. */
static void emul_unmap(void *state, void *at) {
  struct emul *e = state;
  pthread_mutex_lock(&e->lock);
  mmap(at, e->granule, PROT_NONE,
       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
  for (size_t i = 0; i < e->nmapped; i++)
    if (e->mapped[i] == at) {
      e->mapped[i] = e->mapped[--e->nmapped];
      break;
    }
  pthread_mutex_unlock(&e->lock);
}

/* Opens (access) or closes (PROT_NONE) every granule mapped. Under the
 * lock. */
static void set_access(struct emul *e, int access) {
  for (size_t i = 0; i < e->nmapped; i++)
    mprotect(e->mapped[i], e->granule, access);
}

static void enqueue(struct engine *q, struct lane *l, struct op *o) {
  o->next = NULL;
  if (l->tail)
    l->tail->next = o;
  else
    l->head = o;
  l->tail = o;
  pthread_cond_signal(&q->wake);
}

static struct op *new_op(space_done_fn done, void *arg) {
  struct op *o = calloc(1, sizeof *o);
  if (!o)
    dag__out_of_memory("the emulated device's queue");
  o->done = done;
  o->arg = arg;
  return o;
}

static uint64_t emul_copy(void *state, bool to_device,
                          const struct space_copy *c, space_done_fn done,
                          void *arg) {
  struct emul *e = state;
  struct op *o = new_op(done, arg);
  o->kind = OP_COPY;
  o->copy = *c;
  pthread_mutex_lock(&e->lock);
  if (e->model) {
    size_t bytes = c->span * c->rows;
    o->queued_ns = dag__now_ns();
    o->seconds = dag__emul_model_copy_seconds(e->model, to_device, bytes);
    *(to_device ? &e->bytes_in : &e->bytes_out) += bytes;
  }
  o->failure =
      injected(e, EMUL_FAIL_COPY, &e->copies_seen,
               to_device ? "a copy to the device" : "a copy from the device");
  uint64_t ticket = to_device ? ++e->copies_queued : 0;
  if (to_device)
    enqueue(&e->copies_in, &e->in_lane, o);
  else
    enqueue(&e->copies_out, &e->out_lane, o);
  pthread_mutex_unlock(&e->lock);
  return ticket;
}

/* ------------------------------------------------ bodies at launch */

/* The launch whose body runs on this thread: where dag_emul_launch queues
 * its kernels. */
struct launch {
  struct emul *e;
  struct lane *lane;
  uint64_t after;      /* the copies its kernels wait for */
  uint64_t number;     /* among launches */
  const char *failure; /* of a kernel it queued, injected */
};
static DAG_THREAD_LOCAL struct launch *launching_here;

/* A fault while a body runs at launch, at an address of the device's
 * memory (closed then), is the body touching that memory: said as such.
 * Other faults, such as a null pointer in the body, go to the handler there
 * was. */
static struct sigaction fault_before;

/* Whether `at` lies in a granule mapped on e. Safe in the handler: the
 * launching worker holds the devices' lock, so nothing maps or unmaps. */
static bool in_device_memory(const struct emul *e, uintptr_t at) {
  for (size_t i = 0; i < e->nmapped; i++)
    if (at - (uintptr_t)e->mapped[i] < e->granule)
      return true;
  return false;
}

static void on_fault(int sig, siginfo_t *info, void *context) {
  if (launching_here && launching_here->e->closed &&
      in_device_memory(launching_here->e, (uintptr_t)info->si_addr)) {
    /* Only what is safe in a signal handler: write, and the address in
     * hexadecimal by hand. */
    static const char say[] = "dag: error: a device body touched memory at 0x";
    static const char why[] =
        " while it ran at launch, its emulated device's memory closed: a "
        "device body only queues work on the device (dag_emul_launch; on "
        "CUDA, kernels on dag_cuda_stream())\n";
    char hex[16];
    uintptr_t at = (uintptr_t)info->si_addr;
    for (int i = 15; i >= 0; i--, at >>= 4)
      hex[i] = "0123456789abcdef"[at & 15];
    (void)!write(STDERR_FILENO, say, sizeof say - 1);
    (void)!write(STDERR_FILENO, hex, sizeof hex);
    (void)!write(STDERR_FILENO, why, sizeof why - 1);
    _exit(1);
  }
  if (fault_before.sa_flags & SA_SIGINFO && fault_before.sa_sigaction) {
    fault_before.sa_sigaction(sig, info, context);
    return;
  }
  /* The default action: fault again, without us. */
  sigaction(SIGSEGV, &fault_before, NULL);
}

static void install_fault_handler(void) {
  struct sigaction sa = {.sa_sigaction = on_fault, .sa_flags = SA_SIGINFO};
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, &fault_before);
}

static void catch_faults(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, install_fault_handler);
}

/* Queues kernel o of the launch l in its lane, after the copies it waits
 * for; an injected failure is the launch's. */
static void queue_kernel(struct launch *l, struct op *o) {
  struct emul *e = l->e;
  o->kind = OP_KERNEL;
  o->after = l->after;
  o->launch = l->number;
  pthread_mutex_lock(&e->lock);
  o->failure = injected(e, EMUL_FAIL_KERNEL, &e->launches, "a kernel");
  if (o->failure)
    l->failure = o->failure;
  enqueue(&e->bodies, l->lane, o);
  pthread_mutex_unlock(&e->lock);
}

static int emul_kernel(void *state, void (*kernel)(void *args),
                       const void *args, size_t size) {
  (void)state; /* the launch running here says which device */
  struct launch *l = launching_here;
  if (!l || !kernel || (size && !args))
    return dag__user_error(NULL, DAG_EINVAL, "dag_emul_launch: %s",
                           l ? "no kernel, or its arguments at NULL"
                             : "not in a device body running on the "
                               "emulated device");
  struct op *o = new_op(NULL, NULL);
  if (size && !(o->args = malloc(size)))
    dag__out_of_memory("the emulated device's queue");
  if (size)
    memcpy(o->args, args, size);
  o->kernel = kernel;
  queue_kernel(l, o);
  return 0;
}

static void emul_spend(void *state, bool on_device, double seconds) {
  (void)state;
  if (!on_device) {
    sleep_for(seconds);
    return;
  }
  struct launch *l = launching_here;
  if (!l || !l->e->model) {
    dag__user_error(NULL, DAG_EINVAL,
                    "emul_spend: not in a device body running on a timed "
                    "emulated device");
    return;
  }
  struct op *o = new_op(NULL, NULL);
  o->seconds = seconds;
  o->queued_ns = dag__now_ns();
  queue_kernel(l, o);
}

static const char *emul_model_name(void *state) {
  const struct emul *e = state;
  return e->model ? e->model->name : NULL;
}

static double emul_work_seconds(void *state, const char *label, bool on_device,
                                double work) {
  const struct emul *e = state;
  return dag__emul_model_seconds(e->model, label, on_device, work);
}

static double emul_pack_seconds(void *state, size_t bytes) {
  const struct emul *e = state;
  return e->model->pack_bytes_per_s > 0
             ? dag__emul_model_pack_seconds(e->model, bytes)
             : -1;
}

/* When the first operation of e started (0: none did), and when the last
 * is due to end. */
static void span_of(const struct emul *e, uint64_t *first, uint64_t *last) {
  const struct engine *engines[] = {&e->copies_in, &e->copies_out, &e->bodies};
  *first = *last = 0;
  for (size_t i = 0; i < sizeof engines / sizeof *engines; i++) {
    const struct engine *q = engines[i];
    if (q->first_ns && (!*first || q->first_ns < *first))
      *first = q->first_ns;
    if (q->due_ns > *last)
      *last = q->due_ns;
  }
}

static void emul_timing(void *state, struct space_timing *t) {
  struct emul *e = state;
  pthread_mutex_lock(&e->lock);
  *t = (struct space_timing){.compute_busy_ns = e->bodies.busy_ns,
                             .copy_in_busy_ns = e->copies_in.busy_ns,
                             .copy_out_busy_ns = e->copies_out.busy_ns,
                             .bytes_in = e->bytes_in,
                             .bytes_out = e->bytes_out};
  span_of(e, &t->first_ns, &t->last_ns);
  pthread_mutex_unlock(&e->lock);
}

/* The lane of a body of this urgency that waits for copies up to after
 * (space.c). Under the lock. */
static struct lane *lane_for(struct emul *e, uint64_t after, bool urgent) {
  struct lane *lanes = e->body_lanes + (urgent ? 0 : SPACE_LANES);
  bool busy[SPACE_LANES];
  for (int i = 0; i < SPACE_LANES; i++)
    busy[i] = lanes[i].head;
  return &lanes[dag__space_lane(urgent ? &e->urgent_waits : &e->other_waits,
                                busy, after)];
}

/* Runs the body here, its device's memory closed and its engines paused,
 * then queues the end of its work: done once its kernels are. */
static void emul_launch(void *state, dag_task_fn fn, void *args, uint64_t after,
                        bool urgent, space_done_fn done, void *arg) {
  struct emul *e = state;
  struct launch l = {e, NULL, after, 0, NULL};
  pthread_mutex_lock(&e->lock);
  while (e->launching || e->running)
    pthread_cond_wait(&e->gate, &e->lock);
  e->launching = true;
  /* Timed, no body runs at launch: nothing to guard (closing every granule
   * mapped would cost the host time that a GPU does not). */
  e->closed = !e->host_readers && !e->model;
  if (e->closed)
    set_access(e, PROT_NONE);
  l.lane = lane_for(e, after, urgent);
  l.number = ++e->launches_seen;
  pthread_mutex_unlock(&e->lock);
  struct launch *outer = launching_here;
  launching_here = &l;
  fn(args);
  launching_here = outer;
  struct op *end = new_op(done, arg);
  end->kind = OP_BODY_END;
  pthread_mutex_lock(&e->lock);
  end->failure = l.failure;
  end->launch = l.number;
  if (e->closed)
    set_access(e, PROT_READ | PROT_WRITE);
  e->launching = e->closed = false;
  enqueue(&e->bodies, l.lane, end);
  pthread_cond_broadcast(&e->gate);
  pthread_mutex_unlock(&e->lock);
}

static void emul_host_reads(void *state, bool begin) {
  struct emul *e = state;
  pthread_mutex_lock(&e->lock);
  while (begin && e->closed)
    pthread_cond_wait(&e->gate, &e->lock);
  e->host_readers += begin ? 1 : -1;
  pthread_cond_broadcast(&e->gate);
  pthread_mutex_unlock(&e->lock);
}

const struct space_ops dag__space_emul = {
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
    .host_reads = emul_host_reads,
    .model = emul_model_name,
    .work_seconds = emul_work_seconds,
    .spend = emul_spend,
    .pack_seconds = emul_pack_seconds,
    .timing = emul_timing,
    .kernel = emul_kernel,
    .host_jitter = emul_host_jitter,
};

/* emul_queues.c — the emulated device's engines (space_emul.c): the
 * operations queued on it, the threads that run them, and the bodies it
 * runs at launch.
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
 * DAG_EMUL_SEED) before it runs (emul_faults.c), so the interleavings the
 * events allow really happen. A done function runs on its engine's thread
 * once its operation is over; a copy's before the bodies that wait for it
 * start.
 *
 * Bodies: as on CUDA, a device body runs on the thread that launches it
 * and only queues work: its kernels, given to dag_emul_launch, run on the
 * compute queue, after the copies queued before the launch. Device memory
 * is for the device's own work: while a body runs at launch, the device's
 * queues pause and its memory is mapped with no access, so a body that
 * touches device memory itself faults, and the fault is reported as that
 * (emul_faults.c). Host code that reads device memory as a CUDA-aware MPI
 * does (a direct send) says so (host_reads): while it reads, launches leave
 * the memory open (a send may last until another rank's task runs, which
 * may wait for this launch: waiting for the send could deadlock two ranks).
 *
 * Timed mode: a copy moves no byte; a body's work is one modelled kernel
 * (spend). Each engine keeps a timeline: an operation starts when the one
 * before it on its engine was due to end (or when it was queued, or its
 * copies were due to end, if later) and sleeps until it is due to end, so
 * the clock is the real one and a late wake-up does not add up. Delays and
 * jitter are off.
 *
 * Locking: the device's mutex (emul.h); each thread sleeps on its engine's
 * condition variable while nothing it has is ready to run (the compute
 * engine's is signalled when a copy in is done), and everyone on `gate`
 * while the gate is not theirs.
 */
#include "mem/emul.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>

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
static void run_timed(struct emul *e, struct engine *q, struct emul_op *o) {
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

/* Whether the host side of copy o is page-locked: it was when queued, and
 * still is. */
static bool host_side_pinned(const struct emul_op *o, bool to_device) {
  const struct space_copy *c = &o->copy;
  const void *at = to_device ? c->src : c->dst;
  size_t stride = to_device ? c->src_stride : c->dst_stride;
  return dag__emul_pinned(at, (c->rows - 1) * stride + c->span);
}

static void run_op(const struct emul_op *o) {
  if (o->failure)
    return;
  if (o->kind == OP_KERNEL)
    o->kernel(o->args);
  else if (o->kind == OP_COPY)
    dag__space_copy_rows(&o->copy);
}

/* Whether o, first in its lane, may start: a kernel once its copies are
 * done. */
static bool ready(const struct emul *e, const struct emul_op *o) {
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
    const struct emul_op *o = l->head, *b = best ? best->head : NULL;
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
    struct emul_op *o = l->head;
    if (e->model) {
      if (!o->failure && o->kind != OP_BODY_END)
        run_timed(e, q, o);
    } else {
      pthread_mutex_unlock(&e->lock);
      dag__emul_pause(q);
      pthread_mutex_lock(&e->lock);
    }
    while (e->launching)
      pthread_cond_wait(&e->gate, &e->lock);
    e->running++;
    pthread_mutex_unlock(&e->lock);
    if (o->kind == OP_COPY && o->pinned && !o->failure &&
        !host_side_pinned(o, o->to_device))
      o->failure = "a copy of page-locked host memory ran after the memory "
                   "was unregistered";
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

int dag__emul_start_engine(struct emul *e, struct engine *q, const char *name,
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

void dag__emul_stop_engine(struct engine *q) {
  if (q->started)
    pthread_join(q->thread, NULL);
  pthread_cond_destroy(&q->wake);
}

static void enqueue(struct engine *q, struct lane *l, struct emul_op *o) {
  o->next = NULL;
  if (l->tail)
    l->tail->next = o;
  else
    l->head = o;
  l->tail = o;
  pthread_cond_signal(&q->wake);
}

static struct emul_op *new_op(space_done_fn done, void *arg) {
  struct emul_op *o = calloc(1, sizeof *o);
  if (!o)
    dag__out_of_memory("the emulated device's queue");
  o->done = done;
  o->arg = arg;
  return o;
}

uint64_t dag__emul_copy(void *state, bool to_device, const struct space_copy *c,
                        space_done_fn done, void *arg) {
  struct emul *e = state;
  struct emul_op *o = new_op(done, arg);
  o->kind = OP_COPY;
  o->copy = *c;
  o->to_device = to_device;
  o->pinned = host_side_pinned(o, to_device);
  pthread_mutex_lock(&e->lock);
  if (e->model) {
    size_t bytes = c->span * c->rows;
    o->queued_ns = dag__now_ns();
    o->seconds =
        dag__emul_model_copy_seconds(e->model, to_device, bytes, o->pinned);
    *(to_device ? &e->bytes_in : &e->bytes_out) += bytes;
  }
  o->failure = dag__emul_injected(e, EMUL_FAIL_COPY, &e->copies_seen,
                                  to_device ? "a copy to the device"
                                            : "a copy from the device");
  uint64_t ticket = to_device ? ++e->copies_queued : 0;
  if (to_device)
    enqueue(&e->copies_in, &e->in_lane, o);
  else
    enqueue(&e->copies_out, &e->out_lane, o);
  pthread_mutex_unlock(&e->lock);
  return ticket;
}

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

struct emul *dag__emul_launching(void) {
  return launching_here ? launching_here->e : NULL;
}

/* Queues kernel o of the launch l in its lane, after the copies it waits
 * for; an injected failure is the launch's. */
static void queue_kernel(struct launch *l, struct emul_op *o) {
  struct emul *e = l->e;
  o->kind = OP_KERNEL;
  o->after = l->after;
  o->launch = l->number;
  pthread_mutex_lock(&e->lock);
  o->failure =
      dag__emul_injected(e, EMUL_FAIL_KERNEL, &e->launches, "a kernel");
  if (o->failure)
    l->failure = o->failure;
  enqueue(&e->bodies, l->lane, o);
  pthread_mutex_unlock(&e->lock);
}

int dag__emul_kernel(void *state, void (*kernel)(void *args), const void *args,
                     size_t size) {
  (void)state; /* the launch running here says which device */
  struct launch *l = launching_here;
  if (!l || !kernel || (size && !args))
    return dag__user_error(NULL, DAG_EINVAL, "dag_emul_launch: %s",
                           l ? "no kernel, or its arguments at NULL"
                             : "not in a device body running on the "
                               "emulated device");
  struct emul_op *o = new_op(NULL, NULL);
  if (size && !(o->args = malloc(size)))
    dag__out_of_memory("the emulated device's queue");
  if (size)
    memcpy(o->args, args, size);
  o->kernel = kernel;
  queue_kernel(l, o);
  return 0;
}

void dag__emul_spend(void *state, bool on_device, double seconds) {
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
  struct emul_op *o = new_op(NULL, NULL);
  o->seconds = seconds;
  o->queued_ns = dag__now_ns();
  queue_kernel(l, o);
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

void dag__emul_timing(void *state, struct space_timing *t) {
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
void dag__emul_launch(void *state, dag_task_fn fn, void *args, uint64_t after,
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
    dag__emul_set_access(e, PROT_NONE);
  l.lane = lane_for(e, after, urgent);
  l.number = ++e->launches_seen;
  pthread_mutex_unlock(&e->lock);
  struct launch *outer = launching_here;
  launching_here = &l;
  fn(args);
  launching_here = outer;
  struct emul_op *end = new_op(done, arg);
  end->kind = OP_BODY_END;
  pthread_mutex_lock(&e->lock);
  end->failure = l.failure;
  end->launch = l.number;
  if (e->closed)
    dag__emul_set_access(e, PROT_READ | PROT_WRITE);
  e->launching = e->closed = false;
  enqueue(&e->bodies, l.lane, end);
  pthread_cond_broadcast(&e->gate);
  pthread_mutex_unlock(&e->lock);
}

void dag__emul_host_reads(void *state, bool begin) {
  struct emul *e = state;
  pthread_mutex_lock(&e->lock);
  while (begin && e->closed)
    pthread_cond_wait(&e->gate, &e->lock);
  e->host_readers += begin ? 1 : -1;
  pthread_cond_broadcast(&e->gate);
  pthread_mutex_unlock(&e->lock);
}

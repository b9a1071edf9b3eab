/* choose.c — where a task with a choice runs (a device variant, or a body
 * for a device), decided when it is ready: which variant, on which device
 * or on the CPU.
 *
 * Each candidate (the task's function and each `implements` variant, on
 * each device that runs its kind, or on the CPU) is given the time it is
 * expected to end: its own mean time for this function and size of data,
 * as measured, after the work queued before it there and the copies its
 * data needs. The earliest wins, as StarPU's dmda scheduler does. The work
 * queued on a device is the expected time of what the chooser sent there
 * and has not finished, and so are its copies in, at the rate its copies
 * have run; a device copies while it computes, so a task there starts
 * when both its queue's work and its copies, after those queued, are
 * done. On the CPU, the work queued is shared by the workers, and a
 * worker's copies back come before its work. Each finished task takes
 * back exactly what its choice added, so the estimate never drifts.
 *
 * A candidate is measured once MEASURED runs have finished; the first does
 * not count in its mean, since it pays the set-up of the libraries its body
 * calls (a cuBLAS handle, a first kernel load). A candidate not measured
 * yet is explored: chosen while fewer than MEASURED of its tasks are under
 * way, the least tried first and a device before the CPU on a tie, so that
 * every variant gets measured without a flood of tasks sent to it before
 * its results. Once one candidate is measured, those still being explored
 * are passed over. While none is measured and all are being explored, the
 * task waits, up to BLIND_WAIT_NS, for a device's exploration to finish: it
 * takes milliseconds, where a blind run on the CPU may take a core for
 * hundreds (a tile's trsm on one core). Past that, or with no device's
 * under way, the CPU runs it: a worker that runs it is busy until it is
 * done, so such blind choices are at most one per worker, where a device's
 * queue would take every ready task at once. With DAG_HISTORY, what earlier
 * runs measured is taken as measured (history_file.c), and nothing is
 * explored.
 */
#include "device/choose.h"
#include "device/call.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Runs that make a candidate measured, and tasks of an unmeasured one
 * under way at once. */
#define MEASURED 2

/* The longest a task with no measured candidate waits for a device's
 * exploration: about what a blind run of a tile on one core costs (10 to
 * 300 ms); a first cuBLAS call may take longer, and the CPU runs it then. */
#define BLIND_WAIT_NS 100000000

/* Copies are assumed to move this many bytes per ns (PCIe-class) until a
 * device's have been measured, and from a device to the host. */
#define COPY_BYTES_PER_NS 10.0

/* Bytes per ns of d's copies in, as measured; the prior counts as one
 * millisecond of copying. With 10 GB/s for a link of 53 (the timed H200),
 * a step's 70 tiles queued looked like 250 ms of copies, and the panel's
 * potrf went to a CPU core instead (60 ms). */
static double copy_in_rate(struct device *d) {
  double ns = (double)atomic_load(&d->copy_in_ns) + 1e6;
  return ((double)atomic_load(&d->copy_in_bytes) + COPY_BYTES_PER_NS * 1e6) /
         ns;
}

/* ------------------------------------------------------------- history */

/* Measured run times: the mean time per (function, size class of its
 * data), in a small table. */
#define HISTORY_SLOTS 1024

struct run_times {
  dag_task_fn fn;
  int size_class;
  uint32_t runs;      /* measured */
  uint32_t under_way; /* chosen, not finished */
  double mean_ns;
  /* What DAG_HISTORY knows it by, from its first choice on. */
  bool named;
  const char *label, *file;
  int line, variant;
  const char *place;
};

static struct run_times table[HISTORY_SLOTS];
static pthread_mutex_t history_lock = PTHREAD_MUTEX_INITIALIZER;
/* A run finished: what blind choices wait for (monotonic clock). */
static pthread_cond_t history_moved;
static pthread_once_t history_moved_once = PTHREAD_ONCE_INIT;

static void make_history_moved(void) {
  pthread_condattr_t a;
  pthread_condattr_init(&a);
  pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
  pthread_cond_init(&history_moved, &a);
  pthread_condattr_destroy(&a);
}

/* The expected time of what the chooser sent to the CPU and has not
 * finished, in ns. */
static _Atomic int64_t cpu_expected_work_ns;

static int size_class(size_t bytes) {
  return bytes ? 64 - __builtin_clzll((unsigned long long)bytes) : 0;
}

/* The slot of (fn, bytes' class), claimed if free; NULL when the table is
 * full. Under history_lock. */
static struct run_times *history_slot(dag_task_fn fn, size_t bytes) {
  int cls = size_class(bytes);
  size_t h = ((uintptr_t)fn >> 4) * 31 + (size_t)cls;
  for (size_t i = 0; i < HISTORY_SLOTS; i++) {
    struct run_times *s = &table[(h + i) % HISTORY_SLOTS];
    if (s->fn == fn && s->size_class == cls)
      return s;
    if (!s->fn) {
      s->fn = fn;
      s->size_class = cls;
      return s;
    }
  }
  return NULL;
}

/* Under history_lock: a choice waiting blind looks again. */
static void history_moves(void) {
  pthread_once(&history_moved_once, make_history_moved);
  pthread_cond_broadcast(&history_moved);
}

void dag__history_note(dag_task_fn fn, size_t bytes, uint64_t ns) {
  pthread_mutex_lock(&history_lock);
  struct run_times *s = history_slot(fn, bytes);
  history_moves();
  if (s && s->runs++ > 0) { /* the first run pays set-up: not counted */
    uint32_t n = s->runs - 1;
    s->mean_ns += ((double)ns - s->mean_ns) / (n < 16 ? n : 16);
  }
  pthread_mutex_unlock(&history_lock);
}

/* ---------------------------------------------------------- DAG_HISTORY */

static const char *const on_cpu = "cpu";

/* s's key in the file: the task's name, the variant, where it runs. */
static void key_of(const struct run_times *s, struct history_record *k) {
  memset(k, 0, sizeof *k);
  k->size_class = s->size_class;
  k->variant = s->variant;
  snprintf(k->place, sizeof k->place, "%s", s->place);
  dag__task_name(k->name, sizeof k->name, s->label, s->file, s->line);
}

/* Names s, at its first choice, as variant `variant` of c on d (NULL: the
 * CPU), and takes what earlier runs measured of it. Under history_lock. */
static void name(struct run_times *s, const struct call *c, int variant,
                 const struct device *d) {
  s->named = true;
  s->label = c->label;
  s->file = c->file;
  s->line = c->line;
  s->variant = variant;
  s->place = d ? d->place : on_cpu;
  struct history_record key;
  key_of(s, &key);
  const struct history_record *r = dag__history_file_find(&key);
  if (r && s->runs == 0) {
    s->runs = r->runs > MEASURED ? r->runs : MEASURED;
    s->mean_ns = r->mean_ns;
  }
}

void dag__history_start(void) {
  const char *path = dag__settings()->history;
  if (path)
    dag__history_file_load(path);
}

void dag__history_stop(void) {
  const char *path = dag__settings()->history;
  if (!path)
    return;
  struct history_record *rs = malloc(HISTORY_SLOTS * sizeof *rs);
  if (!rs)
    dag__out_of_memory("the chooser's history");
  size_t n = 0;
  pthread_mutex_lock(&history_lock);
  for (size_t i = 0; i < HISTORY_SLOTS; i++)
    if (table[i].named && table[i].runs >= MEASURED) {
      key_of(&table[i], &rs[n]);
      rs[n].runs = table[i].runs;
      rs[n++].mean_ns = table[i].mean_ns;
    }
  pthread_mutex_unlock(&history_lock);
  if (dag__history_file_save(path, rs, n))
    dag__log(DAG_LOG_WARN, "%s", dag_last_error());
  free(rs);
  dag__history_file_release();
}

/* ----------------------------------------------------------- candidates */

/* Bytes that a task's reads would copy to each space: [0] the host, [1 +
 * d] device d. */
struct lacking {
  size_t bytes[1 + MAX_DEVICES];
};

static void count_lacking(uintptr_t lo, uintptr_t hi, holders_t h, void *arg) {
  struct lacking *l = arg;
  if (!(h & HOST))
    l->bytes[0] += hi - lo;
  for (int d = 0; d < dag__ndevices; d++)
    if (!(h & dag__devices[d].bit))
      l->bytes[1 + d] += hi - lo;
}

/* One walk of c's reads for every space at once. */
static void to_copy(struct call *c, struct lacking *l) {
  memset(l, 0, sizeof *l);
  const struct region *regs = dag__call_regions(c);
  const enum dag_mode *modes = dag__call_modes(c);
  pthread_mutex_lock(&dag__devices_lock);
  for (size_t i = 0; i < c->n; i++) {
    holders_t h;
    if (modes[i] == DAG_OUT)
      continue;
    if (dag__validity_whole(&regs[i], &h)) {
      count_lacking(0, dag__region_bytes(&regs[i]), h, l);
      continue;
    }
    struct ranges parts = {.mask = 0, .want = 0}; /* every range */
    dag__validity_collect(&regs[i], &parts);
    for (size_t k = 0; k < parts.n; k++)
      count_lacking(parts.at[k].lo, parts.at[k].hi, parts.at[k].holders, l);
    free(parts.at);
  }
  pthread_mutex_unlock(&dag__devices_lock);
}

static double nonnegative(int64_t ns) { return ns > 0 ? (double)ns : 0; }

/* When a task on d whose copies take copy_ns can start: a device copies
 * while it computes, so after the work queued there or after the copies
 * queued and its own, whichever ends last. Their sum, the estimate
 * before, made a device behind a step's copies look busy for all of
 * them: with every ready task chosen at once, a Cholesky's panel went to
 * a CPU core for 60 ms. */
static double device_start_ns(struct device *d, double copy_ns) {
  double work = nonnegative(atomic_load(&d->expected_work_ns)),
         copies = nonnegative(atomic_load(&d->expected_copy_ns)) + copy_ns;
  return work > copies ? work : copies;
}

/* A candidate, as the chooser sees it. */
struct option {
  dag_task_fn fn;
  struct device *device; /* NULL: the CPU */
  bool measured;
  uint32_t under_way;
  double own_ns;        /* its mean */
  double copy_ns;       /* its copies */
  double end_ns;        /* its end, after the work queued before it */
  bool device_explored; /* the best so far: a device's run is under way */
};

/* Whether a is a better choice than b (b may be empty: fn NULL). */
static bool better(const struct option *a, const struct option *b) {
  if (!b->fn)
    return true;
  bool a_explores = !a->measured && a->under_way < MEASURED;
  bool b_explores = !b->measured && b->under_way < MEASURED;
  if (a_explores != b_explores)
    return a_explores;
  if (a_explores) /* the least tried; a device first */
    return a->under_way != b->under_way ? a->under_way < b->under_way
                                        : a->device && !b->device;
  if (a->measured != b->measured)
    return a->measured;
  if (!a->measured) /* none measured, none to explore: the CPU */
    return !a->device && b->device;
  return a->end_ns < b->end_ns;
}

/* Under history_lock. */
static void consider(struct option *best, struct call *c, int variant,
                     struct device *d, const struct lacking *l) {
  dag_task_fn fn = dag__call_variants(c)[variant].fn;
  struct option o = {fn, d, false, 0, 0, 0, 0, false};
  struct run_times *s = history_slot(fn, c->bytes);
  if (s && !s->named)
    name(s, c, variant, d);
  if (s) {
    o.measured = s->runs >= MEASURED;
    o.under_way = s->under_way;
    o.own_ns = s->mean_ns;
  }
  o.copy_ns = (double)l->bytes[d ? 1 + (d - dag__devices) : 0] /
              (d ? copy_in_rate(d) : COPY_BYTES_PER_NS);
  o.end_ns = o.own_ns +
             (d ? device_start_ns(d, o.copy_ns)
                : o.copy_ns + nonnegative(atomic_load(&cpu_expected_work_ns)) /
                                  (double)dag__workers_count());
  bool device_explored = best->device_explored || (d && o.under_way);
  if (better(&o, best))
    *best = o;
  best->device_explored = device_explored;
}

/* The best of c's candidates, with l the bytes its reads lack where.
 * Under history_lock. */
static struct option best_of(struct call *c, const struct lacking *l) {
  struct option best = {0};
  const struct call_variant *variants = dag__call_variants(c);
  for (uint32_t i = 0; i < c->nvariants; i++) {
    if (variants[i].kind == DAG_DEVICE_CPU) {
      consider(&best, c, (int)i, NULL, l);
      continue;
    }
    for (int k = 0; k < dag__ndevices; k++)
      if (dag__device_runs(&dag__devices[k], variants[i].kind))
        consider(&best, c, (int)i, &dag__devices[k], l);
  }
  return best;
}

/* Waits, under history_lock, until a run finishes or until `until`
 * (dag__now_ns); false if it had passed. */
static bool wait_for_a_run(uint64_t until) {
  if (dag__now_ns() >= until)
    return false;
  struct timespec t = {(time_t)(until / 1000000000u),
                       (long)(until % 1000000000u)};
  pthread_once(&history_moved_once, make_history_moved);
  pthread_cond_timedwait(&history_moved, &history_lock, &t);
  return true;
}

/* The choice and its count under way are made under one hold of
 * history_lock: two workers that each saw one exploration of the CPU
 * under way would otherwise both start a second (three blind runs). */
void dag__choose(struct call *c) {
  struct lacking l;
  to_copy(c, &l);
  uint64_t until = dag__now_ns() + BLIND_WAIT_NS;
  pthread_mutex_lock(&history_lock);
  struct option best = best_of(c, &l);
  while (!best.measured && best.under_way >= MEASURED && best.device_explored &&
         wait_for_a_run(until))
    best = best_of(c, &l);
  struct run_times *s = history_slot(best.fn, c->bytes);
  if (s)
    s->under_way++;
  pthread_mutex_unlock(&history_lock);
  c->fn = best.fn;
  c->device = best.device;
  c->expected_ns = (int64_t)best.own_ns;
  c->expected_copy_ns = (int64_t)best.copy_ns;
  if (best.device) {
    atomic_fetch_add(&best.device->expected_work_ns, c->expected_ns);
    atomic_fetch_add(&best.device->expected_copy_ns, c->expected_copy_ns);
  } else {
    atomic_fetch_add(&cpu_expected_work_ns,
                     c->expected_ns + c->expected_copy_ns);
  }
}

void dag__choice_done(const struct call *c) {
  if (c->device) {
    atomic_fetch_sub(&c->device->expected_work_ns, c->expected_ns);
    atomic_fetch_sub(&c->device->expected_copy_ns, c->expected_copy_ns);
  } else {
    atomic_fetch_sub(&cpu_expected_work_ns,
                     c->expected_ns + c->expected_copy_ns);
  }
  pthread_mutex_lock(&history_lock);
  struct run_times *s = history_slot(c->fn, c->bytes);
  if (s && s->under_way)
    s->under_way--;
  history_moves();
  pthread_mutex_unlock(&history_lock);
}

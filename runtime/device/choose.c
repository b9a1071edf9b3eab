/* choose.c — where a task with a choice runs (a device variant, or a body
 * for a device), decided when it is ready: which variant, on which device
 * or on the CPU.
 *
 * Each candidate (the task's function and each `implements` variant, on
 * each device that runs its kind, or on the CPU) is given the time it is
 * expected to end: its own time for this function and size of data, after
 * the work queued before it there and the copies its data needs. The
 * earliest wins, as StarPU's dmda scheduler does. The work queued on a
 * device is the expected time of what the chooser sent there and has not
 * finished, and so are its copies in, at the rate its copies have run; a
 * device copies while it computes, so a task there starts when both its
 * queue's work and its copies, after those queued, are done. On the CPU,
 * the work queued is shared by the workers, and a worker's copies back
 * come before its work. Each finished task takes back exactly what its
 * choice added, so the estimate never drifts.
 *
 * A candidate's own time is its mean as measured, once a run has been
 * counted; the first run of a function on each worker is not, since it
 * pays the set-up of the libraries its body calls (a cuBLAS handle, a
 * first kernel load). Before that, a task that declares its work has an
 * estimate: the work over the place's rate (estimate.c: the model's when
 * timed, else the device's peak and a core's, measured at start, both
 * optimistic; then the rate the function achieved). The rule: a candidate
 * not measured whose estimate is LOSES_BY times away from the time of
 * every other candidate (measured, or estimated), above or below, is
 * settled: the estimate decides as a measure would, and it is not
 * explored. A cold Cholesky on a GPU so never runs a tile on a CPU core to
 * learn it takes 500 times longer there. Candidates with no time, or
 * whose times are near each other's (a tie), are explored, as follows.
 *
 * A candidate explored is chosen while fewer than EXPLORING of its tasks
 * are under way, the least tried first and a device before the CPU on a
 * tie, so that every variant gets measured without a flood of tasks sent
 * to it before its results. Once one candidate has a time, those still
 * being explored are passed over. While none has and all are being
 * explored, the task waits, up to BLIND_WAIT_NS, for a device's
 * exploration to finish: it takes milliseconds, where a blind run on the
 * CPU may take a core for hundreds (a tile's trsm on one core). Past that,
 * or with no device's under way, the CPU runs it: a worker that runs it is
 * busy until it is done, so such blind choices are at most one per worker,
 * where a device's queue would take every ready task at once. What earlier
 * runs measured, kept in DAG_HISTORY's file (history_file.c; by default
 * one per machine and devices in the user's cache folder, history_path.c),
 * is taken as measured.
 */
#include "device/call.h"
#include "device/run_times.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Tasks of a candidate being explored under way at once. */
#define EXPLORING 2

/* How many times longer (or shorter) than every other candidate's time a
 * candidate's estimate must be to settle it: estimates are optimistic
 * (peaks), and a measured time holds a device's set-up. */
#define LOSES_BY 4.0

/* Candidates compared for a task; more are not looked at. */
#define MAX_OPTIONS 32

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

/* The expected time of what the chooser sent to the CPU and has not
 * finished, in ns. */
static _Atomic int64_t cpu_expected_work_ns;

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
  bool settled; /* not measured, but its estimate decides (choose.c's top) */
  uint32_t under_way;
  double own_ns;      /* its mean, else its estimate (0: none) */
  double estimate_ns; /* < 0: none */
  double copy_ns;     /* its copies */
  double end_ns;      /* its end, after the work queued before it */
};

static bool known(const struct option *o) { return o->measured || o->settled; }

static bool explores(const struct option *o) {
  return !known(o) && o->under_way < EXPLORING;
}

/* Whether a is a better choice than b (b may be empty: fn NULL). */
static bool better(const struct option *a, const struct option *b) {
  if (!b->fn)
    return true;
  bool a_explores = explores(a), b_explores = explores(b);
  if (a_explores != b_explores)
    return a_explores;
  if (a_explores) /* the least tried; a device first */
    return a->under_way != b->under_way ? a->under_way < b->under_way
                                        : a->device && !b->device;
  if (known(a) != known(b))
    return known(a);
  if (!known(a)) /* none has a time, none to explore: the CPU */
    return !a->device && b->device;
  return a->end_ns < b->end_ns;
}

/* Variant `variant` of c on d, with l the bytes its reads lack where.
 * Under dag__run_times_lock. */
static struct option option_of(struct call *c, int variant, struct device *d,
                               const struct lacking *l) {
  dag_task_fn fn = dag__call_variants(c)[variant].fn;
  struct option o = {.fn = fn, .device = d, .estimate_ns = -1};
  struct run_times *s = dag__run_times_slot(fn, c->bytes);
  if (s && !s->named)
    dag__run_times_name(s, c, variant, d);
  if (s) {
    o.measured = s->runs > 0;
    o.under_way = s->under_way;
    o.own_ns = s->mean_ns;
  }
  if (!o.measured) {
    o.estimate_ns = dag__estimate_ns(c, fn, d);
    o.own_ns = o.estimate_ns > 0 ? o.estimate_ns : 0;
  }
  o.copy_ns = (double)l->bytes[d ? 1 + (d - dag__devices) : 0] /
              (d ? copy_in_rate(d) : COPY_BYTES_PER_NS);
  o.end_ns = o.own_ns +
             (d ? device_start_ns(d, o.copy_ns)
                : o.copy_ns + nonnegative(atomic_load(&cpu_expected_work_ns)) /
                                  (double)dag__workers_count());
  return o;
}

/* Settles each of o[0..n) that its estimate sets LOSES_BY apart from every
 * other's time (choose.c's top). */
static void settle(struct option *o, int n) {
  for (int i = 0; i < n; i++) {
    double e = o[i].estimate_ns;
    bool apart = !o[i].measured && e > 0;
    for (int j = 0; apart && j < n; j++) {
      double t = o[j].measured ? o[j].own_ns : o[j].estimate_ns;
      apart = j == i || (t > 0 && (e >= LOSES_BY * t || t >= LOSES_BY * e));
    }
    o[i].settled = apart;
  }
}

/* The best of c's candidates, with l the bytes its reads lack where;
 * *device_explored: a device's exploration is under way. Under
 * dag__run_times_lock. */
static struct option best_of(struct call *c, const struct lacking *l,
                             bool *device_explored) {
  struct option o[MAX_OPTIONS];
  int n = 0;
  const struct call_variant *variants = dag__call_variants(c);
  for (uint32_t i = 0; i < c->nvariants && n < MAX_OPTIONS; i++) {
    if (variants[i].kind == DAG_DEVICE_CPU) {
      o[n++] = option_of(c, (int)i, NULL, l);
      continue;
    }
    for (int k = 0; k < dag__ndevices && n < MAX_OPTIONS; k++)
      if (dag__device_runs(&dag__devices[k], variants[i].kind))
        o[n++] = option_of(c, (int)i, &dag__devices[k], l);
  }
  settle(o, n);
  struct option best = {0};
  *device_explored = false;
  for (int i = 0; i < n; i++) {
    *device_explored |= o[i].device && o[i].under_way;
    if (better(&o[i], &best))
      best = o[i];
  }
  return best;
}

/* The choice and its count under way are made under one hold of
 * dag__run_times_lock: two workers that each saw one exploration of the CPU
 * under way would otherwise both start a second (three blind runs). */
void dag__choose(struct call *c) {
  struct lacking l;
  to_copy(c, &l);
  uint64_t until = dag__now_ns() + BLIND_WAIT_NS;
  pthread_mutex_lock(&dag__run_times_lock);
  bool device_explored;
  struct option best = best_of(c, &l, &device_explored);
  while (!known(&best) && best.under_way >= EXPLORING && device_explored &&
         dag__run_times_wait(until))
    best = best_of(c, &l, &device_explored);
  struct run_times *s = dag__run_times_slot(best.fn, c->bytes);
  if (s)
    s->under_way++;
  pthread_mutex_unlock(&dag__run_times_lock);
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
  pthread_mutex_lock(&dag__run_times_lock);
  struct run_times *s = dag__run_times_slot(c->fn, c->bytes);
  if (s && s->under_way)
    s->under_way--;
  dag__run_times_moved();
  pthread_mutex_unlock(&dag__run_times_lock);
}

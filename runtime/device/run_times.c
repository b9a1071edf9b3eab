/* run_times.c — what the chooser (choose.c) knows of each candidate: the
 * times its runs took, as a mean per (function, size class of its data) in
 * a small table, and how many of its tasks are under way; kept across runs
 * in DAG_HISTORY's file (history_file.c), read when the devices open and
 * written when they close. The first run of a function on each worker is
 * not counted: it pays the set-up of the libraries its body calls.
 *
 * Locking: dag__run_times_lock guards the table, the first runs, and the
 * condition that blind choices wait on.
 */
#include "device/run_times.h"
#include "device/call.h"

#include "core/core.h" /* dag__stats */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Measured run times: the mean time per (function, size class of its
 * data), in a small table. */
#define HISTORY_SLOTS 1024

static struct run_times table[HISTORY_SLOTS];
pthread_mutex_t dag__run_times_lock = PTHREAD_MUTEX_INITIALIZER;
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

static int size_class(size_t bytes) {
  return bytes ? 64 - __builtin_clzll((unsigned long long)bytes) : 0;
}

/* The slot of (fn, bytes' class), claimed if free; NULL when the table is
 * full. Under dag__run_times_lock. */
struct run_times *dag__run_times_slot(dag_task_fn fn, size_t bytes) {
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

void dag__run_times_moved(void) {
  pthread_once(&history_moved_once, make_history_moved);
  pthread_cond_broadcast(&history_moved);
}

/* Functions that have run on each worker: (fn, worker) pairs. */
#define FIRST_RUNS_SLOTS 4096
static struct first_run {
  dag_task_fn fn;
  int worker;
} first_runs[FIRST_RUNS_SLOTS];

/* Whether this is fn's first run on worker w (then remembered). Once the
 * table is full, no run is a first. Under dag__run_times_lock. */
static bool first_on_worker(dag_task_fn fn, int w) {
  size_t h = ((uintptr_t)fn >> 4) * 31 + (size_t)w * 7919;
  for (size_t i = 0; i < FIRST_RUNS_SLOTS; i++) {
    struct first_run *f = &first_runs[(h + i) % FIRST_RUNS_SLOTS];
    if (f->fn == fn && f->worker == w)
      return false;
    if (!f->fn) {
      *f = (struct first_run){fn, w};
      return true;
    }
  }
  return false;
}

void dag__history_note(const struct call *c, int worker, uint64_t ns) {
  pthread_mutex_lock(&dag__run_times_lock);
  dag__run_times_moved();
  bool counted = !first_on_worker(c->fn, worker);
  struct run_times *s = counted ? dag__run_times_slot(c->fn, c->bytes) : NULL;
  if (s) {
    uint32_t n = ++s->runs;
    s->mean_ns += ((double)ns - s->mean_ns) / (n < 16 ? n : 16);
  }
  pthread_mutex_unlock(&dag__run_times_lock);
  if (counted)
    dag__estimate_note(c->fn, c->work, ns);
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
 * CPU), and takes what earlier runs measured of it. */
void dag__run_times_name(struct run_times *s, const struct call *c, int variant,
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
    s->runs = r->runs ? r->runs : 1;
    s->mean_ns = r->mean_ns;
  }
}

/* The file of measured times ("": none), and how many it held when read
 * (-1: there was none, a first run). */
static char history_path[4096];
static long history_read = -1;

void dag__history_start(void) {
  dag__estimate_start();
  const char *given = dag__settings()->history;
  history_path[0] = 0;
  if (given && !strcmp(given, "off"))
    return;
  if (given)
    snprintf(history_path, sizeof history_path, "%s", given);
  else if (!dag__history_default_path(history_path, sizeof history_path))
    return;
  history_read = dag__history_file_load(history_path);
  if (history_read < 0)
    dag__log(DAG_LOG_INFO, "a first run: no measured times in %s",
             history_path);
}

/* DAG_STATS: whether the run started from measured times, and where they
 * are kept. */
static void write_stats(size_t written) {
  if (!history_path[0])
    dag__log(DAG_LOG_REPORT, "stats: history: none kept (DAG_HISTORY=off)");
  else if (history_read < 0 && !written)
    dag__log(DAG_LOG_REPORT,
             "stats: history: a first run, and nothing measured: no file "
             "written to %s",
             history_path);
  else if (history_read < 0)
    dag__log(DAG_LOG_REPORT,
             "stats: history: a first run, with no measured times (the "
             "chooser started from declared work and rates); %zu written to "
             "%s",
             written, history_path);
  else
    dag__log(DAG_LOG_REPORT,
             "stats: history: %ld measured times read from %s, %zu written "
             "back",
             history_read, history_path, written);
}

void dag__history_stop(void) {
  dag__estimate_stop();
  size_t n = 0;
  pthread_mutex_lock(&dag__run_times_lock);
  for (size_t i = 0; i < HISTORY_SLOTS; i++)
    n += table[i].named && table[i].runs;
  pthread_mutex_unlock(&dag__run_times_lock);
  /* A run with nothing measured (no task with a choice) leaves no file. */
  if (history_path[0] && (n || history_read >= 0)) {
    n = 0;
    struct history_record *rs = malloc(HISTORY_SLOTS * sizeof *rs);
    if (!rs)
      dag__out_of_memory("the chooser's history");
    pthread_mutex_lock(&dag__run_times_lock);
    for (size_t i = 0; i < HISTORY_SLOTS; i++)
      if (table[i].named && table[i].runs) {
        key_of(&table[i], &rs[n]);
        rs[n].runs = table[i].runs;
        rs[n++].mean_ns = table[i].mean_ns;
      }
    pthread_mutex_unlock(&dag__run_times_lock);
    if (dag__history_file_save(history_path, rs, n))
      dag__log(DAG_LOG_WARN, "%s", dag_last_error());
    free(rs);
    dag__history_file_release();
  }
  if (dag__stats)
    write_stats(n);
}

bool dag__run_times_wait(uint64_t until) {
  if (dag__now_ns() >= until)
    return false;
  struct timespec t = {(time_t)(until / 1000000000u),
                       (long)(until % 1000000000u)};
  pthread_once(&history_moved_once, make_history_moved);
  pthread_cond_timedwait(&history_moved, &dag__run_times_lock, &t);
  return true;
}

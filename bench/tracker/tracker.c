/* bench/tracker — does submission stay fast when the history is long?
 *
 * Measures the cost of submitting one task with one inout access on fresh
 * data (nothing to wait for), after H earlier tasks on unrelated data, for
 * growing H, in two situations:
 *  - "done": the H earlier tasks have all run (the usual case: history of
 *    completed tasks must be forgotten, so the cost must not grow at all);
 *  - "live": the H earlier tasks are still waiting (held back by a gate
 *    task), so the tracker really holds H records; an interval tree makes
 *    the lookup O(log H).
 * In both, the timed tasks wait behind a gate task (run by the second
 * worker) so that only submission is timed; they run in the final
 * taskwait. Also prints the memory a live task costs (one inout access,
 * 16 bytes of arguments), from the growth of the peak RSS while a million
 * tasks wait.
 *
 * Usage: tracker [--json FILE]
 */
#define _POSIX_C_SOURCE 200809L

#include <dag.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void nop(void *args) { (void)args; }

static void wait_for_gate(void *args) {
  volatile int *gate = *(int **)args;
  while (!*gate)
    ;
}

static const struct dag_task_info task_info = {.fn = nop, .label = "touch"};

static void submit_inout(double *x) {
  struct dag_access a = dag_access_of(DAG_INOUT, dag_region_1d(x, sizeof *x));
  dag_submit(&task_info, NULL, 0, &a, 1);
}

/* Holds back every task touching data[from, to) until the gate opens. */
static void submit_gate(volatile int *gate, double *from, double *to) {
  struct dag_task_info gi = {.fn = wait_for_gate, .label = "gate"};
  struct dag_access a = dag_access_of(
      DAG_IN, dag_region_1d(from, (size_t)(to - from) * sizeof *from));
  dag_submit(&gi, &gate, sizeof gate, &a, 1);
}

/* Submits `history` tasks on data[0..history), then times `probe` more on
 * fresh data. The timed tasks wait behind a gate; with `live`, the history
 * does too, so the tracker holds all of it while we time. The main thread
 * must not run the gate task itself, so it never waits while the gate is
 * closed: the other worker takes it. */
static double probe_us(double *data, size_t history, size_t probe, bool live) {
  static volatile int gate;
  gate = 0;
  if (live)
    submit_gate(&gate, data, data + history + probe);
  for (size_t i = 0; i < history; i++)
    submit_inout(&data[i]);
  if (!live) {
    dag_taskwait(); /* the history is complete before we probe */
    submit_gate(&gate, data + history, data + history + probe);
  }
  double t0 = now();
  for (size_t i = 0; i < probe; i++)
    submit_inout(&data[history + i]);
  double t1 = now();
  gate = 1;
  dag_taskwait();
  return (t1 - t0) / (double)probe * 1e6;
}

static long peak_rss_kib(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

/* Bytes per waiting task: n tasks with one inout access each, held back by
 * a gate, against the peak RSS before. data must hold n doubles, touched. */
static double bytes_per_live_task(double *data, size_t n) {
  static volatile int gate;
  gate = 0;
  long before = peak_rss_kib();
  submit_gate(&gate, data, data + n);
  struct dag_task_info info = {.fn = nop, .label = "live"};
  for (size_t i = 0; i < n; i++) {
    struct dag_access a =
        dag_access_of(DAG_INOUT, dag_region_1d(&data[i], sizeof data[i]));
    double args[2] = {(double)i, 0};
    dag_submit(&info, args, sizeof args, &a, 1);
  }
  long after = peak_rss_kib();
  gate = 1;
  dag_taskwait();
  return (double)(after - before) * 1024.0 / (double)n;
}

int main(int argc, char **argv) {
  const char *json = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--json") && i + 1 < argc)
      json = argv[++i];
    else {
      fprintf(stderr, "usage: %s [--json FILE]\n", argv[0]);
      return 2;
    }
  }
  /* One worker spins in the gate while the main thread submits. */
  setenv("DAG_NUM_THREADS", "2", 0);
  static const size_t histories[] = {0, 1000, 10000, 100000, 1000000};
  const size_t probe = 10000;
  size_t most = histories[sizeof histories / sizeof histories[0] - 1];
  double *data = calloc(most + probe, sizeof *data);
  FILE *out = json ? fopen(json, "a") : NULL;
  if (!data || (json && !out)) {
    perror("tracker");
    return 1;
  }
  /* Memory first, while the peak RSS is still that of the data alone. */
  memset(data, 0, (most + probe) * sizeof *data);
  double live_bytes = bytes_per_live_task(data, most);
  printf("memory: %.0f bytes per live task (one access, 16 bytes of args)\n",
         live_bytes);
  printf("%-10s %14s %14s\n", "history", "done us/task", "live us/task");
  for (size_t k = 0; k < sizeof histories / sizeof histories[0]; k++) {
    size_t h = histories[k];
    double best_done = 1e9, best_live = 1e9;
    for (int rep = 0; rep < 3; rep++) {
      double d = probe_us(data, h, probe, false);
      double l = probe_us(data, h, probe, true);
      best_done = d < best_done ? d : best_done;
      best_live = l < best_live ? l : best_live;
    }
    printf("%-10zu %14.3f %14.3f\n", h, best_done, best_live);
    if (out) {
      fprintf(out,
              "{\"bench\":\"tracker\",\"runtime\":\"dag\",\"metric\":"
              "\"submit_after_%zu_done\",\"value\":%.4f,\"unit\":\"us\"}\n",
              h, best_done);
      fprintf(out,
              "{\"bench\":\"tracker\",\"runtime\":\"dag\",\"metric\":"
              "\"submit_after_%zu_live\",\"value\":%.4f,\"unit\":\"us\"}\n",
              h, best_live);
    }
  }
  if (out) {
    fprintf(out,
            "{\"bench\":\"tracker\",\"runtime\":\"dag\",\"metric\":"
            "\"bytes_per_live_task\",\"value\":%.1f,\"unit\":\"B\"}\n",
            live_bytes);
    fclose(out);
  }
  free(data);
  return 0;
}

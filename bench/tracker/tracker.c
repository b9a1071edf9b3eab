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
 * tasks wait; and the cost of submitting the tasks of a tiled Cholesky
 * (three tile accesses each) while all of them wait, for 16 to 64 tiles
 * per row: the index of tiles on rows and columns (runtime/history.c)
 * keeps a tile's lookup from meeting the other live tiles of its rows.
 *
 * Usage: tracker [--json FILE]
 */
#define _POSIX_C_SOURCE 200809L

#include <dag.h>
#include <harness.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
  double t0 = bench_now();
  for (size_t i = 0; i < probe; i++)
    submit_inout(&data[history + i]);
  double t1 = bench_now();
  gate = 1;
  dag_taskwait();
  return (t1 - t0) / (double)probe * 1e6;
}

/* µs per task to submit a tiled Cholesky's tasks on an n x n matrix of
 * b x b tiles (every update task: reads two tiles, writes one) while a gate
 * holds all of them back. The matrix is never touched. */
static double tiles_us(int n, int b) {
  static volatile int gate;
  gate = 0;
  double *a = malloc((size_t)n * n * sizeof *a);
  if (!a)
    return -1;
  submit_gate(&gate, a, a + (size_t)n * n);
  size_t ld = (size_t)n * sizeof *a, row = (size_t)b * sizeof *a;
  int nt = n / b;
  long tasks = 0;
  double t0 = bench_now();
  for (int k = 0; k < nt; k++)
    for (int i = k; i < nt; i++)
      for (int j = k; j <= i; j++) {
        struct dag_access acc[3] = {
            {DAG_IN, dag_region_2d(a + (size_t)i * b * n + k * b, b, row, ld)},
            {DAG_IN, dag_region_2d(a + (size_t)j * b * n + k * b, b, row, ld)},
            {DAG_INOUT,
             dag_region_2d(a + (size_t)i * b * n + j * b, b, row, ld)}};
        dag_submit(&task_info, NULL, 0, acc, 3);
        tasks++;
      }
  double t1 = bench_now();
  gate = 1;
  dag_taskwait();
  free(a);
  return (t1 - t0) / (double)tasks * 1e6;
}

/* Bytes per waiting task: n tasks with one inout access each, held back by
 * a gate, against the peak RSS before. data must hold n doubles, touched. */
static double bytes_per_live_task(double *data, size_t n) {
  static volatile int gate;
  gate = 0;
  long before = bench_peak_rss_kib();
  submit_gate(&gate, data, data + n);
  struct dag_task_info info = {.fn = nop, .label = "live"};
  for (size_t i = 0; i < n; i++) {
    struct dag_access a =
        dag_access_of(DAG_INOUT, dag_region_1d(&data[i], sizeof data[i]));
    double args[2] = {(double)i, 0};
    dag_submit(&info, args, sizeof args, &a, 1);
  }
  long after = bench_peak_rss_kib();
  gate = 1;
  dag_taskwait();
  return (double)(after - before) * 1024.0 / (double)n;
}

/* Appends the record of one metric: its name the format metric with arg,
 * its value printed with the format of unit. */
#define record(json, metric, arg, value, unit)                                 \
  bench_record(json,                                                           \
               "{\"bench\":\"tracker\",\"runtime\":\"dag\",\"metric\":"        \
               "\"" metric "\",\"value\":" unit "}",                           \
               arg, value)
#define US "%.4f,\"unit\":\"us\""
#define BYTES "%.1f,\"unit\":\"B\""

int main(int argc, char **argv) {
  const char *json = NULL;
  const struct bench_opt opts[] = {
      BENCH_OPT("--json", BENCH_STRING, &json, 0, 0), BENCH_OPT_END};
  int rc = bench_args(argc, argv, opts, "bench_tracker [--json FILE]");
  if (rc >= 0)
    return rc;
  /* One worker spins in the gate while the main thread submits. */
  setenv("DAG_NUM_THREADS", "2", 0);
  static const size_t histories[] = {0, 1000, 10000, 100000, 1000000};
  const size_t probe = 10000;
  size_t most = histories[sizeof histories / sizeof histories[0] - 1];
  double *data = calloc(most + probe, sizeof *data);
  if (!data) {
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
    record(json, "submit_after_%zu_done", h, best_done, US);
    record(json, "submit_after_%zu_live", h, best_live, US);
  }
  static const int tile_grids[][2] = {
      {2048, 128}, {4096, 256}, {4096, 128}, {8192, 128}};
  for (size_t k = 0; k < sizeof tile_grids / sizeof tile_grids[0]; k++) {
    int n = tile_grids[k][0], b = tile_grids[k][1];
    double us = tiles_us(n, b);
    printf("tiles: %d x %d tiles (n=%d, b=%d), all waiting: %.3f us/task\n",
           n / b, n / b, n, b, us);
    char metric[64];
    snprintf(metric, sizeof metric, "submit_tiles_%dx%d_live", n / b, n / b);
    record(json, "%s", metric, us, US);
  }
  record(json, "%s", "bytes_per_live_task", live_bytes, BYTES);
  free(data);
  return 0;
}

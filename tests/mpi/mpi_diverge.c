/* mpi_diverge: a program whose ranks submit different tasks, on purpose.
 * The run must stop (exit non-zero) within seconds, never hang, and every
 * rank must name on stderr the first task that differs, with its label and
 * source line. Written against the API; run under mpiexec with 2 or more
 * ranks, through expect_failure.sh:
 *
 *   mpi_diverge extra     rank 1 submits one task more ('extra'), which
 *                         reads a block homed on rank 0 (rank 1 would wait
 *                         for a transfer that rank 0 never plans);
 *   mpi_diverge region    rank 1 submits the same task ('update') with a
 *                         region of another size;
 *   mpi_diverge free      as extra, then every rank calls dag_free instead
 *                         of taskwait (the wait for the block's tasks must
 *                         not hang rank 1);
 *   mpi_diverge phase     a phase of 4 million 10 us tasks without a wait
 *                         (20 s and more), in which rank 1 submits 'extra'
 *                         after the first 100,000: the check every 100,000
 *                         tasks must stop the run long before the phase
 *                         could end and its taskwait find it.
 *
 * The divergence comes after tasks that moved data and a taskwait that
 * agreed; it is found at the next taskwait (or at once, per task, with
 * DAG_CHECK_UNIFORMITY=1). The lines the messages must name are marked
 * with @markers@ that the test's patterns refer to. Exits 0 only if the
 * runtime missed the divergence. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <dag.h>

enum { BLOCK = 256, BLOCKS = 8 };

#define PHASE_TASKS 4000000L
#define PHASE_DIVERGES 100000L

struct args {
  double *x;
  int n;
  double v;
};

static void set(void *p) {
  const struct args *a = p;
  for (int i = 0; i < a->n; i++)
    a->x[i] = a->v + i;
}

static void add(void *p) {
  const struct args *a = p;
  for (int i = 0; i < a->n; i++)
    a->x[i] += a->v;
}

static void submit(dag_task_fn fn, const char *label, int line, double *x,
                   int n, enum dag_mode mode, const double *also) {
  struct args a = {x, n, 1.0};
  struct dag_access acc[2] = {
      {mode, dag_region_1d(x, (size_t)n * sizeof *x)},
      {DAG_IN, dag_region_1d(also, BLOCK * sizeof *also)}};
  struct dag_task_info info = {
      .fn = fn, .label = label, .file = __FILE__, .line = line};
  dag_check(dag_submit(&info, &a, sizeof a, acc, also ? 2 : 1));
}

/* A 10 us task. */
static void step(void *p) {
  (void)p;
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  do
    clock_gettime(CLOCK_MONOTONIC, &t);
  while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) <
         10000);
}

/* The long phase: rank 1's extra task comes after PHASE_DIVERGES. */
static void long_phase(int rank, double *x, double *small) {
  struct dag_task_info info = {.fn = step, .label = "step"};
  for (long i = 0; i < PHASE_TASKS; i++) {
    if (i == PHASE_DIVERGES && rank == 1)
      submit(add, "extra", __LINE__, small, 64, DAG_INOUT, x); /* @phase@ */
    dag_check(dag_submit(&info, NULL, 0, NULL, 0));
  }
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  int freeing = strcmp(mode, "free") == 0;
  int extra = freeing || strcmp(mode, "extra") == 0,
      region = strcmp(mode, "region") == 0, phase = strcmp(mode, "phase") == 0;
  if (!extra && !region && !phase) {
    fprintf(stderr, "usage: mpi_diverge extra|region|free|phase\n");
    return 2;
  }
  int rank = dag_rank(), nranks = dag_nranks();
  if (nranks < 2) {
    fprintf(stderr, "mpi_diverge: needs 2 ranks or more\n");
    return 2;
  }
  double *x = dag_alloc(BLOCK * BLOCKS * sizeof *x,
                        dag_dist_block_cyclic(sizeof *x, BLOCK));
  double small[64] = {0};
  if (!x)
    return 1;
  /* Agreed work, with transfers: fill every block at its home, then add
   * the next block into each. */
  for (int b = 0; b < BLOCKS; b++)
    submit(set, "fill", __LINE__, x + b * BLOCK, BLOCK, DAG_OUT, NULL);
  for (int b = 0; b + 1 < BLOCKS; b++)
    submit(add, "mix", __LINE__, x + b * BLOCK, BLOCK, DAG_INOUT,
           x + (b + 1) * BLOCK);
  dag_check(dag_taskwait());

  if (phase)
    long_phase(rank, x, small);
  /* Tasks 1 and 2 after the taskwait agree; task 3 differs. */
  submit(add, "before", __LINE__, small, 64, DAG_INOUT, NULL);
  submit(add, "before", __LINE__, x + 3 * BLOCK, BLOCK, DAG_INOUT, NULL);
  if (extra && rank == 1)
    submit(add, "extra", __LINE__, small, 64, DAG_INOUT, x); /* @extra@ */
  int n = region && rank == 1 ? 32 : 64;
  submit(add, "update", __LINE__, small, n, DAG_INOUT, NULL); /* @update@ */
  submit(add, "after", __LINE__, x + 5 * BLOCK, BLOCK, DAG_INOUT, NULL);
  fprintf(stderr, "mpi_diverge: rank %d of %d submitted its tasks (%s)\n", rank,
          nranks, mode);
  if (freeing)
    dag_free(x);
  else
    dag_taskwait();
  fprintf(stderr, "mpi_diverge: rank %d: the runtime missed the divergence\n",
          rank);
  if (!freeing)
    dag_free(x);
  return 0;
}

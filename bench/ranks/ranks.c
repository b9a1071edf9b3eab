/* ranks: what rank-uniform planning costs one rank as the run grows.
 *
 * Submits the task stream of a tiled Cholesky on an nt x nt tile matrix,
 * distributed 2-D block-cyclic over the ranks, with empty task bodies, and
 * times the submission on this rank, twice. Run it under
 * DAG_SIMULATE_RANKS=N (one process playing rank 0 of N; see docs/mpi.md)
 * for N from 16 to 4096: it prints the submission cost per task of each
 * pass; DAG_STATS=1 adds the messages this rank plans.
 * The runner run-ranks does the loop and the JSON records.
 *
 *   ranks [tiles] */
#include <dag.h>
#include <harness.h>
#include <stdio.h>
#include <stdlib.h>

static void nothing(void *args) { (void)args; }

enum { TILE = 8 }; /* elements: the data is never touched */

static struct dag_region tile(double *a, int n, int i, int j) {
  return dag_region_2d(a + (size_t)i * TILE * n + (size_t)j * TILE, TILE,
                       TILE * sizeof(double), (size_t)n * sizeof(double));
}

static void submit(const char *label, struct dag_access *acc, size_t nacc) {
  struct dag_task_info info = {.fn = nothing, .label = label};
  dag_check(dag_submit(&info, NULL, 0, acc, nacc));
}

/* Submits the task stream of a tiled Cholesky on the nt x nt tiles of a
 * (order n); returns the number of tasks. */
static long cholesky_stream(double *a, int n, int nt) {
  long tasks = 0;
  for (int k = 0; k < nt; k++) {
    struct dag_access potrf[] = {{DAG_INOUT, tile(a, n, k, k)}};
    submit("potrf", potrf, 1), tasks++;
    for (int i = k + 1; i < nt; i++) {
      struct dag_access trsm[] = {{DAG_IN, tile(a, n, k, k)},
                                  {DAG_INOUT, tile(a, n, i, k)}};
      submit("trsm", trsm, 2), tasks++;
    }
    for (int i = k + 1; i < nt; i++) {
      for (int j = k + 1; j < i; j++) {
        struct dag_access gemm[] = {{DAG_IN, tile(a, n, i, k)},
                                    {DAG_IN, tile(a, n, j, k)},
                                    {DAG_INOUT, tile(a, n, i, j)}};
        submit("gemm", gemm, 3), tasks++;
      }
      struct dag_access syrk[] = {{DAG_IN, tile(a, n, i, k)},
                                  {DAG_INOUT, tile(a, n, i, i)}};
      submit("syrk", syrk, 2), tasks++;
    }
  }
  return tasks;
}

int main(int argc, char **argv) {
  int nt = argc > 1 ? atoi(argv[1]) : 48;
  int n = nt * TILE, p, q;
  dag_grid(dag_nranks(), &p, &q);
  double *a =
      dag_alloc((size_t)n * n * sizeof(double),
                dag_dist_2d(sizeof(double), (size_t)n, TILE, TILE, p, q));
  if (!a)
    return 1;
  /* Twice: the first pass meets every tile for the first time (and grows
   * the runtime's tables); the second is the steady state of an iterative
   * program. */
  double ns[2];
  long tasks = 0;
  for (int pass = 0; pass < 2; pass++) {
    double t0 = bench_now();
    tasks = cholesky_stream(a, n, nt);
    ns[pass] = 1e9 * (bench_now() - t0) / (double)tasks;
    dag_check(dag_taskwait_noflush());
  }
  printf("ranks=%d grid=%dx%d tiles=%d tasks=%ld submit_ns_per_task=%.1f "
         "warm_ns_per_task=%.1f\n",
         dag_nranks(), p, q, nt, tasks, ns[0], ns[1]);
  return 0;
}

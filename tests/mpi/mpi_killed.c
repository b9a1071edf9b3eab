/* mpi_killed: a rank dies mid-run (rank 1 sends itself SIGKILL from a task
 * body) while the other ranks wait for data from it. They must not hang:
 * the run must end, non-zero, within seconds. Written against the API; run
 * under mpiexec with 2 or more ranks, through expect_failure.sh.
 *
 * Block b of x is homed on rank b % nranks. Every rank fills its blocks;
 * the task that fills a block of rank 1 kills rank 1 (after 200 ms, so the
 * others are already waiting). Then each rank's task reads the block
 * before its own, which for rank 2 (or rank 0 with 2 ranks) is a block of
 * rank 1, and the program waits. Exits 0 only if rank 1 survived. */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <dag.h>

enum { BLOCK = 4096 };

struct args {
  double *x, *prev;
  int block;
};

static void fill(void *p) {
  const struct args *a = p;
  if (dag_rank() == 1) {
    nanosleep(&(struct timespec){0, 200000000}, NULL);
    fprintf(stderr, "mpi_killed: rank 1 kills itself\n");
    raise(SIGKILL);
  }
  for (int i = 0; i < BLOCK; i++)
    a->x[i] = a->block * BLOCK + i;
}

static void add(void *p) {
  const struct args *a = p;
  for (int i = 0; i < BLOCK; i++)
    a->x[i] += a->prev[i];
}

int main(void) {
  int rank = dag_rank(), nranks = dag_nranks();
  if (nranks < 2) {
    fprintf(stderr, "mpi_killed: needs 2 ranks or more\n");
    return 2;
  }
  double *x = dag_alloc((size_t)nranks * BLOCK * sizeof *x,
                        dag_dist_block_cyclic(sizeof *x, BLOCK));
  if (!x)
    return 1;
  for (int b = 0; b < nranks; b++) {
    struct args a = {x + b * BLOCK, NULL, b};
    struct dag_access acc = {DAG_OUT, dag_region_1d(a.x, BLOCK * sizeof *a.x)};
    struct dag_task_info info = {.fn = fill, .label = "fill"};
    dag_check(dag_submit(&info, &a, sizeof a, &acc, 1));
  }
  /* Block b gets block b - 1 (block 0 gets the last): rank 1's block goes
   * to rank 2 (to rank 0 with 2 ranks). */
  for (int b = 0; b < nranks; b++) {
    struct args a = {x + b * BLOCK, x + (b + nranks - 1) % nranks * BLOCK, b};
    struct dag_access acc[2] = {
        {DAG_INOUT, dag_region_1d(a.x, BLOCK * sizeof *a.x)},
        {DAG_IN, dag_region_1d(a.prev, BLOCK * sizeof *a.x)}};
    struct dag_task_info info = {.fn = add, .label = "add"};
    dag_check(dag_submit(&info, &a, sizeof a, acc, 2));
  }
  fprintf(stderr, "mpi_killed: rank %d waits\n", rank);
  dag_taskwait();
  fprintf(stderr, "mpi_killed: rank %d finished: rank 1 did not die\n", rank);
  dag_free(x);
  return 0;
}

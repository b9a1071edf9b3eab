/* mpi_late: ranks that finish at very different times. Rank 2 runs a 3 s
 * task whose result rank 1 needs; rank 0 has nothing left to do and
 * reaches dag_finalize at once. With DAG_WATCHDOG=1 rank 1 asks, after 1 s
 * of waiting, whether every rank still answers: rank 0 must answer from
 * its finalize until all ranks are there, or rank 1 would end a correct
 * run naming it. Run under mpiexec with 3 ranks; exits 0 on success. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <time.h>

#include <dag.h>

enum { BLOCK = 1024 };

struct args {
  double *out;
  const double *in;
  double seconds;
};

static void produce(void *p) {
  const struct args *a = p;
  nanosleep(&(struct timespec){(time_t)a->seconds, 0}, NULL);
  for (int i = 0; i < BLOCK; i++)
    a->out[i] = i;
}

static void consume(void *p) {
  const struct args *a = p;
  for (int i = 0; i < BLOCK; i++)
    a->out[i] = 2 * a->in[i];
}

int main(void) {
  if (dag_nranks() != 3) {
    fprintf(stderr, "mpi_late: needs 3 ranks\n");
    return 2;
  }
  double *x =
      dag_alloc(3 * BLOCK * sizeof *x, dag_dist_block_cyclic(sizeof *x, BLOCK));
  if (!x)
    return 1;
  /* Block 2 (rank 2) takes 3 s; block 1 (rank 1) needs it. */
  struct args slow = {x + 2 * BLOCK, NULL, 3};
  struct dag_access out2 = {DAG_OUT,
                            dag_region_1d(slow.out, BLOCK * sizeof *x)};
  struct dag_task_info producing = {.fn = produce, .label = "produce"};
  dag_check(dag_submit(&producing, &slow, sizeof slow, &out2, 1));
  struct args use = {x + BLOCK, x + 2 * BLOCK, 0};
  struct dag_access acc[2] = {
      {DAG_OUT, dag_region_1d(use.out, BLOCK * sizeof *x)},
      {DAG_IN, dag_region_1d(use.in, BLOCK * sizeof *x)}};
  struct dag_task_info consuming = {.fn = consume, .label = "consume"};
  dag_check(dag_submit(&consuming, &use, sizeof use, acc, 2));
  printf("mpi_late: rank %d finalizes\n", dag_rank());
  return dag_finalize();
}

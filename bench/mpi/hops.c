/* hops.c — how long data takes to go from a task on one rank to a task on
 * another, against MPI's own ping-pong, in one program.
 *
 * dag: a chain of `hops` tasks inout on one block of `bytes` bytes
 * (dag_alloc memory), the i-th placed on rank i % 2 with on(): every task
 * waits for the block to arrive from the other rank, so the time per hop is
 * the latency of a transfer through the runtime (planning, the send and
 * receive tasks, the progress engine) plus one empty task. MPI: the same
 * number of one-way messages as MPI_Send/MPI_Recv ping-pong between ranks 0
 * and 1. Both run on MPI_COMM_WORLD's ranks 0 and 1 (more ranks idle).
 * With -m the program initialises MPI with MPI_THREAD_MULTIPLE instead of
 * MPI_THREAD_SERIALIZED: what that level costs every MPI call shows in
 * mpi_us.
 *
 *   mpiexec -n 2 hops [-s bytes] [-h hops] [-r reps] [-m]
 *
 * Prints, for rank 0, "hops bytes=B hops=H thread=T dag_us=X mpi_us=Y" (µs
 * per hop, best of reps).
 */
#include <dag.h>
#include <harness.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void touch(void *args) {
  char *block = *(char **)args;
  block[0]++;
}

/* One chain of hops through dag; returns the seconds it took. */
static double dag_hops(char *block, size_t bytes, int hops) {
  dag_check(dag_taskwait());
  double t0 = bench_now();
  for (int i = 0; i < hops; i++) {
    struct dag_task_info info = {.fn = touch,
                                 .label = "hop",
                                 .file = __FILE__,
                                 .line = __LINE__,
                                 .flags = DAG_TASK_ON_RANK,
                                 .rank = i % 2};
    struct dag_access acc = {DAG_INOUT, dag_region_1d(block, bytes)};
    dag_check(dag_submit(&info, &block, sizeof block, &acc, 1));
  }
  dag_check(dag_taskwait());
  return bench_now() - t0;
}

/* The same number of one-way messages by hand. */
static double mpi_hops(char *buf, size_t bytes, int hops) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = bench_now();
  for (int i = 1; i < hops; i++) {
    if (rank == (i - 1) % 2)
      MPI_Send(buf, (int)bytes, MPI_BYTE, i % 2, 0, MPI_COMM_WORLD);
    else if (rank == i % 2)
      MPI_Recv(buf, (int)bytes, MPI_BYTE, (i - 1) % 2, 0, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return bench_now() - t0;
}

int main(int argc, char **argv) {
  long size = 8;
  int hops = 2000, reps = 5, multiple = 0;
  const struct bench_opt opts[] = {
      BENCH_OPT("-s", BENCH_LONG, &size, 1, 1L << 40),
      BENCH_OPT("-h", BENCH_INT, &hops, 1, 1 << 30),
      BENCH_OPT("-r", BENCH_INT, &reps, 1, 1 << 20),
      BENCH_OPT("-m", BENCH_FLAG, &multiple, 0, 0), BENCH_OPT_END};
  int rc =
      bench_args(argc, argv, opts, "hops [-s bytes] [-h hops] [-r reps] [-m]");
  if (rc >= 0)
    return rc;
  size_t bytes = (size_t)size;
  int level = multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_SERIALIZED, provided;
  MPI_Init_thread(&argc, &argv, level, &provided);
  if (dag_nranks() < 2) {
    fprintf(stderr, "hops: run it on 2 ranks or more\n");
    MPI_Finalize();
    return 2;
  }
  char *block = dag_alloc(bytes, dag_dist_block_cyclic(1, bytes));
  char *buf = calloc(1, bytes);
  if (!block || !buf)
    return 1;
  double best_dag = 1e30, best_mpi = 1e30;
  for (int r = 0; r < reps; r++) {
    double d = dag_hops(block, bytes, hops);
    /* The runtime's thread must be quiet while the program calls MPI. */
    double m = mpi_hops(buf, bytes, hops);
    best_dag = d < best_dag ? d : best_dag;
    best_mpi = m < best_mpi ? m : best_mpi;
  }
  if (dag_rank() == 0)
    printf("hops bytes=%zu hops=%d thread=%s dag_us=%.2f mpi_us=%.2f\n", bytes,
           hops, provided == MPI_THREAD_MULTIPLE ? "multiple" : "serialized",
           1e6 * best_dag / hops, 1e6 * best_mpi / (hops - 1));
  free(buf);
  dag_check(dag_free(block));
  MPI_Finalize();
  return 0;
}

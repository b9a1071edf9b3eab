/* mpi_finalize: the program's MPI_Finalize finishes the runtime first, while
 * MPI still works: the tasks still running complete on every rank before
 * MPI goes (no taskwait in the program), and dag calls after it say
 * DAG_ESHUTDOWN. With `unused`, the program calls MPI_Init and
 * MPI_Finalize without ever starting dag: a dag call after MPI_Finalize is
 * refused all the same, rather than starting on an MPI that is gone.
 * Exits non-zero, with a message, on a wrong count or code. */
#define _POSIX_C_SOURCE 200809L
#include <dag.h>
#include <mpi.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

enum { TASKS = 12 };

static atomic_int done;

static void slow(void *p) {
  (void)p;
  nanosleep(&(struct timespec){0, 20000000}, NULL);
  atomic_fetch_add(&done, 1);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, nranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  bool unused = argc > 1 && !strcmp(argv[1], "unused");
  int mine = 0;
  for (int i = 0; !unused && i < TASKS; i++) {
    struct dag_task_info info = {.fn = slow,
                                 .label = "slow",
                                 .flags = DAG_TASK_ON_RANK,
                                 .rank = i % nranks};
    dag_check(dag_submit(&info, NULL, 0, NULL, 0));
    mine += i % nranks == rank;
  }
  MPI_Finalize();
  int ran = atomic_load(&done);
  if (ran != mine) {
    fprintf(stderr,
            "mpi_finalize: rank %d ran %d of its %d tasks before "
            "MPI_Finalize returned\n",
            rank, ran, mine);
    return 1;
  }
  static const struct dag_task_info late = {.fn = slow, .label = "late"};
  int err = dag_submit(&late, NULL, 0, NULL, 0);
  if (err != DAG_ESHUTDOWN) {
    fprintf(stderr,
            "mpi_finalize: a task after MPI_Finalize gave %d, not "
            "DAG_ESHUTDOWN\n",
            err);
    return 1;
  }
  return 0;
}

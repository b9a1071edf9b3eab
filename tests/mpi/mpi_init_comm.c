/* mpi_init_comm: dag_init_comm's refusals that need a run of their own
 * (mpi_comm_halves checks MPI_COMM_NULL and a second communicator).
 *
 *   mpi_init_comm uninitialised  before MPI_Init_thread (any ranks)
 *   mpi_init_comm intercomm      on an intercommunicator between the even
 *                                and the odd ranks (2 ranks or more)
 *   mpi_init_comm simulated      on MPI_COMM_WORLD, with DAG_SIMULATE_RANKS
 *                                set (the test sets it)
 *
 * Each ends the run through dag_check when dag_init_comm refuses, with the
 * runtime's message and status 1 (expect_failure.sh checks both); when it
 * is accepted, it says so and exits 0. Written against the API. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dag_mpi.h>

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  if (!strcmp(mode, "uninitialised")) {
    dag_check(dag_init_comm(MPI_COMM_WORLD));
    printf("mpi_init_comm: %s: accepted\n", mode);
    return 0;
  }
  if (strcmp(mode, "intercomm") && strcmp(mode, "simulated")) {
    fprintf(stderr, "usage: mpi_init_comm uninitialised|intercomm|simulated\n");
    return 2;
  }
  int provided = 0, rank = 0, size = 1;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm comm = MPI_COMM_WORLD, half = MPI_COMM_NULL;
  if (!strcmp(mode, "intercomm")) {
    if (size < 2) {
      fprintf(stderr, "mpi_init_comm: intercomm needs 2 ranks or more\n");
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* The even ranks' and the odd ranks' communicators, joined by their
     * first ranks, world ranks 0 and 1. */
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 7, &comm);
  }
  dag_check(dag_init_comm(comm));
  printf("mpi_init_comm: %s: rank %d: accepted\n", mode, rank);
  dag_finalize();
  if (half != MPI_COMM_NULL) {
    MPI_Comm_free(&comm);
    MPI_Comm_free(&half);
  }
  MPI_Finalize();
  return 0;
}

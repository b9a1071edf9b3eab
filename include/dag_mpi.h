/* dag_mpi.h — dag on a communicator the program gives, for a program that
 * runs dag on part of its ranks: a library that takes a communicator, as
 * PETSc does, or one of two coupled codes. Needs libdag built with MPI.
 */
#ifndef DAG_MPI_H
#define DAG_MPI_H

#include <dag.h>
#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Starts the runtime, as dag_init, on `comm` instead of MPI_COMM_WORLD:
 * its ranks are dag's ranks (dag_rank, dag_nranks, on() and the
 * distributions count in it), and every message of the runtime travels on
 * a duplicate of it. Collective over `comm`: each of its ranks calls it
 * once, before any other dag call (the first one would start the runtime on
 * MPI_COMM_WORLD); ranks outside it never call dag. The program initialises
 * MPI first, with MPI_THREAD_SERIALIZED at least (docs/mpi.md says when it
 * may call MPI itself), and may free `comm` afterwards. The ranks of `comm`
 * on one machine share its cores, unless mpiexec bound each rank to cores
 * of its own.
 * Returns 0 (also when the runtime already runs on a congruent
 * communicator); DAG_EINVAL when MPI is not initialised, `comm` is
 * MPI_COMM_NULL or an intercommunicator, DAG_SIMULATE_RANKS is set, or the
 * runtime already runs on another communicator; dag_init's errors
 * otherwise. */
DAG_API int dag_init_comm(MPI_Comm comm);

#ifdef __cplusplus
}
#endif

#endif /* DAG_MPI_H */

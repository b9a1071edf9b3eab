/* mpi_comm.h — the communicator the MPI transport runs on, for
 * dag_init_comm (api/backend.c). Built with the MPI transport only.
 */
#ifndef DAG_MPI_COMM_H
#define DAG_MPI_COMM_H

#include <mpi.h>
#include <stdbool.h>

/* The next start of the transport duplicates c instead of MPI_COMM_WORLD. */
void dag__mpi_use_comm(MPI_Comm c);

/* Whether the transport runs on a duplicate of c (or on c itself). */
bool dag__mpi_runs_on(MPI_Comm c);

#endif

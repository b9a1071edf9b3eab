/* backend.c — the one file that knows which backends libdag was built with
 * (DAG_HAVE_*): it picks the table the core uses for each kind. A backend
 * that was not built is never picked. */
#include "comm/comm.h"

const struct dag_comm_ops *dag__comm_backend(void) {
  if (dag__simulating())
    return &dag__comm_simulated;
#ifdef DAG_HAVE_MPI
  if (dag__mpi_wanted())
    return &dag__comm_mpi;
#endif
  return &dag__comm_self;
}

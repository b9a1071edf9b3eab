/* init_comm.c — dag_init_comm (include/dag_mpi.h): the runtime on a
 * communicator the program gives. Built with the MPI transport only.
 */
#include "api/api.h"
#include "comm/mpi_comm.h"

#include <dag_mpi.h>

static int another_communicator(void) {
  return dag__user_error(NULL, DAG_EINVAL,
                         "dag_init_comm: the runtime already runs on another "
                         "communicator (the first dag call starts it on "
                         "MPI_COMM_WORLD: call dag_init_comm before any)");
}

int dag_init_comm(MPI_Comm c) {
  int initialized = 0, inter = 0;
  MPI_Initialized(&initialized);
  if (!initialized)
    return dag__user_error(NULL, DAG_EINVAL,
                           "dag_init_comm: MPI is not initialised (call "
                           "MPI_Init_thread first)");
  if (c == MPI_COMM_NULL)
    return dag__user_error(NULL, DAG_EINVAL,
                           "dag_init_comm: MPI_COMM_NULL (a rank outside the "
                           "communicator must not call dag)");
  MPI_Comm_test_inter(c, &inter);
  if (inter)
    return dag__user_error(NULL, DAG_EINVAL,
                           "dag_init_comm: an intercommunicator; give an "
                           "intracommunicator (MPI_Intercomm_merge makes one)");
  if (dag__simulating())
    return dag__user_error(NULL, DAG_EINVAL,
                           "dag_init_comm: DAG_SIMULATE_RANKS plays one rank "
                           "alone, on no communicator; unset it");
  if (dag__run_state() == RUN_RUNNING)
    return dag__mpi_runs_on(c) ? 0 : another_communicator();
  dag__mpi_use_comm(c);
  int err = dag_init();
  /* Another thread's first dag call may have started it meanwhile, on
   * MPI_COMM_WORLD: c is not kept for a later start either way. */
  dag__mpi_use_comm(MPI_COMM_NULL);
  if (!err && !dag__mpi_runs_on(c))
    return another_communicator();
  return err;
}

/* backend.c — the one file that knows which backends libdag was built with
 * (DAG_HAVE_*): it picks the transport and the memory spaces that start-up
 * hands down to the layers below (which never ask up for them), and holds
 * the public calls that belong to one backend: the streams of the device
 * spaces (NULL for a space that was not built) and dag_init_comm
 * (include/dag_mpi.h, with the MPI transport only). A backend that was not
 * built is never picked. */
#include "api/api.h"
#include "mem/space.h"

#ifdef DAG_HAVE_MPI
#include "comm/mpi_comm.h"

#include <dag_mpi.h>
#endif

const struct comm_ops *dag__comm_backend(void) {
  if (dag__simulating())
    return &dag__comm_simulated;
#ifdef DAG_HAVE_MPI
  if (dag__mpi_wanted())
    return &dag__comm_mpi;
#endif
  return &dag__comm_self;
}

static const struct space_ops *const by_kind[DAG_NDEVICE_KINDS] = {
#ifdef DAG_HAVE_CUDA
    [DAG_DEVICE_CUDA] = &dag__space_cuda,
#endif
#ifdef DAG_HAVE_HIP
    [DAG_DEVICE_HIP] = &dag__space_hip,
#endif
};

const struct space_ops *const *dag__space_backends_by_kind(void) {
  return by_kind;
}

const struct space_ops *dag__space_stand_in(void) { return &dag__space_emul; }

/* Without the toolkit, no device body runs: no stream. */
void *dag_cuda_stream(void) {
#ifdef DAG_HAVE_CUDA
  return dag__cuda_stream();
#else
  return NULL;
#endif
}

void *dag_hip_stream(void) {
#ifdef DAG_HAVE_HIP
  return dag__hip_stream();
#else
  return NULL;
#endif
}

#ifdef DAG_HAVE_MPI
/* dag_init_comm: the runtime on a communicator the program gives. */
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
#endif

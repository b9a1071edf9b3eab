/* backend.c — the one file that knows which backends libdag was built with
 * (DAG_HAVE_*): it picks the transport and the memory spaces that start-up
 * hands down to the layers below (which never ask up for them), and
 * answers for a space that was not built (its stream is NULL). A backend
 * that was not built is never picked. */
#include "api/api.h"
#include "mem/space.h"

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

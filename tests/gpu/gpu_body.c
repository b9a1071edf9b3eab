/* gpu_body.c — a device body for gpu_space.c, written once against the
 * names of runtime/mem/space_gpu.h and compiled once per GPU space built:
 * with DAG_SPACE_CUDA it is cuda_move, with DAG_SPACE_HIP hip_move. */
#include "gpu_body.h"
#include "space_checks.h"

#include "mem/space_gpu.h"

void GPU(_move)(void *p) {
  const struct space_move *m = p;
  gpu_body_stream = GPU_STREAM_FN();
  gpu_body_error = (int)GPU(MemcpyAsync)(
      m->dst, m->src, m->bytes, GPU(MemcpyDeviceToDevice), gpu_body_stream);
}

/* model_gemm.c — tiled GEMM C += A B on the timed device model
 * (DAG_EMUL_MODEL, docs/gpu.md): what dag would make of a GPU that is not
 * here. One task per tile product, a CPU variant and a device variant,
 * their work declared (2 m n k flops, label "gemm"); nothing is computed
 * and the matrices are never touched, so N = 32768 (three 8 GiB matrices)
 * runs on a laptop.
 *
 *   DAG_DEVICES=emul DAG_EMUL_MODEL=h200 DAG_NUM_THREADS=16 \
 *       model_gemm [-n N] [-b tile] [-u]
 *
 * prints the wall time and the bounds for the device alone, in what the
 * model in use charges (tiles.h, model_report): its work (every product at
 * the model's gemm rate), the copies that cannot be avoided (A, B and C
 * in, C out) and the critical path (one tile of C's products in a row); the
 * runtime's report line says what the device did. The matrices are
 * registered with the device (dag_register); -u leaves them unregistered,
 * their copies packed through staging buffers.
 */
#define _GNU_SOURCE
#include "tiles.h"

#include <dag.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

MODEL_BODY(gemm_cpu)
MODEL_BODY(gemm_device)

static const struct dag_pointers gemm_pointers[] = {
    {offsetof(struct gemm_args, a), 3}};
static const struct dag_variant on_device[] = {{gemm_device, DAG_DEVICE_CUDA}};

int main(int argc, char **argv) {
  int n = 8192, b = 2048, u = 0;
  int rc = model_args(argc, argv, &n, &b, &u,
                      "model_gemm [-n N] [-b tile dividing N] [-u]");
  if (rc >= 0)
    return rc;
  double *a = host_matrix(n, u), *bm = host_matrix(n, u),
         *c = host_matrix(n, u);
  int nt = n / b;
  struct dag_task_info gemm_info =
      model_task("gemm", gemm_cpu, on_device, gemm_pointers, gemm_work);
  double wall = timed_gemm(&gemm_info, a, bm, c, n, b);
  double matrix = (double)n * n * sizeof(double), tile = (double)b * b * 8;
  struct model_bound m = {
      .work = model_checked(dag_model_seconds("gemm", 2.0 * n * n * n)),
      .path = nt * model_checked(dag_model_seconds("gemm", 2.0 * b * b * b)),
      .in_bytes = 3 * matrix, /* A, B and C */
      .out_bytes = matrix,
      .first_bytes = 3 * tile,
      .last_bytes = tile};
  return model_report("model_gemm", n, b, nt * nt * nt, wall, &m);
}

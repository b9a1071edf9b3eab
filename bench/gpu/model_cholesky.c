/* model_cholesky.c — tiled Cholesky A = L L^T on the timed device model
 * (DAG_EMUL_MODEL, docs/gpu.md): potrf, trsm, syrk and gemm tile tasks,
 * each with a CPU and a device variant and its flops declared, on a matrix
 * that is never touched, so that N = 32768 runs on a laptop.
 *
 *   DAG_DEVICES=emul DAG_EMUL_MODEL=h200 DAG_NUM_THREADS=16 \
 *       model_cholesky [-n N] [-b tile] [-u]
 *
 * prints the wall time beside the device-alone bound, in what the model in
 * use charges (tiles.h, model_report): the largest of every task at the
 * device's rate for its kernel, the lower triangle's tiles copied in and
 * out and the critical path (potrf, trsm and syrk of each step in a
 * row). Tasks have StarPU's priorities for a tiled Cholesky: earlier steps
 * first, and within a step the tiles nearest the next panel. The matrix is
 * registered with the device (dag_register); -u leaves it unregistered.
 */
#define _GNU_SOURCE
#include "tiles.h"

#include <dag.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

enum kernel { POTRF, TRSM, SYRK, GEMM, KERNELS };
static const char *const labels[KERNELS] = {"potrf", "trsm", "syrk", "gemm"};

struct tile_args {
  double *t[3]; /* the tiles it reads, then the one it writes, last */
  int b, ld;
};

MODEL_BODY(potrf_cpu)
MODEL_BODY(potrf_dev)
MODEL_BODY(trsm_cpu)
MODEL_BODY(trsm_dev)
MODEL_BODY(syrk_cpu)
MODEL_BODY(syrk_dev)
MODEL_BODY(gemm_cpu)
MODEL_BODY(gemm_dev)

/* Flops of one tile task, from its tile size. */
static double cube(const void *p) {
  const struct tile_args *a = p;
  return (double)a->b * a->b * a->b;
}
static double potrf_work(const void *p) { return cube(p) / 3; }
static double twice_cube(const void *p) { return 2 * cube(p); }

static const struct dag_pointers pointers[] = {
    {offsetof(struct tile_args, t), 3}};
static const struct dag_variant potrf_v[] = {{potrf_dev, DAG_DEVICE_CUDA}};
static const struct dag_variant trsm_v[] = {{trsm_dev, DAG_DEVICE_CUDA}};
static const struct dag_variant syrk_v[] = {{syrk_dev, DAG_DEVICE_CUDA}};
static const struct dag_variant gemm_v[] = {{gemm_dev, DAG_DEVICE_CUDA}};

int main(int argc, char **argv) {
  int n = 8192, b = 2048, u = 0;
  int rc = model_args(argc, argv, &n, &b, &u,
                      "model_cholesky [-n N] [-b tile dividing N] [-u]");
  if (rc >= 0)
    return rc;
  double *a = host_matrix(n, u);
  int nt = n / b;
  struct dag_task_info potrf = model_task("potrf", potrf_cpu, potrf_v, pointers,
                                          potrf_work),
                       trsm =
                           model_task("trsm", trsm_cpu, trsm_v, pointers, cube),
                       syrk =
                           model_task("syrk", syrk_cpu, syrk_v, pointers, cube),
                       gemm = model_task("gemm", gemm_cpu, gemm_v, pointers,
                                         twice_cube);
  /* StarPU's for a tiled Cholesky (examples/cholesky, Chameleon): 2 nt -
   * 2k for step k's potrf, less the tile's row and column for the others,
   * raised so that every task has one above 0. */
  int first = 5 * nt;
#define T(i, j) tile_at(a, n, b, i, j)
#define TILE(mode, i, j) tile(mode, a, n, b, i, j)
  double flops[KERNELS] = {0};
  int tasks = 0;
  dag_check(dag_init()); /* its start-up (threads, devices) is not timed */
  double t0 = bench_now();
  for (int k = 0; k < nt; k++) {
    struct tile_args g = {{T(k, k), T(k, k), T(k, k)}, b, n};
    struct dag_access acc[3] = {TILE(DAG_INOUT, k, k)};
    potrf.priority = first - 2 * k;
    dag_check(dag_submit(&potrf, &g, sizeof g, acc, 1));
    flops[POTRF] += potrf_work(&g), tasks++;
    for (int i = k + 1; i < nt; i++) {
      g = (struct tile_args){{T(k, k), T(k, k), T(i, k)}, b, n};
      acc[0] = TILE(DAG_IN, k, k), acc[1] = TILE(DAG_INOUT, i, k);
      trsm.priority = first - 2 * k - i;
      dag_check(dag_submit(&trsm, &g, sizeof g, acc, 2));
      flops[TRSM] += cube(&g), tasks++;
    }
    for (int i = k + 1; i < nt; i++) {
      g = (struct tile_args){{T(i, k), T(i, k), T(i, i)}, b, n};
      acc[0] = TILE(DAG_IN, i, k), acc[1] = TILE(DAG_INOUT, i, i);
      syrk.priority = first - 2 * k - 2 * i;
      dag_check(dag_submit(&syrk, &g, sizeof g, acc, 2));
      flops[SYRK] += cube(&g), tasks++;
      for (int j = k + 1; j < i; j++) {
        g = (struct tile_args){{T(i, k), T(j, k), T(i, j)}, b, n};
        acc[0] = TILE(DAG_IN, i, k), acc[1] = TILE(DAG_IN, j, k);
        acc[2] = TILE(DAG_INOUT, i, j);
        gemm.priority = first - 2 * k - i - j;
        dag_check(dag_submit(&gemm, &g, sizeof g, acc, 3));
        flops[GEMM] += twice_cube(&g), tasks++;
      }
    }
  }
  dag_check(dag_taskwait());
  double wall = bench_now() - t0;
  double bb = (double)b * b * b, tile = bb / b * sizeof(double);
  double triangle = nt * (nt + 1) / 2.0 * tile; /* the lower one's tiles */
  struct model_bound m = {.in_bytes = triangle,
                          .out_bytes = triangle,
                          .first_bytes = tile,
                          .last_bytes = tile};
  for (int k = 0; k < KERNELS; k++) /* a launch each, where one ran */
    if (flops[k] > 0)
      m.work += model_checked(dag_model_seconds(labels[k], flops[k]));
  m.path = nt * model_checked(dag_model_seconds("potrf", bb / 3)) +
           (nt - 1) * (model_checked(dag_model_seconds("trsm", bb)) +
                       model_checked(dag_model_seconds("syrk", bb)));
  return model_report("model_cholesky", n, b, tasks, wall, &m);
}

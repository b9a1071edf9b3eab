/* cholesky_gpu.c — tiled Cholesky whose tile kernels run on the CPU or on
 * a CUDA GPU, annotated with pragmas and built with dagcc.
 *
 * Each tile kernel is a task function with two variants: the CPU one
 * (OpenBLAS/LAPACKE, samples/cholesky/tiles.c) and a CUDA one
 * (`implements`, device(cuda): cuBLAS/cuSOLVER on the task's stream,
 * tiles_cuda.c). For every task the runtime picks the variant and the place
 * expected to finish first, from the time each took so far and the data it
 * would have to move (docs/gpu.md), and moves the tiles between host and
 * device memory as the graph needs them. The tiles stay in place in the
 * one row-major matrix: a device body gets the device address of its tile
 * and the host's leading dimension. Without a GPU the CPU variants run.
 *
 *   cholesky_gpu [-n N] [-b tile] [-r reps] [--check]
 *
 * prints one line (size, tile, workers, time, GFLOP/s, residual) and exits
 * non-zero if the factor is wrong. DAG_DEVICES chooses the devices,
 * DAG_NUM_THREADS the CPU workers.
 */
#include "tiles.h"
#include "tiles_cuda.h"

#include <dag.h>

#pragma dag task inout(([k][ld])akk[0:k][0:k]) label("potrf") priority(prio)
void potrf(double *akk, int k, int ld, int prio);
void potrf(double *akk, int k, int ld, int prio) {
  (void)prio;
  tile_potrf(akk, k, ld);
}

#pragma dag task implements(potrf) device(cuda)
void potrf_cuda(double *akk, int k, int ld, int prio);
void potrf_cuda(double *akk, int k, int ld, int prio) {
  (void)prio;
  cuda_tile_potrf(akk, k, ld);
}

#pragma dag task in(([k][ld])lkk[0:k][0:k]) inout(([m][ld])aik[0:m][0:k])     \
    label("trsm") priority(prio)
void trsm(const double *lkk, double *aik, int m, int k, int ld, int prio);
void trsm(const double *lkk, double *aik, int m, int k, int ld, int prio) {
  (void)prio;
  tile_trsm(lkk, aik, m, k, ld);
}

#pragma dag task implements(trsm) device(cuda)
void trsm_cuda(const double *lkk, double *aik, int m, int k, int ld, int prio);
void trsm_cuda(const double *lkk, double *aik, int m, int k, int ld, int prio) {
  (void)prio;
  cuda_tile_trsm(lkk, aik, m, k, ld);
}

#pragma dag task in(([m][ld])aik[0:m][0:k]) inout(([m][ld])aii[0:m][0:m])     \
    label("syrk") priority(prio)
void syrk(const double *aik, double *aii, int m, int k, int ld, int prio);
void syrk(const double *aik, double *aii, int m, int k, int ld, int prio) {
  (void)prio;
  tile_syrk(aik, aii, m, k, ld);
}

#pragma dag task implements(syrk) device(cuda)
void syrk_cuda(const double *aik, double *aii, int m, int k, int ld, int prio);
void syrk_cuda(const double *aik, double *aii, int m, int k, int ld, int prio) {
  (void)prio;
  cuda_tile_syrk(aik, aii, m, k, ld);
}

#pragma dag task in(([m][ld])aik[0:m][0:k], ([n][ld])ajk[0:n][0:k])           \
    inout(([m][ld])aij[0:m][0:n]) label("gemm") priority(prio)
void gemm(const double *aik, const double *ajk, double *aij, int m, int n,
          int k, int ld, int prio);
void gemm(const double *aik, const double *ajk, double *aij, int m, int n,
          int k, int ld, int prio) {
  (void)prio;
  tile_gemm(aik, ajk, aij, m, n, k, ld);
}

#pragma dag task implements(gemm) device(cuda)
void gemm_cuda(const double *aik, const double *ajk, double *aij, int m, int n,
               int k, int ld, int prio);
void gemm_cuda(const double *aik, const double *ajk, double *aij, int m, int n,
               int k, int ld, int prio) {
  (void)prio;
  cuda_tile_gemm(aik, ajk, aij, m, n, k, ld);
}

static int factor(double *a, int n, int bs) {
  int nt = chol_ntiles(n, bs);
  for (int k = 0; k < nt; k++) {
    int dk = chol_tile_dim(n, bs, k);
    double *akk = chol_tile(a, n, bs, k, k);
    potrf(akk, dk, n, chol_priority(CHOL_POTRF, k, k, k, nt));
    for (int i = k + 1; i < nt; i++)
      trsm(akk, chol_tile(a, n, bs, i, k), chol_tile_dim(n, bs, i), dk, n,
           chol_priority(CHOL_TRSM, i, k, k, nt));
    for (int i = k + 1; i < nt; i++) {
      int di = chol_tile_dim(n, bs, i);
      double *aik = chol_tile(a, n, bs, i, k);
      syrk(aik, chol_tile(a, n, bs, i, i), di, dk, n,
           chol_priority(CHOL_SYRK, i, i, k, nt));
      for (int j = k + 1; j < i; j++)
        gemm(aik, chol_tile(a, n, bs, j, k), chol_tile(a, n, bs, i, j), di,
             chol_tile_dim(n, bs, j), dk, n,
             chol_priority(CHOL_GEMM, i, j, k, nt));
    }
  }
#pragma dag taskwait
  return 0;
}

/* Before the timed part: the workers, and their handles per stream. */
static int start(void) {
  int workers = dag_num_workers();
  return workers < 0 || cuda_tiles_set_up() ? -1 : workers;
}

int main(int argc, char **argv) {
  static const struct chol_runtime rt = {
      .name = "dag-gpu", .start = start, .factor = factor};
  return chol_main(argc, argv, &rt);
}

/* cholesky_pragma.c — tiled Cholesky factorization, annotated with pragmas.
 *
 * The right-looking tiled algorithm as one would write it sequentially on a
 * row-major matrix seen as `double (*A)[n]`, with one `#pragma dag task` per
 * tile kernel. Each pragma names the tiles the kernel reads and updates as
 * 2-D array sections, A[row:rows][col:cols]; dagcc turns them into tasks,
 * the runtime derives every dependency from the sections, and potrf and trsm
 * on the critical path get higher priorities. Built with plain cc, the
 * pragmas are ignored and the program runs sequentially with the same
 * result.
 *
 *   cholesky_pragma [-n N] [-b tile] [-r reps] [--check]
 *
 * prints one line (size, tile, workers, time, GFLOP/s, residual) and exits
 * non-zero if the factor is wrong. DAG_NUM_THREADS sets the workers.
 */
#include "tiles.h"

static int factor(double *a, int n, int bs) {
  double(*A)[n] = (double(*)[n])a;
  int nt = chol_ntiles(n, bs);
  for (int k = 0; k < nt; k++) {
    int kk = k * bs, dk = chol_tile_dim(n, bs, k);
#pragma dag task inout(A[kk:dk][kk:dk]) label("potrf")                        \
    priority(chol_priority(CHOL_POTRF, k, k, k, nt))
    tile_potrf(&A[kk][kk], dk, n);
    for (int i = k + 1; i < nt; i++) {
      int ii = i * bs, di = chol_tile_dim(n, bs, i);
#pragma dag task in(A[kk:dk][kk:dk]) inout(A[ii:di][kk:dk]) label("trsm")     \
    priority(chol_priority(CHOL_TRSM, i, k, k, nt))
      tile_trsm(&A[kk][kk], &A[ii][kk], di, dk, n);
    }
    for (int i = k + 1; i < nt; i++) {
      int ii = i * bs, di = chol_tile_dim(n, bs, i);
#pragma dag task in(A[ii:di][kk:dk]) inout(A[ii:di][ii:di]) label("syrk")     \
    priority(chol_priority(CHOL_SYRK, i, i, k, nt))
      tile_syrk(&A[ii][kk], &A[ii][ii], di, dk, n);
      for (int j = k + 1; j < i; j++) {
        int jj = j * bs, dj = chol_tile_dim(n, bs, j);
#pragma dag task in(A[ii:di][kk:dk], A[jj:dj][kk:dk]) inout(A[ii:di][jj:dj])  \
    label("gemm") priority(chol_priority(CHOL_GEMM, i, j, k, nt))
        tile_gemm(&A[ii][kk], &A[jj][kk], &A[ii][jj], di, dj, dk, n);
      }
    }
  }
#pragma dag taskwait
  return 0;
}

/* Under dagcc the runtime starts on the first task; `start` reports how
 * many threads will run them (1 when built without dagcc). */
#ifdef DAG_H
static int start(void) { return dag_num_workers(); }
#else
static int start(void) { return 1; }
#endif

int main(int argc, char **argv) {
  static const struct chol_runtime rt = {
      .name = "dag-pragma", .start = start, .factor = factor};
  return chol_main(argc, argv, &rt);
}

/* tiles_cuda.h — the tile kernels of samples/cholesky/tiles.h and a GEMM
 * tile, as CUDA device bodies: each queues its work (cuBLAS, cuSOLVER) on
 * the stream dag gives the running task, dag_cuda_stream(), and returns.
 * Same arguments and same bytes as the CPU kernels: the pointers are the
 * device addresses of the tiles, with the host's leading dimension `ld`.
 */
#ifndef TILES_CUDA_H
#define TILES_CUDA_H

/* Makes the cuBLAS and cuSOLVER handles of every worker, one per CUDA
 * stream its bodies may run on, before the tasks (dag_on_each_worker):
 * outside the time of any task. Returns 0 (also with no CUDA device), or
 * dag_on_each_worker's error. */
int cuda_tiles_set_up(void);

void cuda_tile_potrf(double *akk, int k, int ld);
void cuda_tile_trsm(const double *lkk, double *aik, int m, int k, int ld);
void cuda_tile_syrk(const double *aik, double *aii, int m, int k, int ld);
/* Aij := Aij - Aik Ajk^T, as tile_gemm. */
void cuda_tile_gemm(const double *aik, const double *ajk, double *aij, int m,
                    int n, int k, int ld);
/* C := C + A B on row-major tiles (C m x n, A m x k, B k x n). */
void cuda_tile_gemm_nn(const double *a, const double *b, double *c, int m,
                       int n, int k, int ld);

#endif /* TILES_CUDA_H */

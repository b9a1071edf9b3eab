/* vendor.h — what gpu_vendor's peers share (vendor.c): the job of one
 * operation on host matrices, the peers' table, and the checks of CUDA,
 * cuBLAS and cuSOLVER calls.
 *
 * A peer is what a CUDA user would run instead of dag, on the same
 * matrices, starting and ending in host memory as dag's do. Each has an
 * untimed prepare (its device memory filled, where it computes on
 * device-resident data), its timed run, and an untimed finish that leaves
 * the result in host memory for the check.
 */
#ifndef DAG_BENCH_GPU_VENDOR_H
#define DAG_BENCH_GPU_VENDOR_H

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>
#include <stddef.h>

/* One operation of order n in tiles (or panels) of b, on host matrices:
 * GEMM's A, B and C (C := C + A B, row-major), or potrf's A in a (the
 * factor L, column-major lower, overwrites it: row-major, its upper
 * triangle). d[] are the device copies, where a peer keeps them. */
struct job {
  int n, b;
  double *a, *bm, *c;
  double *d[3];
  size_t bytes; /* of one matrix */
  cublasHandle_t blas;
  cusolverDnHandle_t solver;
  cudaStream_t in, compute, out;
  double *work; /* cuSOLVER's workspace, on the device */
  int lwork;
  int *info; /* its status words, one per panel, on the device */
};

struct peer {
  const char *op, *name; /* "gemm" or "potrf"; as the report names it */
  int page_locked;       /* its host matrices are */
  void (*prepare)(struct job *j); /* untimed; NULL: nothing */
  void (*run)(struct job *j);     /* timed: ends with the device idle */
  void (*finish)(struct job *j);  /* untimed; NULL: nothing */
};

/* vendor_gemm.c and vendor_potrf.c: their peers, NULL-terminated. */
extern const struct peer vendor_gemm_peers[], vendor_potrf_peers[];

/* vendor_potrf.c: the rate of each tile kernel (gemm, syrk, trsm, potrf)
 * on b x b tiles in device memory, best of reps, printed a line each. */
void vendor_tile_rates(int b, int reps);

/* Ends the program, naming `what`, when status (a cudaError_t,
 * cublasStatus_t or cusolverStatus_t) is not 0. */
void vendor_check(int status, const char *what);
#define CHECK(call) vendor_check((int)(call), #call)

/* The device idle, for the clock. */
void vendor_sync(void);

#endif /* DAG_BENCH_GPU_VENDOR_H */

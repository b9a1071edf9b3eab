/* vendor.c — what a CUDA user would run instead of dag: one cuBLAS dgemm
 * (C := C + A B) or one cuSOLVER dpotrf on the whole matrix, from host
 * memory and back, the figure the tiled samples/gpu programs are compared
 * with (bench/gpu/run).
 *
 *   gpu_vendor gemm|potrf [-n N] [-r reps]
 *
 * prints one line per operation: the best time with the copies to the
 * device and back (what the dag programs do: their matrices start and end
 * in host memory) and the best time of the computation alone, with the
 * rates of both. Same matrices as the samples (splitmix64 entries; for
 * potrf n added to the diagonal).
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include "harness.h"
#include "sample_util.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check(int status, const char *what) {
  if (status) {
    fprintf(stderr, "gpu_vendor: %s failed (status %d)\n", what, status);
    exit(1);
  }
}

/* A host matrix; for potrf samples/cholesky's SPD matrix. */
static double *matrix(size_t n, uint64_t seed, int spd) {
  double *m = malloc(n * n * sizeof *m);
  if (!m)
    check(-1, "malloc");
  if (spd)
    sample_spd(m, (int)n, seed);
  for (size_t i = 0; !spd && i < n * n; i++)
    m[i] = sample_uniform_at(seed + i);
  return m;
}

struct timing {
  double with_copies, compute;
};

/* The clock once the device is idle. */
static double synced(void) {
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  return bench_now();
}

/* Keeps the best of a repetition that copied in from t0, computed from t1
 * to t2 and had the result copied out at t3. */
static void keep(struct timing *best, double t0, double t1, double t2,
                 double t3) {
  best->with_copies = fmin(best->with_copies, t3 - t0);
  best->compute = fmin(best->compute, t2 - t1);
}

static void gemm(int n, int reps, struct timing *best) {
  size_t bytes = (size_t)n * n * sizeof(double);
  double *a = matrix(n, 1, 0), *b = matrix(n, 2, 0), *c = matrix(n, 3, 0);
  double *da, *db, *dc;
  check(cudaMalloc((void **)&da, bytes), "cudaMalloc");
  check(cudaMalloc((void **)&db, bytes), "cudaMalloc");
  check(cudaMalloc((void **)&dc, bytes), "cudaMalloc");
  cublasHandle_t h;
  check(cublasCreate(&h), "cublasCreate");
  const double one = 1.0;
  for (int r = 0; r < reps; r++) {
    double t0 = bench_now();
    check(cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
    check(cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
    check(cudaMemcpy(dc, c, bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
    double t1 = synced();
    /* Row-major C + A B is column-major C^T + B^T A^T. */
    check(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, db, n, da, n,
                      &one, dc, n),
          "cublasDgemm");
    double t2 = synced();
    check(cudaMemcpy(c, dc, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
    keep(best, t0, t1, t2, bench_now());
  }
  cublasDestroy(h);
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  free(a);
  free(b);
  free(c);
}

static void potrf(int n, int reps, struct timing *best) {
  size_t bytes = (size_t)n * n * sizeof(double);
  double *a = matrix(n, 2024, 1), *da, *work;
  int *info, lwork = 0, host_info = 0;
  cusolverDnHandle_t h;
  check(cusolverDnCreate(&h), "cusolverDnCreate");
  check(cudaMalloc((void **)&da, bytes), "cudaMalloc");
  check(cudaMalloc((void **)&info, sizeof *info), "cudaMalloc");
  check(
      cusolverDnDpotrf_bufferSize(h, CUBLAS_FILL_MODE_UPPER, n, da, n, &lwork),
      "cusolverDnDpotrf_bufferSize");
  check(cudaMalloc((void **)&work, (size_t)lwork * sizeof *work), "cudaMalloc");
  double *out = malloc(bytes);
  for (int r = 0; r < reps; r++) {
    double t0 = bench_now();
    check(cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
    double t1 = synced();
    /* Row-major lower is column-major upper, as the tiles do. */
    check(cusolverDnDpotrf(h, CUBLAS_FILL_MODE_UPPER, n, da, n, work, lwork,
                           info),
          "cusolverDnDpotrf");
    double t2 = synced();
    check(cudaMemcpy(out, da, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
    double t3 = bench_now();
    check(
        cudaMemcpy(&host_info, info, sizeof host_info, cudaMemcpyDeviceToHost),
        "cudaMemcpy");
    check(host_info, "dpotrf (not positive definite)");
    keep(best, t0, t1, t2, t3);
  }
  free(out);
  cudaFree(work);
  cudaFree(info);
  cudaFree(da);
  cusolverDnDestroy(h);
  free(a);
}

int main(int argc, char **argv) {
  int n = 8192, reps = 3;
  const char *op = argc > 1 ? argv[1] : "";
  const struct bench_opt opts[] = {BENCH_OPT("-n", BENCH_INT, &n, 1, 1 << 30),
                                   BENCH_OPT("-r", BENCH_INT, &reps, 1, 1000),
                                   BENCH_OPT_END};
  int is_gemm = !strcmp(op, "gemm"); /* the options after the operation: */
  if ((!is_gemm && strcmp(op, "potrf")) ||
      bench_parse(argv[0], argc - 1, argv + 1, opts, stderr))
    return bench_usage(-1, "gpu_vendor gemm|potrf [-n N] [-r reps]");
  struct timing best = {INFINITY, INFINITY};
  (is_gemm ? gemm : potrf)(n, reps, &best);
  double flops = is_gemm ? 2.0 * n * n * n : (double)n * n * n / 3.0;
  printf("%s runtime=%s n=%d time=%.4f tflops=%.2f compute_time=%.4f "
         "compute_tflops=%.2f\n",
         is_gemm ? "gemm" : "cholesky", is_gemm ? "cublas" : "cusolver", n,
         best.with_copies, flops / best.with_copies * 1e-12, best.compute,
         flops / best.compute * 1e-12);
  return 0;
}

/* vendor.c — what a CUDA user would run instead of dag (bench/gpu/run):
 * one peer a process, on the matrices of samples/gpu's programs, every
 * matrix starting and ending in host memory as dag's do.
 *
 *   gpu_vendor gemm|potrf --peer NAME [-n N] [-b tile] [-r reps]
 *   gpu_vendor tiles [-b tile] [-r reps]
 *
 * Peers (vendor_gemm.c, vendor_potrf.c): `cublas-resident` and
 * `cusolver-resident` compute on device-resident data, the ceiling (their
 * copies untimed); `cublas-pinned` and `cusolver-pinned` stream tiles or
 * panels from page-locked host memory with the copies overlapped with the
 * compute, what a careful user writes by hand; `cublasxt` is
 * cublasXtDgemm on the page-locked host matrices; `cublas-pageable` and
 * `cusolver-pageable` copy malloc'd memory with synchronous cudaMemcpy
 * around one call, the naive baseline, to be shown beside the others,
 * never alone. `tiles` prints each tile kernel's rate on the device, for a
 * device model (bench/gpu/run writes one).
 *
 * Prints a line per repetition and then the best, with its rate and the
 * largest relative error of sampled entries of the result (C = C0 + A B,
 * A = L L^T); exits 1 when that error is not at rounding level.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include "vendor.h"

#include "harness.h"
#include "sample_util.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void vendor_check(int status, const char *what) {
  if (status) {
    fprintf(stderr, "gpu_vendor: %s failed (status %d)\n", what, status);
    exit(1);
  }
}

void vendor_sync(void) { CHECK(cudaDeviceSynchronize()); }

enum { SEED_A = 1, SEED_B = 2, SEED_C = 3, SEED_SPD = 2024 };

/* Entry (i, j) of the GEMM matrix of `seed`, and of samples/cholesky's SPD
 * matrix. */
static double entry(uint64_t seed, int n, long i, long j) {
  return sample_uniform_at(seed + (uint64_t)i * n + j);
}
static double spd_entry(int n, long i, long j) {
  return sample_spd_at(n, SEED_SPD, i, j);
}

/* Fills m (n x n) with the matrix of seed, or the SPD one; in parallel,
 * as at N = 32768 a matrix is a billion entries. */
static void fill(double *m, int n, uint64_t seed, int spd) {
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; i++)
    for (long j = 0; j < n; j++)
      m[i * n + j] = spd ? spd_entry(n, i, j) : entry(seed, n, i, j);
}

static double *host_matrix(size_t bytes, int page_locked) {
  void *p = NULL;
  if (page_locked)
    CHECK(cudaMallocHost(&p, bytes));
  else if (!(p = malloc(bytes)))
    vendor_check(-1, "malloc");
  return p;
}

/* The largest relative error of 64 sampled entries of the result: of C
 * against C0 + A B, or of L L^T against A. */
static double sampled_error(const struct job *j, int gemm) {
  double worst = 0;
  for (uint64_t s = 0; s < 64; s++) {
    long r = (long)((sample_uniform_at(~s) + 1) / 2 * j->n);
    long c = (long)((sample_uniform_at(~s ^ 0x5bd1e995u) + 1) / 2 * j->n);
    if (!gemm && c > r) { /* the lower triangle's */
      long t = r;
      r = c, c = t;
    }
    double want = gemm ? entry(SEED_C, j->n, r, c) : spd_entry(j->n, r, c);
    double got = gemm ? j->c[r * j->n + c] : 0, scale = fabs(want);
    for (long k = 0; k < (gemm ? j->n : c + 1); k++) {
      /* L is column-major: L(r, k) at k n + r. */
      double x = gemm ? j->a[r * j->n + k] * j->bm[k * j->n + c]
                      : j->a[k * j->n + r] * j->a[k * j->n + c];
      want += gemm ? x : 0, got += gemm ? 0 : x, scale += fabs(x);
    }
    worst = fmax(worst, fabs(got - want) / scale);
  }
  return worst;
}

int main(int argc, char **argv) {
  int n = 8192, b = 2048, reps = 3;
  const char *name = NULL, *op = argc > 1 ? argv[1] : "";
  const char *usage = "gpu_vendor gemm|potrf --peer NAME [-n N] "
                      "[-b tile dividing N] [-r reps] | tiles [-b tile] "
                      "[-r reps]";
  const struct bench_opt opts[] = {
      BENCH_OPT("--peer", BENCH_STRING, &name, 0, 0),
      BENCH_OPT("-n", BENCH_INT, &n, 1, 1 << 30),
      BENCH_OPT("-b", BENCH_INT, &b, 1, 1 << 30),
      BENCH_OPT("-r", BENCH_INT, &reps, 1, 1000), BENCH_OPT_END};
  if (bench_parse(argv[0], argc - 1, argv + 1, opts, stderr))
    return bench_usage(-1, usage);
  if (!strcmp(op, "tiles")) {
    vendor_tile_rates(b, reps);
    return 0;
  }
  int gemm = !strcmp(op, "gemm");
  const struct peer *p = gemm ? vendor_gemm_peers : vendor_potrf_peers;
  while (p->name && (!name || strcmp(p->name, name)))
    p++;
  if ((!gemm && strcmp(op, "potrf")) || !p->name || n % b) {
    fprintf(stderr, "peers of %s:", op);
    for (p = gemm ? vendor_gemm_peers : vendor_potrf_peers; p->name; p++)
      fprintf(stderr, " %s", p->name);
    fprintf(stderr, "\n");
    return bench_usage(-1, usage);
  }

  /* The context first: without a device, end before filling gigabytes. */
  CHECK(cudaFree(NULL));
  struct job j = {.n = n, .b = b, .bytes = (size_t)n * n * sizeof(double)};
  j.a = host_matrix(j.bytes, p->page_locked);
  if (gemm) {
    j.bm = host_matrix(j.bytes, p->page_locked);
    j.c = host_matrix(j.bytes, p->page_locked);
    fill(j.a, n, SEED_A, 0);
    fill(j.bm, n, SEED_B, 0);
  }
  for (int m = 0; m < (gemm ? 3 : 1); m++)
    CHECK(cudaMalloc((void **)&j.d[m], j.bytes));
  CHECK(cublasCreate(&j.blas));
  CHECK(cusolverDnCreate(&j.solver));
  CHECK(cudaStreamCreateWithFlags(&j.in, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&j.compute, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&j.out, cudaStreamNonBlocking));
  CHECK(cublasSetStream(j.blas, j.compute));
  CHECK(cusolverDnSetStream(j.solver, j.compute));
  if (!gemm) {
    CHECK(cusolverDnDpotrf_bufferSize(j.solver, CUBLAS_FILL_MODE_LOWER, n,
                                      j.d[0], n, &j.lwork));
    CHECK(cudaMalloc((void **)&j.work, (size_t)j.lwork * sizeof(double)));
    CHECK(cudaMalloc((void **)&j.info, (size_t)(n / b) * sizeof(int)));
  }

  double best = INFINITY, flops = gemm ? 2.0 * n * n * n : n * n * (n / 3.0);
  for (int r = 0; r < reps; r++) {
    /* The matrix the operation overwrites, as it was. */
    fill(gemm ? j.c : j.a, n, SEED_C, !gemm);
    if (p->prepare)
      p->prepare(&j);
    vendor_sync();
    double t0 = bench_now();
    p->run(&j);
    double t = bench_now() - t0;
    best = fmin(best, t);
    printf("%s runtime=%s n=%d b=%d rep=%d time=%.4f\n", op, p->name, n, b,
           r + 1, t);
    fflush(stdout);
  }
  if (p->finish)
    p->finish(&j);
  vendor_sync();
  double error = sampled_error(&j, gemm);
  printf("%s runtime=%s n=%d b=%d reps=%d time=%.4f tflops=%.2f "
         "error=%.1e\n",
         gemm ? "gemm" : "cholesky", p->name, n, b, reps, best,
         flops / best * 1e-12, error);
  if (!(error <= 16 * n * DBL_EPSILON)) {
    fprintf(stderr, "gpu_vendor: %s %s: sampled error %.1e: WRONG\n", op,
            p->name, error);
    return 1;
  }
  return 0;
}

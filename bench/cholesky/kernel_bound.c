/* kernel_bound.c — the tighter ceiling of run-cholesky: how fast the tiled
 * Cholesky could run if scheduling cost nothing, given how long its kernels
 * take on this machine in this run.
 *
 *   cholesky_bound [-n N] [-b tile] [-t threads] [-r reps]
 *
 * Each of `threads` threads factors a matrix of its own, serially, in the
 * loop order of chol_walk, timing every kernel call: so every kernel runs
 * with all cores busy, as it does under a runtime (the cores share caches
 * and memory bandwidth; a kernel timed on an idle machine would be faster
 * than any runtime can make it). From thread 0's durations it computes
 *
 *   work  the sum of all kernel times, divided by `threads`: the time with
 *         perfect balance;
 *   path  the critical path: each task starts when the last writer of every
 *         tile it touches, and the readers of every tile it writes, are done
 *         (the dependences dag, OpenMP and StarPU all respect);
 *
 * and the bound max(work, path). No schedule on `threads` workers running
 * these kernels can finish sooner. Prints, for the repetition with the
 * smallest bound,
 *
 *   bound n=N b=B threads=T work=S path=S time=S gflops=G
 *
 * (gflops counts n^3/3 flops over time), then each kernel's own rate on
 * one thread, in GFLOP/s,
 *
 *   kernels n=N b=B potrf=G trsm=G syrk=G gemm=G
 *
 * A tiled Cholesky below the
 * threaded dgemm rate but at this bound loses its time in its kernels
 * (potrf, trsm and syrk on a tile run slower than a large dgemm), not in
 * the runtime.
 */
#define _POSIX_C_SOURCE 200809L

#include "harness.h"
#include "sample_util.h"
#include "tiles.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern void openblas_set_num_threads(int num_threads);

/* Where one kind of kernel's time went. */
struct kernel_time {
  double seconds, flops;
};

static const char *const kernel_names[] = {"potrf", "trsm", "syrk", "gemm"};

/* One thread's factorization: its matrix, and the timeline of its tasks as
 * if each had started as soon as its dependences allowed. */
struct walker {
  double *a;
  int n, bs, nt;
  double work;        /* sum of kernel times of this repetition */
  double path;        /* latest finish on the dependence-only timeline */
  double *written_at; /* per tile: finish of its last writer */
  double *read_until; /* per tile: latest finish of a reader since then */
  struct kernel_time kernels[4]; /* per enum chol_kernel, this repetition */
};

static double *tile_at(struct walker *w, int i, int j) {
  return chol_tile(w->a, w->n, w->bs, i, j);
}

static int dim(struct walker *w, int i) {
  return chol_tile_dim(w->n, w->bs, i);
}

/* Books a task of `kernel` that ran `seconds` and did `flops`, read tiles r0
 * and r1 (-1: none) and wrote tile wr, on the dependence-only timeline. */
static void book(struct walker *w, enum chol_kernel kernel, double seconds,
                 double flops, int r0, int r1, int wr) {
  w->kernels[kernel].seconds += seconds;
  w->kernels[kernel].flops += flops;
  double start = fmax(w->written_at[wr], w->read_until[wr]);
  if (r0 >= 0)
    start = fmax(start, w->written_at[r0]);
  if (r1 >= 0)
    start = fmax(start, w->written_at[r1]);
  double end = start + seconds;
  if (r0 >= 0)
    w->read_until[r0] = fmax(w->read_until[r0], end);
  if (r1 >= 0)
    w->read_until[r1] = fmax(w->read_until[r1], end);
  w->written_at[wr] = end;
  w->read_until[wr] = end;
  w->work += seconds;
  w->path = fmax(w->path, end);
}

static int tile_id(struct walker *w, int i, int j) { return i * w->nt + j; }

static void run_potrf(void *ctx, int k) {
  struct walker *w = ctx;
  double t0 = bench_now();
  double b = dim(w, k);
  tile_potrf(tile_at(w, k, k), dim(w, k), w->n);
  book(w, CHOL_POTRF, bench_now() - t0, b * b * b / 3, -1, -1,
       tile_id(w, k, k));
}

/* trsm or syrk, on dim(i) rows and dim(k) columns: reads tile (ri, rj),
 * writes tile (wi, wj). */
static void run_pair(struct walker *w, enum chol_kernel kernel, int i, int k,
                     int ri, int rj, int wi, int wj) {
  double t0 = bench_now();
  double m = dim(w, i), b = dim(w, k);
  (kernel == CHOL_TRSM ? tile_trsm : tile_syrk)(
      tile_at(w, ri, rj), tile_at(w, wi, wj), dim(w, i), dim(w, k), w->n);
  book(w, kernel, bench_now() - t0,
       kernel == CHOL_TRSM ? m * b * b : m * (m + 1) * b, tile_id(w, ri, rj),
       -1, tile_id(w, wi, wj));
}

static void run_trsm(void *ctx, int i, int k) {
  run_pair(ctx, CHOL_TRSM, i, k, k, k, i, k);
}

static void run_syrk(void *ctx, int i, int k) {
  run_pair(ctx, CHOL_SYRK, i, k, i, k, i, i);
}

static void run_gemm(void *ctx, int i, int j, int k) {
  struct walker *w = ctx;
  double t0 = bench_now();
  tile_gemm(tile_at(w, i, k), tile_at(w, j, k), tile_at(w, i, j), dim(w, i),
            dim(w, j), dim(w, k), w->n);
  book(w, CHOL_GEMM, bench_now() - t0, 2.0 * dim(w, i) * dim(w, j) * dim(w, k),
       tile_id(w, i, k), tile_id(w, j, k), tile_id(w, i, j));
}

static const struct chol_ops timed_ops = {run_potrf, run_trsm, run_syrk,
                                          run_gemm};

/* What every thread shares: the problem, and a barrier so that all threads
 * factor at the same time in every repetition. */
struct run {
  int threads, reps;
  pthread_barrier_t start;
};

struct thread_arg {
  const struct run *run;
  struct walker walker;
  /* The repetition with the smallest bound. */
  double best_work, best_path;
  struct kernel_time best_kernels[4];
};

static double bound_of(double work, double path, int threads) {
  return fmax(work / threads, path);
}

static void *factor_repeatedly(void *p) {
  struct thread_arg *arg = p;
  struct walker *w = &arg->walker;
  const struct run *run = arg->run;
  size_t tiles = (size_t)w->nt * w->nt;
  arg->best_work = arg->best_path = INFINITY;
  for (int r = 0; r < run->reps; r++) {
    sample_spd(w->a, w->n, 2024);
    memset(w->written_at, 0, tiles * sizeof *w->written_at);
    memset(w->read_until, 0, tiles * sizeof *w->read_until);
    w->work = w->path = 0;
    memset(w->kernels, 0, sizeof w->kernels);
    pthread_barrier_wait((pthread_barrier_t *)&run->start);
    chol_walk(&timed_ops, w, w->nt);
    if (bound_of(w->work, w->path, run->threads) <
        bound_of(arg->best_work, arg->best_path, run->threads)) {
      arg->best_work = w->work;
      arg->best_path = w->path;
      memcpy(arg->best_kernels, w->kernels, sizeof w->kernels);
    }
  }
  return NULL;
}

int main(int argc, char **argv) {
  int n = 4096, bs = 256, threads = 2, reps = 3;
  const struct bench_opt opts[] = {
      BENCH_OPT("-n", BENCH_INT, &n, 1, 1 << 20),
      BENCH_OPT("-b", BENCH_INT, &bs, 1, 1 << 20),
      BENCH_OPT("-t", BENCH_INT, &threads, 1, 1 << 20),
      BENCH_OPT("-r", BENCH_INT, &reps, 1, 1 << 20), BENCH_OPT_END};
  int rc = bench_args(argc, argv, opts,
                      "cholesky_bound [-n N] [-b tile] [-t threads] [-r reps]");
  if (rc >= 0)
    return rc;
  if (bs > n)
    bs = n;
  openblas_set_num_threads(1); /* as inside every runtime's tasks */

  struct run run = {.threads = threads, .reps = reps};
  pthread_barrier_init(&run.start, NULL, (unsigned)threads);
  struct thread_arg *args = calloc((size_t)threads, sizeof *args);
  pthread_t *ids = calloc((size_t)threads, sizeof *ids);
  int nt = chol_ntiles(n, bs);
  size_t tiles = (size_t)nt * nt;
  int failed = !args || !ids;
  for (int t = 0; t < threads && !failed; t++) {
    struct walker *w = &args[t].walker;
    *w = (struct walker){.n = n, .bs = bs, .nt = nt};
    w->a = malloc((size_t)n * n * sizeof *w->a);
    w->written_at = malloc(tiles * sizeof *w->written_at);
    w->read_until = malloc(tiles * sizeof *w->read_until);
    args[t].run = &run;
    failed = !w->a || !w->written_at || !w->read_until;
  }
  if (failed) {
    fprintf(stderr, "%s: out of memory for n = %d on %d threads\n", argv[0], n,
            threads);
    return 1;
  }
  for (int t = 1; t < threads; t++)
    pthread_create(&ids[t], NULL, factor_repeatedly, &args[t]);
  factor_repeatedly(&args[0]);
  for (int t = 1; t < threads; t++)
    pthread_join(ids[t], NULL);

  double work = args[0].best_work / threads, path = args[0].best_path;
  double time = fmax(work, path);
  printf("bound n=%d b=%d threads=%d work=%.4f path=%.4f time=%.4f "
         "gflops=%.2f\n",
         n, bs, threads, work, path, time,
         (double)n * n * n / 3.0 / time * 1e-9);
  printf("kernels n=%d b=%d", n, bs);
  for (int k = CHOL_POTRF; k <= CHOL_GEMM; k++) {
    const struct kernel_time *kt = &args[0].best_kernels[k];
    printf(" %s=%.2f", kernel_names[k],
           kt->seconds > 0 ? kt->flops / kt->seconds * 1e-9 : 0.0);
  }
  printf("\n");
  for (int t = 0; t < threads; t++) {
    free(args[t].walker.a);
    free(args[t].walker.written_at);
    free(args[t].walker.read_until);
  }
  free(args);
  free(ids);
  pthread_barrier_destroy(&run.start);
  return 0;
}

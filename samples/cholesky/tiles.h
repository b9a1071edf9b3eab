/* tiles.h — what every tiled Cholesky in this tree shares.
 *
 * The matrix is a row-major n x n array of doubles with leading dimension n.
 * A tile is a block of it addressed in place (never copied): tile (i, j)
 * starts at A + i*bs*n + j*bs and has chol_tile_dim(i) rows and
 * chol_tile_dim(j) columns (the last tile row and column may be narrower
 * when bs does not divide n). The factorization is lower: A = L L^T, L
 * overwrites the lower triangle, the strict upper triangle is left as is.
 *
 * This header gives the four tile kernels, the loop nest of the right-looking
 * algorithm (walked through a table of callbacks so that each runtime only
 * says how to submit a task), the task priorities, and chol_main: argument
 * parsing, matrix generation, timing, the residual check and the one-line
 * report, so that each runtime's program is only its task submission.
 */
#ifndef CHOL_TILES_H
#define CHOL_TILES_H

#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------ kernels */

/* In every kernel `ld` is the leading dimension (in elements) of the whole
 * matrix; m, n, k are the tile dimensions involved. */

/* Akk = L with Akk = L L^T, on the lower triangle of the k x k tile.
 * Aborts with a message if the tile is not positive definite. */
void tile_potrf(double *akk, int k, int ld);

/* Aik := Aik Lkk^-T (Aik is m x k, Lkk is the k x k lower tile). */
void tile_trsm(const double *lkk, double *aik, int m, int k, int ld);

/* Aii := Aii - Aik Aik^T on the lower triangle (Aii is m x m, Aik m x k). */
void tile_syrk(const double *aik, double *aii, int m, int k, int ld);

/* Aij := Aij - Aik Ajk^T (Aij is m x n, Aik m x k, Ajk n x k). */
void tile_gemm(const double *aik, const double *ajk, double *aij, int m, int n,
               int k, int ld);

/* ------------------------------------------------------- the algorithm */

enum chol_kernel { CHOL_POTRF, CHOL_TRSM, CHOL_SYRK, CHOL_GEMM };

/* How one runtime runs each kernel on tiles (i, j, k): submit a task, or
 * call it. `ctx` is the runtime's own state. */
struct chol_ops {
  void (*potrf)(void *ctx, int k);              /* Akk */
  void (*trsm)(void *ctx, int i, int k);        /* Aik with Akk */
  void (*syrk)(void *ctx, int i, int k);        /* Aii with Aik */
  void (*gemm)(void *ctx, int i, int j, int k); /* Aij with Aik, Ajk */
};

/* Calls ops in the sequential order of the right-looking tiled Cholesky on
 * nt x nt tiles: for each k, potrf(k), trsm(i, k) for i > k, then for i > k
 * syrk(i, k) and gemm(i, j, k) for k < j < i. */
void chol_walk(const struct chol_ops *ops, void *ctx, int nt);

/* Priority of a task, in 0 .. chol_max_priority(nt), larger is more urgent.
 * It follows the critical path: a task that writes tile column c ranks by
 * how soon column c is needed (leftmost first), and within a column potrf
 * before trsm before updates. So potrf(k+1) and the trsm of panel k+1 pass
 * the rest of step k's trailing update (lookahead). */
int chol_priority(enum chol_kernel kernel, int i, int j, int k, int nt);
int chol_max_priority(int nt);

/* --------------------------------------------------- problem and report */

/* The factorization as one runtime runs it. */
struct chol_runtime {
  const char *name;   /* in the report: "dag", "gomp", "starpu", ... */
  const char *config; /* how it is set up, free text; may be NULL */
  /* Starts the runtime before anything is timed; returns the number of
   * threads that run tasks, or a negative number on failure. */
  int (*start)(void);
  /* Factors the n x n matrix a (leading dimension n) in tiles of bs; timed.
   * Returns 0, or non-zero after printing why it failed. */
  int (*factor)(double *a, int n, int bs);
  /* Stops the runtime after the timed part (may be NULL). */
  void (*stop)(void);
  /* Untimed, before and after each factorization (each may be NULL): what
   * a runtime's own benchmarks keep out of the time, as StarPU's
   * registration of the tiles. prepare returns 0, or non-zero after
   * undoing what it did and printing why it failed (release is not called
   * then). */
  int (*prepare)(double *a, int n, int bs);
  void (*release)(void);
};

/* Number of tiles along one dimension, and the size of tile row/column i. */
int chol_ntiles(int n, int bs);
int chol_tile_dim(int n, int bs, int i);

/* Address of tile (i, j) of the row-major n x n matrix a. */
static inline double *chol_tile(double *a, int n, int bs, int i, int j) {
  return a + (size_t)i * bs * n + (size_t)j * bs;
}

/* The whole program: parses `[-n N] [-b tile] [-r reps] [--check]`, builds a
 * random SPD matrix, starts the runtime, factors it reps times (from the
 * same matrix; the best time counts), stops the runtime, checks the result
 * and prints one line:
 *   cholesky runtime=NAME n=N b=B workers=W time=S gflops=G residual=R
 *            check=KIND[ config=TEXT]
 * where time is in seconds, gflops counts n^3/3 flops, KIND is "full" with
 * --check (||A - L L^T||_F / ||A||_F, about n^3/3 flops on two OpenBLAS
 * threads) or "probe" without (||A x - L L^T x|| / (||A||_F ||x||) for a
 * fixed pseudo-random x, O(n^2)), and config (the rest of the line) is
 * rt->config. Returns the exit status: non-zero on bad arguments, a failed
 * run, or a residual above 100 n eps. */
int chol_main(int argc, char **argv, const struct chol_runtime *rt);

#endif /* CHOL_TILES_H */

/* linalg_program.h — what the programs of the linalg group share beyond
 * their problems (blas_tiles.h, factor_tiles.h): their data, its set-up and
 * release, the result's check and sum=, and main. The programs of GEMM,
 * SYRK, GEMV and Cholesky (blas.c on dag and OpenMP, blas_lapacke.c)
 * and of LU, QR and the solve (factor.c, factor_omptask.c,
 * factor_lapacke.c) each say how they fill, run and check.
 */
#ifndef BENCH_LINALG_PROGRAM_H
#define BENCH_LINALG_PROGRAM_H

#include <stdbool.h>
#include <stdint.h>

#include "blas_tiles.h"
#include "factor_tiles.h"

/* ------------------------------------------------- GEMM, SYRK, GEMV, Cholesky
 */

/* One run's data: n x n matrices in bs x bs tiles, nt tiles a side (one
 * tile of n for a program that is not tiled), from suite_matrix (gemv's A
 * from suite_bands); those the kernel does not use are NULL. x and y are
 * gemv's vectors, on every rank. */
struct blas_problem {
  long n, bs, nt;
  void *a, *b, *c;
  double *x, *y;
};

/* A check of blas_tiles.h on a matrix of strides (rs, cs). */
typedef double blas_check_fn(const double *m, long rs, long cs, long n);

struct blas_program {
  const char *runtime; /* suite_init's */
  bool tiled;          /* false: one call on the whole matrix, b = n */
  /* Fills m with the input `shape` of `seed`. */
  void (*fill)(const struct blas_problem *p, void *m, enum blas_shape shape,
               uint64_t seed);
  /* The kernels, by enum blas_kernel: timed. */
  void (*run[BLAS_CHOLESKY + 1])(const struct blas_problem *p);
  /* check(m) of a result matrix m, and the sum of its entries (of its lower
   * triangle when lower is set). */
  double (*check)(const struct blas_problem *p, void *m, blas_check_fn *fn);
  double (*sum)(const struct blas_problem *p, void *m, bool lower);
  int (*threads)(void); /* the SUITE line's workers */
};

/* The program's main: arguments, data, the timed repetitions (the inputs
 * filled again before each), the check and the SUITE line. */
int blas_main(int argc, char **argv, const struct blas_program *prog);

/* ------------------------------------------------------- LU, QR, solve */

/* One run's data: A, n x n column-major in b x b tiles, from
 * suite_colmajor (held as its transpose: A[j][i] is A(i, j)); for qr, T,
 * the tiles' triangular factors (tw = QR_IB per tile column, from
 * suite_colmajor too); the pivots and the solve's right-hand side and
 * solution, on every rank; and what else the program asked for (scratch).
 */
struct factor_problem {
  enum factor_kernel kernel;
  long n, b, tw;
  double *a, *t;
  int *ipiv;
  double *x;
  void *scratch;
};

struct factor_program {
  const char *runtime;      /* suite_init's */
  bool tiled;               /* false: one call on the whole matrix, b = n */
  void *(*scratch)(long n); /* NULL: none; freed with free() */
  void (*fill)(const struct factor_problem *p); /* A, untimed */
  void (*run)(struct factor_problem *p);        /* timed */
  struct factor_result (*check)(const struct factor_problem *p);
  int (*threads)(void); /* the SUITE line's workers */
};

/* factor_tiles.h's fill and check on the whole of A, for programs whose
 * one process holds it. */
void factor_fill_problem(const struct factor_problem *p);
struct factor_result factor_check_problem(const struct factor_problem *p);

/* The program's main: arguments, data, the timed repetitions (A and b
 * made again before each), the check and the SUITE line. */
int factor_main(int argc, char **argv, const struct factor_program *prog);

#endif

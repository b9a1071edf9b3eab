/* factor_tiles.h — what the LU, QR and solve programs of the linalg group
 * share: the problems (their matrices, work and checks) and the tile
 * kernels of the tiled programs.
 *
 * Three programs solve the same three problems: factor.c (dag, and serial
 * with plain cc), factor_omptask.c (OpenMP tasks with depend) and
 * factor_lapacke.c (one threaded OpenBLAS/LAPACKE call on the whole
 * matrix). The tiled two run the same tile kernels (below) in the same
 * order on each tile, so they compute the same bits.
 *
 * The problems, on the n x n matrix A(i, j) = suite_random(1, i*n + j)
 * (0-based; the global row-major index) and b(i) = suite_random(2, i),
 * made by blas_tiles.h's blas_fill (BLAS_GENERAL, seed 1) and
 * blas_random_vector (seed 2), checked against its tolerance, blas_tol:
 *
 *   lu     P A = L U, partial pivoting (LAPACK's dgetrf)    2 n^3 / 3 flops
 *   qr     A = Q R, Householder (Q kept as reflectors)      4 n^3 / 3
 *   solve  A x = b through that LU (LAPACK's dgesv)         2 n^3 / 3 + 2 n^2
 *
 * Layout: every program stores A column-major with leading dimension n,
 * LAPACK's own layout, so that each LAPACK kernel works on the tiles in
 * place. (LAPACKE's LAPACK_ROW_MAJOR copies and transposes every argument
 * into a column-major workspace and back: on one core here that made the
 * dgetrf of a 4096 x 256 panel 1.8 times and a 256 x 256 dgemqrt 2.6 times
 * slower, and LAPACKE 3.11's row-major dtpmqrt rejects every call, its
 * `side` test being wrong. Nor can LAPACK work on a row-major A as the
 * column-major A^T it is: A's row pivoting would be column pivoting
 * there, which LAPACK's LU has not.)
 *
 * In the tiled programs the matrix is an array of n columns,
 * `double (*A)[n]`, with A[j][i] = A(i, j): tile (i, j), rows i*b .. and
 * columns j*b .., is A[j*b .. + dj][i*b .. + di], and its address
 * &A[j*b][i*b]. The tiles are b x b (the last row and column of tiles may
 * be smaller).
 */
#ifndef FACTOR_TILES_H
#define FACTOR_TILES_H

#include <stdint.h>

#include "suite.h"

/* ------------------------------------------------------------- problems */

/* The kernels, in the order of enum factor_kernel; NULL-terminated for
 * suite_init. */
enum factor_kernel { FACTOR_LU, FACTOR_QR, FACTOR_SOLVE };
extern const char *const factor_kernels[];

/* The flops of each kernel, by definition (not what a program executes). */
double factor_flops(enum factor_kernel k, long n);

/* What a check finds: the scale-free residual, and a checksum of the
 * result, added in column-major order. */
struct factor_result {
  double resid;
  double sum;
};

/* The check of kernel k: an O(n^2) probe residual computed from the
 * result and A and b regenerated from their formulas, with the fixed
 * vector x(j) = suite_random(BLAS_PROBE_SEED, j) (solve uses its solution
 * instead). Q is never formed.
 *
 *   lu     ||P A x - L (U x)|| / (||A||_F ||x||); a holds L (unit, below
 *          the diagonal) and U, ipiv LAPACK's pivots (1-based: row k was
 *          swapped with row ipiv[k] - 1, for k = 0, 1, ...); sum: all of a
 *   qr     ||A^T (A x) - R^T (R x)|| / (||A||_F^2 ||x||); R is the upper
 *          triangle of a; sum: R
 *   solve  ||A x - b|| / (||A||_F ||x|| + ||b||), x the solution; sum: x
 *
 * a is column-major with leading dimension n; what a kernel does not use
 * may be NULL (a and ipiv for solve, ipiv and x for qr, x for lu). Norms
 * are 2-norms of vectors and Frobenius norms of matrices. The residual is
 * NaN if the check cannot get memory. */
struct factor_result factor_check(enum factor_kernel k, const double *a,
                                  const int *ipiv, const double *x, long n);

/* Priority of a task of a tiled program that writes tile column c (of nt):
 * nt - c, so that the columns the next panels need come first (the next
 * panel runs while the rest of the trailing update still does). The
 * row interchanges left of the panel, which nothing waits for until the
 * end, get 0. */
static inline int factor_priority(long c, long nt) { return (int)(nt - c); }

/* --------------------------------------------------------- tile kernels */

/* Single-threaded OpenBLAS/LAPACK calls (tasks run them in parallel) on
 * tiles of the column-major matrix with leading dimension ld, addressed in
 * place. m, n, k are the dimensions involved. They abort with a message
 * when LAPACK rejects an argument or memory runs out. */

/* LU panel: factors the m x n column strip a (m >= n) with partial pivoting
 * (LAPACK's dgetrf, which goes on past a zero pivot as dgetrf does), and
 * stores its n pivots in ipiv as rows of the whole matrix: the strip's top
 * row is the matrix's row `row0`. */
void lu_panel(double *a, long m, long n, long ld, int *ipiv, long row0);

/* Applies the row interchanges ipiv[k0 .. k0 + count) (rows of the whole
 * matrix, LAPACK's 1-based values) in order to the n columns a, whose
 * first entry is in row 0. Only rows k0 and below are touched. */
void lu_swap(double *a, long n, long ld, const int *ipiv, long k0, long count);

/* B := L^-1 B, L the unit lower triangle of the m x m tile l, B m x n. */
void lu_trsm(const double *l, double *b, long m, long n, long ld);

/* C := C - A B (C m x n, A m x k, B k x n). */
void lu_gemm(const double *a, const double *b, double *c, long m, long n,
             long k, long ld);

/* Applies the row interchanges ipiv[0 .. n) to the vector x, in order. */
void solve_swap(double *x, const int *ipiv, long n);

/* x := T^-1 x, T the m x m tile t's unit lower triangle (lower != 0) or
 * upper triangle. */
void solve_trsv(const double *t, double *x, long m, long ld, int lower);

/* y := y - A x (A m x n, y and x contiguous). */
void solve_gemv(const double *a, const double *x, double *y, long m, long n,
                long ld);

/* The inner block order of the QR kernels (LAPACK's nb of dgeqrt): the
 * reflectors are applied ib at a time, and each tile's triangular factors
 * T are ib x (the tile's columns), ib x b. 32 and 64 ran the whole QR at
 * the same speed here (n = 4096, b = 256 and 384, two threads, within the
 * noise); the smaller does fewer extra flops. */
#define QR_IB 32

/* The ib actually used on a tile with n columns (LAPACK wants ib <= n). */
static inline long qr_ib(long n) { return n < QR_IB ? n : QR_IB; }

/* QR of the m x n tile a (m >= n): R in its upper triangle, the
 * reflectors V below, their triangular factors in the ib x n t (leading
 * dimension ldt). LAPACK's dgeqrt. */
void qr_geqrt(double *a, long m, long n, double *t, long ldt, long ld);

/* C := Q^T C, Q the k reflectors of a qr_geqrt'ed tile (v, t), C k x n.
 * LAPACK's dgemqrt. */
void qr_gemqrt(const double *v, const double *t, double *c, long k, long n,
               long ldt, long ld);

/* QR of the n x n upper triangle R stacked on the m x n tile a: R updated,
 * the reflectors' lower parts V overwrite a, their factors go to the
 * ib x n t. LAPACK's dtpqrt (a full tile: no trapezoid). */
void qr_tpqrt(double *r, double *a, double *t, long m, long n, long ldt,
              long ld);

/* [C; D] := Q^T [C; D], Q the k reflectors of a qr_tpqrt (v m x k, t), C
 * k x n, D m x n. LAPACK's dtpmqrt. */
void qr_tpmqrt(const double *v, const double *t, double *c, double *d, long m,
               long n, long k, long ldt, long ld);

#endif /* FACTOR_TILES_H */

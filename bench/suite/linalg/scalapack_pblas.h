/* scalapack_pblas.h — the PBLAS and ScaLAPACK routines that the linalg
 * group's ScaLAPACK program calls beyond those scalapack_grid.h
 * declares (pdgemm, pdpotrf, numroc, descinit). Debian's
 * libscalapack-openmpi ships no C header: these are the Fortran entry
 * points, every argument by address, and each character argument followed
 * by a hidden length at the end (harmless for the PBLAS routines, which are
 * written in C and ignore it).
 */
#ifndef BENCH_SUITE_LINALG_SCALAPACK_PBLAS_H
#define BENCH_SUITE_LINALG_SCALAPACK_PBLAS_H

#include <stddef.h>

/* y = alpha op(A) x + beta y. */
void pdgemv_(const char *trans, const int *m, const int *n, const double *alpha,
             const double *a, const int *ia, const int *ja, const int *desca,
             const double *x, const int *ix, const int *jx, const int *descx,
             const int *incx, const double *beta, double *y, const int *iy,
             const int *jy, const int *descy, const int *incy,
             size_t trans_len);

/* y = alpha A x + beta y, A symmetric, stored in its uplo triangle. */
void pdsymv_(const char *uplo, const int *n, const double *alpha,
             const double *a, const int *ia, const int *ja, const int *desca,
             const double *x, const int *ix, const int *jx, const int *descx,
             const int *incx, const double *beta, double *y, const int *iy,
             const int *jy, const int *descy, const int *incy, size_t uplo_len);

/* x = op(A) x, A triangular (uplo), unit diagonal when diag is "U". */
void pdtrmv_(const char *uplo, const char *trans, const char *diag,
             const int *n, const double *a, const int *ia, const int *ja,
             const int *desca, double *x, const int *ix, const int *jx,
             const int *descx, const int *incx, size_t uplo_len,
             size_t trans_len, size_t diag_len);

/* C = alpha op(A) op(A)^T + beta C, the uplo triangle of C only. */
void pdsyrk_(const char *uplo, const char *trans, const int *n, const int *k,
             const double *alpha, const double *a, const int *ia, const int *ja,
             const int *desca, const double *beta, double *c, const int *ic,
             const int *jc, const int *descc, size_t uplo_len,
             size_t trans_len);

/* P A = L U in place; ipiv: LOCr(n) + b entries, global row numbers. */
void pdgetrf_(const int *m, const int *n, double *a, const int *ia,
              const int *ja, const int *desca, int *ipiv, int *info);

/* A x = b through pdgetrf; b is overwritten by x. */
void pdgesv_(const int *n, const int *nrhs, double *a, const int *ia,
             const int *ja, const int *desca, int *ipiv, double *b,
             const int *ib, const int *jb, const int *descb, int *info);

/* A = Q R in place (R above the diagonal, Householder vectors below); tau:
 * LOCc(n) entries; lwork = -1 asks for the size of work in work[0]. */
void pdgeqrf_(const int *m, const int *n, double *a, const int *ia,
              const int *ja, const int *desca, double *tau, double *work,
              const int *lwork, int *info);

/* The global index (1-based) of local index indxloc (1-based) on process
 * iproc of nprocs, blocks of nb, first block on isrcproc. */
int indxl2g_(const int *indxloc, const int *nb, const int *iproc,
             const int *isrcproc, const int *nprocs);

#endif /* BENCH_SUITE_LINALG_SCALAPACK_PBLAS_H */

/* scalapack_grid.h — the BLACS grid and block-cyclic matrices of the linalg
 * group's ScaLAPACK program (scalapack.c), with the prototypes of the BLACS
 * and ScaLAPACK routines they call (Debian's libscalapack-openmpi has no C
 * header for them; scalapack_pblas.h has the rest).
 *
 * The grid is suite_grid's p x q with p <= q (dag_grid's), in row-major
 * order, so that process (r, c) is MPI rank r * q + c and global block
 * (I, J) lives on the same rank as tile (I, J) of the dag programs. Local
 * arrays are column-major, as ScaLAPACK wants.
 */
#ifndef BENCH_SUITE_LINALG_SCALAPACK_GRID_H
#define BENCH_SUITE_LINALG_SCALAPACK_GRID_H

#include <stddef.h>

/* BLACS, C interface. */
void Cblacs_pinfo(int *me, int *nprocs);
void Cblacs_get(int context, int what, int *value);
void Cblacs_gridinit(int *context, const char *order, int nprow, int npcol);
void Cblacs_gridinfo(int context, int *nprow, int *npcol, int *myrow,
                     int *mycol);
void Cblacs_gridexit(int context);
void Cblacs_exit(int keep_mpi);

/* ScaLAPACK tools and drivers (Fortran: arguments by address; character
 * arguments carry a hidden length). */
int numroc_(const int *n, const int *nb, const int *iproc, const int *isrcproc,
            const int *nprocs);
void descinit_(int *desc, const int *m, const int *n, const int *mb,
               const int *nb, const int *irsrc, const int *icsrc,
               const int *ictxt, const int *lld, int *info);
void pdpotrf_(const char *uplo, const int *n, double *a, const int *ia,
              const int *ja, const int *desca, int *info, size_t uplo_len);
void pdgemm_(const char *transa, const char *transb, const int *m, const int *n,
             const int *k, const double *alpha, const double *a, const int *ia,
             const int *ja, const int *desca, const double *b, const int *ib,
             const int *jb, const int *descb, const double *beta, double *c,
             const int *ic, const int *jc, const int *descc, size_t transa_len,
             size_t transb_len);

struct sl_grid {
  int context, p, q, myrow, mycol;
};

/* An n x n matrix in b x b blocks on the grid: this process's part. */
struct sl_matrix {
  int n, b, mloc, nloc, lld;
  int desc[9];
  double *a; /* mloc x nloc, column-major, leading dimension lld */
};

/* The p x q grid of all MPI ranks. Returns 0, or prints why and returns
 * non-zero. */
int sl_grid_init(struct sl_grid *g);
void sl_grid_exit(struct sl_grid *g);

/* Allocates this process's part and its descriptor; 0 or non-zero. */
int sl_matrix_init(struct sl_matrix *m, const struct sl_grid *g, int n, int b);
void sl_matrix_free(struct sl_matrix *m);

/* Sets every local element to f(i, j, ctx) of its global indices. */
void sl_matrix_fill(struct sl_matrix *m, const struct sl_grid *g,
                    double (*f)(int i, int j, void *ctx), void *ctx);

#endif /* BENCH_SUITE_LINALG_SCALAPACK_GRID_H */

/* scalapack.c — grid, matrices and gather for the ScaLAPACK programs (see
 * scalapack.h). */
#include "scalapack.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "common.h"

int sl_grid_init(struct sl_grid *g) {
  int me, nprocs;
  Cblacs_pinfo(&me, &nprocs);
  bench_grid(nprocs, &g->p, &g->q);
  Cblacs_get(-1, 0, &g->context);
  Cblacs_gridinit(&g->context, "Row", g->p, g->q);
  int p, q;
  Cblacs_gridinfo(g->context, &p, &q, &g->myrow, &g->mycol);
  if (p != g->p || q != g->q || g->myrow * g->q + g->mycol != bench_rank()) {
    fprintf(stderr,
            "scalapack: rank %d is (%d, %d) of a %d x %d grid, not "
            "(%d, %d) of %d x %d\n",
            bench_rank(), g->myrow, g->mycol, p, q, bench_rank() / g->q,
            bench_rank() % g->q, g->p, g->q);
    return 1;
  }
  return 0;
}

void sl_grid_exit(struct sl_grid *g) {
  Cblacs_gridexit(g->context);
  Cblacs_exit(1); /* MPI stays up: the program finalizes it */
}

int sl_matrix_init(struct sl_matrix *m, const struct sl_grid *g, int n, int b) {
  int zero = 0, info = 0;
  m->n = n;
  m->b = b;
  m->mloc = numroc_(&n, &b, &g->myrow, &zero, &g->p);
  m->nloc = numroc_(&n, &b, &g->mycol, &zero, &g->q);
  m->lld = m->mloc > 1 ? m->mloc : 1;
  descinit_(m->desc, &n, &n, &b, &b, &zero, &zero, &g->context, &m->lld, &info);
  m->a = malloc((size_t)m->lld * (m->nloc > 0 ? m->nloc : 1) * sizeof *m->a);
  if (info != 0 || !m->a) {
    fprintf(stderr, "scalapack: descinit info %d, or out of memory\n", info);
    return 1;
  }
  return 0;
}

void sl_matrix_free(struct sl_matrix *m) {
  free(m->a);
  m->a = NULL;
}

/* Global index of local index l on grid coordinate c of `procs`. */
static int global(int l, int b, int c, int procs) {
  return (l / b * procs + c) * b + l % b;
}

void sl_matrix_fill(struct sl_matrix *m, const struct sl_grid *g,
                    double (*f)(int i, int j, void *ctx), void *ctx) {
  for (int lj = 0; lj < m->nloc; lj++) {
    int j = global(lj, m->b, g->mycol, g->q);
    double *col = m->a + (size_t)lj * m->lld;
    for (int li = 0; li < m->mloc; li++)
      col[li] = f(global(li, m->b, g->myrow, g->p), j, ctx);
  }
}

double *sl_matrix_gather(const struct sl_matrix *m, const struct sl_grid *g) {
  int rank = bench_rank(), zero = 0;
  if (rank != 0) {
    MPI_Send(m->a, m->lld * m->nloc, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD);
    return NULL;
  }
  size_t nn = (size_t)m->n * m->n;
  double *all = malloc(nn * sizeof *all), *part = NULL;
  if (!all)
    return NULL;
  for (int r = 0; r < g->p * g->q; r++) {
    int row = r / g->q, col = r % g->q;
    int mloc = numroc_(&m->n, &m->b, &row, &zero, &g->p);
    int nloc = numroc_(&m->n, &m->b, &col, &zero, &g->q);
    int lld = mloc > 1 ? mloc : 1;
    if (r == 0) {
      part = m->a;
    } else {
      part = malloc((size_t)lld * (nloc > 0 ? nloc : 1) * sizeof *part);
      if (!part)
        MPI_Abort(MPI_COMM_WORLD, 1);
      MPI_Recv(part, lld * nloc, MPI_DOUBLE, r, 7, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
    }
    for (int lj = 0; lj < nloc; lj++) {
      int j = global(lj, m->b, col, g->q);
      for (int li = 0; li < mloc; li++)
        all[(size_t)global(li, m->b, row, g->p) * m->n + j] =
            part[(size_t)lj * lld + li];
    }
    if (r != 0)
      free(part);
  }
  return all;
}

/* scalapack_grid.c — the grid and matrices of the ScaLAPACK program (see
 * scalapack_grid.h). */
#include "scalapack_grid.h"

#include <stdio.h>
#include <stdlib.h>

#include "suite.h"

int sl_grid_init(struct sl_grid *g) {
  int me, nprocs;
  Cblacs_pinfo(&me, &nprocs);
  suite_grid(nprocs, &g->p, &g->q);
  Cblacs_get(-1, 0, &g->context);
  Cblacs_gridinit(&g->context, "Row", g->p, g->q);
  int p, q;
  Cblacs_gridinfo(g->context, &p, &q, &g->myrow, &g->mycol);
  if (p != g->p || q != g->q || g->myrow * g->q + g->mycol != suite_rank()) {
    fprintf(stderr,
            "scalapack: rank %d is (%d, %d) of a %d x %d grid, not "
            "(%d, %d) of %d x %d\n",
            suite_rank(), g->myrow, g->mycol, p, q, suite_rank() / g->q,
            suite_rank() % g->q, g->p, g->q);
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

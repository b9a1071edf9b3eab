/* chol_scalapack.c — ScaLAPACK's pdpotrf on the same matrix, grid and
 * block size as chol_dag:
 *
 *   mpiexec -n R chol_scalapack [-n N] [-b B] [-r reps]
 *
 * One MPI rank per core, single-threaded OpenBLAS under ScaLAPACK (the run
 * script sets OPENBLAS_NUM_THREADS=1). The timed part is pdpotrf('L') on
 * every rank; the factor is then gathered on rank 0 and checked as the
 * others are. Output: see common.h.
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "common.h"
#include "scalapack.h"

static double spd(int i, int j, void *ctx) {
  return bench_spd(*(const int *)ctx, i, j);
}

int main(int argc, char **argv) {
  struct bench_opts o;
  int status = bench_init(&argc, &argv, "chol_scalapack", &o);
  if (status >= 0) {
    MPI_Finalize();
    return status;
  }
  struct sl_grid g;
  struct sl_matrix a;
  if (sl_grid_init(&g) || sl_matrix_init(&a, &g, o.n, o.b))
    MPI_Abort(MPI_COMM_WORLD, 1);
  int one = 1, info = 0;
  double best = 1e300;
  uint64_t sent = 0;
  for (int r = 0; r < o.reps; r++) {
    sl_matrix_fill(&a, &g, spd, &o.n);
    bench_barrier();
    uint64_t s0 = bench_bytes_sent();
    double t0 = bench_now();
    pdpotrf_("L", &o.n, a.a, &one, &one, a.desc, &info, 1);
    double t = bench_now() - t0;
    sent = bench_bytes_sent() - s0;
    if (info != 0) {
      fprintf(stderr, "chol_scalapack: pdpotrf info %d\n", info);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    t = bench_max(t);
    best = t < best ? t : best;
  }
  double *l = sl_matrix_gather(&a, &g), resid = 0.0;
  if (bench_rank() == 0)
    resid = l ? bench_chol_probe(l, o.n) : NAN;
  free(l);
  status =
      bench_report("cholesky", "scalapack", &o, g.p, g.q, 1, best, resid, sent,
                   bench_chol_min_bytes(o.n, o.b, g.p, g.q, bench_rank()));
  sl_matrix_free(&a);
  sl_grid_exit(&g);
  MPI_Finalize();
  return status;
}

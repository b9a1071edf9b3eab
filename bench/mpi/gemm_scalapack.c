/* gemm_scalapack.c — ScaLAPACK's pdgemm, C += A B, on the same matrices,
 * grid and block size as gemm_dag:
 *
 *   mpiexec -n R gemm_scalapack [-n N] [-b B] [-r reps]
 *
 * One MPI rank per core, single-threaded OpenBLAS under ScaLAPACK. The
 * timed part is pdgemm('N', 'N') on every rank; C is then gathered on rank
 * 0 and checked as the others are. Output: see common.h.
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "common.h"
#include "scalapack.h"

static double elem(int i, int j, void *ctx) {
  return bench_gemm_elem(*(const enum bench_gemm_matrix *)ctx, i, j);
}

int main(int argc, char **argv) {
  struct bench_opts o;
  int status = bench_init(&argc, &argv, "gemm_scalapack", &o);
  if (status >= 0) {
    MPI_Finalize();
    return status;
  }
  struct sl_grid g;
  struct sl_matrix a, b, c;
  if (sl_grid_init(&g) || sl_matrix_init(&a, &g, o.n, o.b) ||
      sl_matrix_init(&b, &g, o.n, o.b) || sl_matrix_init(&c, &g, o.n, o.b))
    MPI_Abort(MPI_COMM_WORLD, 1);
  static const enum bench_gemm_matrix ma = BENCH_A, mb = BENCH_B, mc = BENCH_C;
  int one = 1;
  double alpha = 1.0, beta = 1.0, best = 1e300;
  uint64_t sent = 0;
  for (int r = 0; r < o.reps; r++) {
    sl_matrix_fill(&a, &g, elem, (void *)&ma);
    sl_matrix_fill(&b, &g, elem, (void *)&mb);
    sl_matrix_fill(&c, &g, elem, (void *)&mc);
    bench_barrier();
    uint64_t s0 = bench_bytes_sent();
    double t0 = bench_now();
    pdgemm_("N", "N", &o.n, &o.n, &o.n, &alpha, a.a, &one, &one, a.desc, b.a,
            &one, &one, b.desc, &beta, c.a, &one, &one, c.desc, 1, 1);
    double t = bench_now() - t0;
    sent = bench_bytes_sent() - s0;
    t = bench_max(t);
    best = t < best ? t : best;
  }
  double *all = sl_matrix_gather(&c, &g), resid = 0.0;
  if (bench_rank() == 0)
    resid = all ? bench_gemm_probe(all, o.n) : NAN;
  free(all);
  status = bench_report("gemm", "scalapack", &o, g.p, g.q, 1, best, resid, sent,
                        bench_gemm_min_bytes(o.n, o.b, g.p, g.q, bench_rank()));
  sl_matrix_free(&c);
  sl_matrix_free(&b);
  sl_matrix_free(&a);
  sl_grid_exit(&g);
  MPI_Finalize();
  return status;
}

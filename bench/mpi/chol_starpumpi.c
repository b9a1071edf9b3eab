/* chol_starpumpi.c — the tiled Cholesky on StarPU-MPI 1.3 (Debian's
 * libstarpu-dev ships starpumpi-1.3), a peer of the linalg group's
 * Cholesky (bench/suite/linalg/blas.c) with its kernels, priorities,
 * matrix, grid, check and result line (bench/suite/suite.h):
 *
 *   mpiexec -n R chol_starpumpi -k cholesky [-n N] [-b B] [-r REPS] [-t S]
 *                                                            (b divides n)
 *
 * Each rank stores the lower tiles it owns (tile (i, j) on rank
 * (i mod p) q + j mod q of suite_grid's p x q grid, as the dag program's)
 * as separate b x b row-major arrays and registers every lower tile with
 * StarPU-MPI: its own ones in place, the others with no home (StarPU
 * allocates a copy when one arrives), each with its owner and a tag. Every
 * rank submits the whole loop nest with starpu_mpi_task_insert; StarPU-MPI
 * runs each task on the owner of the tile it writes and sends the tiles it
 * reads (owner computes), caching received tiles until they are written
 * again.
 *
 * suite_init initialises MPI (MPI_THREAD_MULTIPLE: the program times and
 * reduces while StarPU-MPI's thread uses MPI), then StarPU and StarPU-MPI
 * start on it (starpu_mpi_init_comm), so no core is reserved for the MPI
 * thread: as dag's progress thread, it shares the rank's core with the
 * STARPU_NCPU workers. STARPU_SCHED picks the scheduler (default prio: with
 * one worker per rank only the priorities matter, and it needs no
 * calibration; the codelets, chol_codelets.h, have the models that the
 * dm* schedulers want).
 *
 * Timed: submission and starpu_mpi_wait_for_all. Untimed: filling and
 * registering the tiles before each repetition, and after the last the
 * factor brought to rank 0 for the check and sum=.
 */
#define _POSIX_C_SOURCE 200809L /* starpu.h needs pthread rwlocks */

#include <cblas.h>
#include <mpi.h>
#include <starpu_mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHOL_STARPU_INSERT(...)                                                \
  starpu_mpi_task_insert(MPI_COMM_WORLD, __VA_ARGS__)
#include "blas_tiles.h"
#include "chol_codelets.h"
#include "peer_starpu.h"
#include "suite.h"

#define CHOL_STARPUMPI_SCHED "prio"

/* The tiles: this rank's own (NULL where another rank owns the tile), and
 * every lower tile's handle. */
struct tiles {
  long n, b;
  int p, q, rank;
  double **mine;
  struct chol c;
};

static int owner(const struct tiles *t, long i, long j) {
  return (int)(i % t->p) * t->q + (int)(j % t->q);
}

/* Fills this rank's tiles with the linalg group's SPD matrix and registers
 * every lower tile. */
static void fill_and_register(struct tiles *t) {
  long b = t->b;
  for (int i = 0; i < t->c.nt; i++)
    for (int j = 0; j <= i; j++) {
      double *m = t->mine[(size_t)i * t->c.nt + j];
      if (m)
        blas_fill(m, b, 1, BLAS_SPD, 1, t->n, i * b, j * b, b, b);
      starpu_mpi_data_register(chol_register(&t->c, i, j, m, b, b, b),
                               (starpu_mpi_tag_t)i * t->c.nt + j,
                               owner(t, i, j));
    }
}

/* The factor, row-major n x n, on rank 0 (NULL elsewhere). */
static double *factor_on_rank0(struct tiles *t) {
  long n = t->n, b = t->b;
  double *l =
      t->rank == 0 ? suite_need(calloc((size_t)(n * n), sizeof *l)) : NULL;
  for (int i = 0; i < t->c.nt; i++)
    for (int j = 0; j <= i; j++) {
      starpu_data_handle_t h = tile(&t->c, i, j);
      starpu_mpi_get_data_on_node(MPI_COMM_WORLD, h, 0);
      if (!l)
        continue;
      starpu_data_acquire(h, STARPU_R);
      const double *m = (const double *)starpu_matrix_get_local_ptr(h);
      for (long x = 0; x < b; x++)
        memcpy(&l[(i * b + x) * n + j * b], m + x * b, (size_t)b * sizeof *m);
      starpu_data_release(h);
    }
  return l;
}

int main(int argc, char **argv) {
  static const char *const kernels[] = {"cholesky", NULL};
  struct suite_opts o;
  int status = suite_init(&argc, &argv, "linalg", "starpumpi", kernels, &o);
  if (status >= 0) {
    suite_finish();
    return status;
  }
  struct tiles t = {
      .n = o.n, .b = o.b ? o.b : suite_tile_rule(o.n), .rank = suite_rank()};
  o.b = t.b;
  if (t.n % t.b != 0) {
    if (t.rank == 0)
      fprintf(stderr, "chol_starpumpi: b = %ld must divide n = %ld\n", t.b,
              t.n);
    suite_finish();
    return 2;
  }
  suite_grid(suite_nranks(), &t.p, &t.q);
  openblas_set_num_threads(1); /* tile kernels run in parallel tasks */
  if (peer_starpu_start(CHOL_STARPUMPI_SCHED, -1) != 0 ||
      starpu_mpi_init_comm(NULL, NULL, 0, MPI_COMM_WORLD) != 0) {
    fprintf(stderr, "chol_starpumpi: cannot start StarPU-MPI\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int nt = (int)(t.n / t.b);
  t.c = (struct chol){suite_need(calloc((size_t)nt * nt, sizeof *t.c.h)), nt, 0,
                      "chol_starpumpi: starpu_mpi_task_insert"};
  t.mine = suite_need(calloc((size_t)nt * nt, sizeof *t.mine));
  for (int i = 0; i < nt; i++)
    for (int j = 0; j <= i; j++)
      if (owner(&t, i, j) == t.rank)
        t.mine[(size_t)i * nt + j] =
            suite_need(aligned_alloc(64, (size_t)(t.b * t.b) * sizeof(double)));

  struct suite_times tt = {0};
  while (suite_more(&tt, &o)) {
    if (tt.reps > 0)
      chol_unregister(&t.c);
    fill_and_register(&t);
    starpu_mpi_barrier(MPI_COMM_WORLD);
    suite_begin(&tt);
    chol_walk(&chol_starpu_ops, &t.c, nt);
    starpu_mpi_wait_for_all(MPI_COMM_WORLD);
    suite_end(&tt);
    if (t.c.error)
      MPI_Abort(MPI_COMM_WORLD, 1);
  }
  double *l = factor_on_rank0(&t);
  chol_unregister(&t.c);
  int workers = (int)starpu_cpu_worker_get_count();
  starpu_mpi_shutdown();
  starpu_shutdown();

  double check = l ? blas_cholesky_check(l, t.n, 1, t.n) : 0.0;
  double sum = l ? blas_block_sum(l, t.n, 1, t.n, t.n, 1) : 0.0;
  status = suite_report(&o, workers, &tt, blas_flops(BLAS_CHOLESKY, t.n),
                        "GFLOP/s", check, blas_tol(t.n), sum);
  free(l);
  for (size_t i = 0; i < (size_t)nt * nt; i++)
    free(t.mine[i]);
  free(t.mine);
  free(t.c.h);
  suite_finish();
  return status;
}

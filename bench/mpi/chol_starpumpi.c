/* chol_starpumpi.c — the tiled Cholesky on StarPU-MPI 1.3 (Debian's
 * libstarpu-dev ships starpumpi-1.3), with the same kernels, priorities,
 * matrix, grid and tile size as chol_dag:
 *
 *   mpiexec -n R chol_starpumpi [-n N] [-b B] [-r reps]     (b divides n)
 *
 * Each rank stores the lower tiles it owns (2-D block-cyclic, as in the
 * other programs) as separate b x b row-major arrays and registers every
 * lower tile with StarPU-MPI: its own ones in place, the others with no
 * home (StarPU allocates a copy when one arrives), each with its owner and
 * a tag. Every rank submits the whole loop nest with
 * starpu_mpi_task_insert; StarPU-MPI runs each task on the owner of the
 * tile it writes and sends the tiles it reads (owner computes), caching
 * received tiles until they are written again.
 *
 * The program initialises MPI (MPI_THREAD_SERIALIZED) and StarPU itself,
 * then StarPU-MPI with starpu_mpi_init_comm, so no core is reserved for the
 * MPI thread: as dag's progress thread, it shares the rank's core with the
 * STARPU_NCPU workers. STARPU_SCHED picks the scheduler (default prio: with
 * one worker per rank only the priorities matter, and it needs no
 * calibration; the codelets, chol_codelets.h, have the models that the
 * dm* schedulers want). While StarPU-MPI's thread runs, only it calls MPI: the
 * timing barrier is starpu_mpi_barrier and the reductions wait until
 * starpu_mpi_shutdown.
 *
 * Timed: submission and starpu_mpi_wait_for_all (registration is not).
 * Output: see common.h.
 */
#define _POSIX_C_SOURCE 200809L /* starpu.h needs pthread rwlocks */

#include <mpi.h>
#include <starpu_mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHOL_STARPU_INSERT(...)                                                \
  starpu_mpi_task_insert(MPI_COMM_WORLD, __VA_ARGS__)
#include "chol_codelets.h"
#include "common.h"
#include "peer_starpu.h"

#define CHOL_STARPUMPI_SCHED "prio"

/* ---------------------------------------------------------------- main */

int main(int argc, char **argv) {
  struct bench_opts o;
  int status = bench_init(&argc, &argv, "chol_starpumpi", &o);
  if (status >= 0) {
    MPI_Finalize();
    return status;
  }
  int n = o.n, b = o.b, rank = bench_rank(), p, q;
  if (n % b != 0) {
    if (rank == 0)
      fprintf(stderr, "chol_starpumpi: b = %d must divide n = %d\n", b, n);
    MPI_Finalize();
    return 2;
  }
  bench_grid(bench_nranks(), &p, &q);

  if (peer_starpu_start(CHOL_STARPUMPI_SCHED, -1) != 0 ||
      starpu_mpi_init_comm(NULL, NULL, 0, MPI_COMM_WORLD) != 0) {
    fprintf(stderr, "chol_starpumpi: cannot start StarPU-MPI\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int workers = (int)starpu_cpu_worker_get_count();

  int nt = n / b;
  size_t tile_bytes = (size_t)b * b * sizeof(double);
  double **mine = calloc((size_t)nt * nt, sizeof *mine);
  struct chol c = {calloc((size_t)nt * nt, sizeof *c.h), nt, 0,
                   "chol_starpumpi: starpu_mpi_task_insert"};
  double *times = calloc((size_t)o.reps, sizeof *times);
  if (!mine || !c.h || !times)
    MPI_Abort(MPI_COMM_WORLD, 1);
  for (int i = 0; i < nt; i++)
    for (int j = 0; j <= i; j++)
      if (bench_owner(i, j, p, q) == rank &&
          !(mine[(size_t)i * nt + j] = aligned_alloc(64, tile_bytes)))
        MPI_Abort(MPI_COMM_WORLD, 1);

  uint64_t sent = 0;
  double *l = NULL; /* the factor on rank 0 */
  for (int r = 0; r < o.reps; r++) {
    for (int i = 0; i < nt; i++)
      for (int j = 0; j <= i; j++) {
        double *t = mine[(size_t)i * nt + j];
        if (t) /* fill the tile, then register it in place */
          for (int x = 0; x < b; x++)
            for (int y = 0; y < b; y++)
              t[(size_t)x * b + y] = bench_spd(n, i * b + x, j * b + y);
        starpu_mpi_data_register(chol_register(&c, i, j, t, b, b, b),
                                 (starpu_mpi_tag_t)i * nt + j,
                                 bench_owner(i, j, p, q));
      }
    starpu_mpi_barrier(MPI_COMM_WORLD);
    uint64_t s0 = bench_bytes_sent();
    double t0 = bench_now();
    chol_walk(&chol_starpu_ops, &c, nt);
    starpu_mpi_wait_for_all(MPI_COMM_WORLD);
    times[r] = bench_now() - t0;
    sent = bench_bytes_sent() - s0;
    if (c.error)
      MPI_Abort(MPI_COMM_WORLD, 1);
    if (r == o.reps - 1) { /* the factor to rank 0, untimed */
      if (rank == 0 && !(l = calloc((size_t)n * n, sizeof *l)))
        MPI_Abort(MPI_COMM_WORLD, 1);
      for (int i = 0; i < nt; i++)
        for (int j = 0; j <= i; j++) {
          starpu_data_handle_t h = tile(&c, i, j);
          starpu_mpi_get_data_on_node(MPI_COMM_WORLD, h, 0);
          if (rank != 0)
            continue;
          starpu_data_acquire(h, STARPU_R);
          const double *t = (const double *)starpu_matrix_get_local_ptr(h);
          for (int x = 0; x < b; x++)
            memcpy(&l[(size_t)(i * b + x) * n + j * b], t + (size_t)x * b,
                   (size_t)b * sizeof *t);
          starpu_data_release(h);
        }
    }
    chol_unregister(&c);
  }
  starpu_mpi_shutdown();
  starpu_shutdown();

  double best = 1e300;
  for (int r = 0; r < o.reps; r++) {
    double t = bench_max(times[r]);
    best = t < best ? t : best;
  }
  double resid = rank == 0 ? bench_chol_probe(l, n) : 0.0;
  status = bench_report("cholesky", "starpumpi", &o, p, q, workers, best, resid,
                        sent, bench_chol_min_bytes(n, b, p, q, rank));
  free(l);
  for (size_t i = 0; i < (size_t)nt * nt; i++)
    free(mine[i]);
  free(mine);
  free(c.h);
  free(times);
  MPI_Finalize();
  return status;
}

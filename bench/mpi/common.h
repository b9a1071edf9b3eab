/* common.h — what the distributed benchmarks of bench/mpi share.
 *
 * Every program here (dag, ScaLAPACK, StarPU-MPI; Cholesky and GEMM) runs
 * the same problem on the same 2-D block-cyclic distribution: an n x n
 * matrix in b x b tiles, tile (i, j) on rank (i mod p) * q + (j mod q) of a
 * p x q grid, p x q the squarest grid with p <= q (dag_grid's choice). The
 * matrices are functions of the global indices (below), so every program
 * generates its own part without communication and the residual is checked
 * against the same formulas.
 *
 * Each program initialises MPI itself (MPI_THREAD_SERIALIZED), and per
 * repetition: fills its matrices (untimed), MPI_Barrier, reads the bytes
 * sent so far and the clock, runs the factorization or product until it is
 * complete on every rank, reads both again. The time of a repetition is the
 * slowest rank's; the best repetition counts. After the last one the result
 * is gathered on rank 0 (untimed) and checked with a random-vector probe.
 * Rank 0 prints one line:
 *
 *   BENCH runtime=RT ranks=R grid=PxQ n=N b=B workers=W time=S gflops=G
 *         residual=E sent=X sent_total=Y min=Z min_total=T
 *
 * BENCH is "cholesky" (n^3/3 flops) or "gemm" (2 n^3 flops); workers is the
 * threads per rank that run kernels; sent is the most bytes one rank handed
 * to MPI during the timed part of the last repetition and sent_total the
 * sum over ranks; min and min_total are the same for the algorithm's minimum
 * (bench_*_min_bytes). The exit status is non-zero if the residual is above
 * 100 n eps.
 */
#ifndef BENCH_MPI_COMMON_H
#define BENCH_MPI_COMMON_H

#include <stdint.h>

struct bench_opts {
  int n;    /* matrix order */
  int b;    /* tile (block) order */
  int reps; /* repetitions; the best time counts */
};

/* MPI_Init_thread(MPI_THREAD_SERIALIZED) and the arguments
 * `[-n N] [-b B] [-r reps]` (defaults 4096, 256, 1). Returns -1 to go on,
 * else the exit status (after --help or a bad argument). */
int bench_init(int *argc, char ***argv, const char *prog, struct bench_opts *o);

/* MPI_COMM_WORLD's rank and size. */
int bench_rank(void);
int bench_nranks(void);

/* The squarest p x q = nranks grid with p <= q (as dag_grid). */
void bench_grid(int nranks, int *p, int *q);

/* Rank of tile (i, j) on the p x q grid. */
static inline int bench_owner(int i, int j, int p, int q) {
  return (i % p) * q + j % q;
}

/* Number of b-tiles along n, and the order of tile i (the last may be
 * smaller). */
int bench_ntiles(int n, int b);
int bench_tile_dim(int n, int b, int i);

/* The matrices, by global row i and column j. The SPD matrix of the
 * Cholesky is samples/cholesky's (tiles.c): symmetric, entries in [-1, 1),
 * n added on the diagonal. GEMM's A, B and C (before C += A B) are
 * independent uniform matrices. */
double bench_spd(int n, int i, int j);
enum bench_gemm_matrix { BENCH_A, BENCH_B, BENCH_C };
double bench_gemm_elem(enum bench_gemm_matrix m, int i, int j);

/* Probes on rank 0, with a fixed pseudo-random x:
 *   ||A x - L L^T x|| / (||A||_F ||x||)            L: the row-major lower
 *                                                   factor (ld n; the upper
 *                                                   triangle is ignored)
 *   ||C x - C0 x - A B x|| / ((||C0||_F + ||A||_F ||B||_F) ||x||)
 *                                                   C: the row-major result
 * O(n^2): the original matrices are regenerated row by row. */
double bench_chol_probe(const double *l, int n);
double bench_gemm_probe(const double *c, int n);

/* Bytes this process handed to MPI for other ranks so far: point-to-point
 * sends (counted in MPI_Send, MPI_Isend and their variants, which this
 * file's object interposes through the MPI profiling interface), and for
 * collectives, blocking or not, the data they must carry (a broadcast's
 * root: its buffer times the other ranks; reduce, allreduce, allgather:
 * this rank's contribution to each other rank that needs it). */
uint64_t bench_bytes_sent(void);

/* The least this rank must send in a tiled algorithm where every task runs
 * at the home of the tile it writes and every tile, once final for a step,
 * goes once from its home to each other rank that runs a task reading it
 * (whole tiles):
 *   Cholesky: L(k,k) to the homes of tiles (i,k), i > k; L(i,k) to the
 *             homes of tiles (i,j), k < j <= i, and (j,i), j > i;
 *   GEMM:     A(i,k) to the homes of C(i,*), B(k,j) to those of C(*,j).
 * On a 1-D grid no rank forwards for another, so this is also the least the
 * whole run must move. */
uint64_t bench_chol_min_bytes(int n, int b, int p, int q, int rank);
uint64_t bench_gemm_min_bytes(int n, int b, int p, int q, int rank);

/* Monotonic seconds (MPI_Wtime), and MPI_Barrier on MPI_COMM_WORLD. */
double bench_now(void);
void bench_barrier(void);

/* The slowest rank's value (MPI_Allreduce MAX). Call it only when no
 * runtime thread is inside MPI (after a dag taskwait, for example). */
double bench_max(double v);

/* Prints the result line on rank 0 (collective: gathers every rank's
 * bytes) and returns the exit status (0, or 1 if the residual, known on
 * rank 0, is above 100 n eps). */
int bench_report(const char *bench, const char *runtime,
                 const struct bench_opts *o, int p, int q, int workers,
                 double time, double residual, uint64_t sent, uint64_t minimum);

#endif /* BENCH_MPI_COMMON_H */

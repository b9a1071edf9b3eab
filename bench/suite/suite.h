/* suite.h — what every program of the benchmark suite shares: arguments,
 * the repetition loop, the clock, deterministic random numbers, the
 * matrices' layout and the result line.
 *
 * A suite program runs one kernel of its group (`-k NAME`) on an n x n
 * problem in b x b blocks:
 *
 *   prog -k KERNEL [-n N] [-b B] [-r REPS] [-t SECONDS]
 *   prog --list        prints "GROUP RUNTIME KERNEL..." (for the runner)
 *
 * It prepares its data (untimed), then repeats the kernel up to REPS times
 * (default 3) while the time spent stays under SECONDS (default 60; at least
 * one repetition always runs), checks the result and prints one line on
 * rank 0:
 *
 *   SUITE group=G kernel=K runtime=R n=N b=B ranks=P workers=W reps=X
 *         time=BEST median=MEDIAN rate=WORK/BEST unit=U check=E tol=T
 *         sum=S ok=0|1
 *
 * time and median are seconds of the slowest rank; rate is the work (bytes
 * for GB/s, flops for GFLOP/s) per second of the best repetition; check is
 * the program's own measure of error (a relative residual, or the largest
 * difference from the exact value) and ok says whether it is at most tol.
 * Every rank then prints its own result, which the tests compare:
 *
 *   SUITE_RANK rank=R sum=S ok=0|1
 *
 * Built with SUITE_MPI, the SUITE line ends with sent=X sent_total=Y: the
 * most bytes one rank handed to MPI for other ranks during the last timed
 * repetition, and their sum over the ranks.
 * sum is a checksum of the result, printed with %.17g: programs whose
 * reductions run in a fixed order print the same bits on any number of
 * ranks and threads, and with plain cc (the tests compare them). The exit
 * status is 0 when ok, 1 when the check failed, 2 for bad arguments.
 *
 * The dag programs are built twice: with dagcc, where _DAG is defined and
 * the matrices are dag_alloc memory spread over the ranks, and with plain
 * cc, where the pragmas are ignored and the program runs sequentially.
 * Peers (OpenMP, OpenBLAS/LAPACKE, ScaLAPACK, PETSc) use the same
 * arguments, the same random numbers and the same line. Programs built with
 * SUITE_MPI defined initialise MPI (MPI_THREAD_MULTIPLE: the program's
 * thread times and reduces while dag's threads use MPI too).
 */
#ifndef BENCH_SUITE_H
#define BENCH_SUITE_H

#include <stddef.h>
#include <stdint.h>

#include <stdlib.h>

#include "harness.h"

#ifdef _DAG
#include <dag.h>
#endif

#define SUITE_MAX_REPS 100

struct suite_opts {
  const char *group;   /* array, stencil, linalg, sparse */
  const char *runtime; /* dag, serial, omp, lapacke, scalapack, petsc... */
  const char *kernel;  /* -k */
  int k;               /* its index in the program's list of kernels */
  long n;              /* -n: problem order */
  long b;              /* -b: block order; 0 = the program's rule */
  int reps;            /* -r */
  double budget;       /* -t: seconds of repetitions, at least one runs */
};

/* Parses the arguments (see above) into o; kernels is the NULL-terminated
 * list of the kernels the program knows, for -k and --help. Initialises MPI
 * when SUITE_MPI is defined. Returns -1 to go on, else the exit status to
 * return at once (after --help or a bad argument). */
int suite_init(int *argc, char ***argv, const char *group, const char *runtime,
               const char *const *kernels, struct suite_opts *o);

/* Ends MPI when SUITE_MPI is defined (after dag's own finalisation). */
void suite_finish(void);

/* This process's rank and the number of ranks (0 and 1 without MPI). */
int suite_rank(void);
int suite_nranks(void);

/* The squarest p x q = nranks grid with p <= q (dag_grid's rule), for the
 * peers that lay a matrix out on a grid of processes. */
void suite_grid(int nranks, int *p, int *q);

/* The largest and the sum of v over the ranks (v itself without MPI). */
double suite_max(double v);
double suite_sum(double v);

/* The repetition loop, while suite_more says so (the same on every rank):
 * prepare(ctx) untimed (NULL: none), then kernel(ctx) timed between
 * suite_begin, which waits at a barrier first, and suite_end; each
 * repetition's time is the slowest rank's. A program with a loop of its
 * own writes
 *   while (suite_more(&tt, &o)) { ...prepare...; suite_begin(&tt);
 *                                 ...kernel...; suite_end(&tt); }
 * Built with SUITE_MPI, they also count the bytes this rank handed to MPI
 * in between (mpi_sent.h): `sent` is the last repetition's. */
struct suite_times {
  int reps;
  double total, t0;
  double t[SUITE_MAX_REPS];
  uint64_t sent_before, sent;
};
void suite_repeat(struct suite_times *tt, const struct suite_opts *o,
                  void (*prepare)(void *), void (*kernel)(void *), void *ctx);
int suite_more(const struct suite_times *tt, const struct suite_opts *o);
void suite_begin(struct suite_times *tt);
void suite_end(struct suite_times *tt);

/* p, or the end of the program with a message if memory ran out. */
void *suite_need(void *p);

/* Prints the SUITE line on rank 0 and each rank's SUITE_RANK line, and
 * returns the exit status (0 if check <= tol). work is in bytes when unit
 * is "GB/s", flops when it is "GFLOP/s". */
int suite_report(const struct suite_opts *o, int workers,
                 const struct suite_times *tt, double work, const char *unit,
                 double check, double tol, double sum);

/* A pseudo-random double in [-1, 1) that depends only on (seed, i): the
 * same on every rank and with any blocking, so a rank fills its own part of
 * a distributed array with no communication. */
static inline double suite_random(uint64_t seed, uint64_t i) {
  uint64_t z = i + seed * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull; /* splitmix64 */
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return (double)(z >> 11) * 0x1.0p-52 - 1.0;
}

/* Number of b-blocks along n, and the order of block i (the last may be
 * smaller). */
static inline long suite_nblocks(long n, long b) { return (n + b - 1) / b; }
static inline long suite_block_dim(long n, long b, long i) {
  return i * b + b <= n ? b : n - i * b;
}

/* The tile order of the dense kernels (linalg, and the ceilings' tile
 * kernel) when -b is not given: 256 for n >= 2048, else max(32, n / 8)
 * rounded down to a multiple of 8; at most n. */
static inline long suite_tile_rule(long n) {
  long b = n >= 2048 ? 256 : n / 8 / 8 * 8;
  if (b < 32)
    b = 32;
  return b < n ? b : n;
}

/* A rows x cols row-major matrix of doubles in mb x nb blocks. Built with
 * dagcc: dag_alloc memory, block (i, j) homed on rank (i mod p) q + j mod q
 * of dag_grid's p x q grid (p <= q), zero-filled. With plain cc: calloc.
 * NULL if the memory cannot be had. Free it with suite_free_matrix. */
static inline void *suite_matrix(size_t rows, size_t cols, size_t mb,
                                 size_t nb) {
#ifdef _DAG
  int p, q;
  dag_grid(dag_nranks(), &p, &q);
  return dag_alloc(rows * cols * sizeof(double),
                   dag_dist_2d(sizeof(double), cols, mb, nb, p, q));
#else
  (void)mb;
  (void)nb;
  return calloc(rows * cols, sizeof(double));
#endif
}

/* The same for a column-major matrix, held as its transpose: M[j][i] is
 * element (i, j), so suite_colmajor(rows, cols, mb, nb) stores cols rows
 * of `rows` doubles in nb x mb storage blocks. The grid is transposed with
 * the storage: block (i, j) of the matrix (storage block (j, i)) lives on
 * rank (j mod q) p + i mod p, so with p = 1 (2 ranks: 1 x 2) a column of
 * tiles is on one rank, as ScaLAPACK's column-major blocks are. */
static inline void *suite_colmajor(size_t rows, size_t cols, size_t mb,
                                   size_t nb) {
#ifdef _DAG
  int p, q;
  dag_grid(dag_nranks(), &p, &q);
  return dag_alloc(rows * cols * sizeof(double),
                   dag_dist_2d(sizeof(double), rows, nb, mb, q, p));
#else
  (void)mb;
  (void)nb;
  return calloc(rows * cols, sizeof(double));
#endif
}

static inline void suite_free_matrix(void *m) {
#ifdef _DAG
  dag_free(m);
#else
  free(m);
#endif
}

/* Bands of rows: how suite_bands spreads a matrix over the ranks. */
struct suite_bands {
  size_t band_bytes; /* bytes of one band of rows */
  long nbands;
  int nranks;
};

/* A layout that lives as long as the program (dag_dist_owner keeps a
 * pointer to it). */
const struct suite_bands *suite_bands_layout(size_t band_bytes, long nbands,
                                             int nranks);

/* dag_dist_owner's function: band k lives on rank k R / nbands, so each
 * rank holds a contiguous run of bands (as PETSc's ownership ranges). */
static inline int suite_band_home(size_t offset, void *ctx) {
  const struct suite_bands *l = ctx;
  return (int)((long)(offset / l->band_bytes) * l->nranks / l->nbands);
}

/* A rows x cols row-major matrix of doubles cut in bands of `band` rows.
 * Built with dagcc: dag_alloc memory, each rank homing a contiguous run of
 * bands, that the runtime tracks and moves in units of `unit_rows` rows (a
 * divisor of band): with unit_rows = 1, a task reading the halo row of a
 * neighbouring band receives that row, not the band. With plain cc:
 * calloc. Zero-filled; NULL if the memory cannot be had. Free it with
 * suite_free_matrix. */
static inline void *suite_bands(size_t rows, size_t cols, size_t band,
                                size_t unit_rows) {
  size_t row_bytes = cols * sizeof(double);
#ifdef _DAG
  const struct suite_bands *l = suite_bands_layout(
      band * row_bytes, suite_nblocks((long)rows, (long)band), dag_nranks());
  return dag_alloc(
      rows * row_bytes,
      dag_dist_owner(unit_rows * row_bytes, suite_band_home, (void *)l));
#else
  (void)band;
  (void)unit_rows;
  return calloc(rows, row_bytes);
#endif
}

/* The runtime name of a dag program: "dag" built with dagcc, "serial" with
 * plain cc. */
#ifdef _DAG
#define SUITE_DAG_RUNTIME "dag"
#else
#define SUITE_DAG_RUNTIME "serial"
#endif

/* The number of threads that run the kernels: dag's workers built with
 * dagcc, 1 with plain cc. */
static inline int suite_dag_workers(void) {
#ifdef _DAG
  return dag_num_workers();
#else
  return 1;
#endif
}

#endif /* BENCH_SUITE_H */

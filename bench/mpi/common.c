/* common.c — arguments, matrices, residual probes, byte counting, minimum
 * volumes and the report line of the bench/mpi programs (see common.h).
 */
#include "common.h"

#include <cblas.h>
#include <float.h>
#include <math.h>
#include <mpi.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ----------------------------------------------------- arguments, ranks */

static void usage(FILE *f, const char *prog) {
  fprintf(f,
          "usage: mpiexec -n R %s [-n N] [-b B] [-r reps]\n"
          "  -n N      matrix order (default 4096)\n"
          "  -b B      tile (block) order (default 256)\n"
          "  -r reps   repetitions, the best time counts (default 1)\n",
          prog);
}

static int parse_count(const char *s) {
  char *end;
  long v = strtol(s, &end, 10);
  if (end == s || *end != '\0' || v <= 0 || v > 1000000)
    return -1;
  return (int)v;
}

int bench_init(int *argc, char ***argv, const char *prog,
               struct bench_opts *o) {
  int provided = 0;
  MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided);
  if (provided < MPI_THREAD_SERIALIZED && bench_rank() == 0)
    fprintf(stderr, "%s: MPI gives thread level %d only\n", prog, provided);
  *o = (struct bench_opts){4096, 256, 1};
  for (int i = 1; i < *argc; i++) {
    const char *arg = (*argv)[i];
    int *dst = !strcmp(arg, "-n")   ? &o->n
               : !strcmp(arg, "-b") ? &o->b
               : !strcmp(arg, "-r") ? &o->reps
                                    : NULL;
    if (dst && i + 1 < *argc && (*dst = parse_count((*argv)[i + 1])) > 0) {
      i++;
    } else if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
      if (bench_rank() == 0)
        usage(stdout, prog);
      return 0;
    } else {
      if (bench_rank() == 0) {
        fprintf(stderr, "%s: bad argument '%s'\n", prog, arg);
        usage(stderr, prog);
      }
      return 2;
    }
  }
  if (o->b > o->n)
    o->b = o->n;
  return -1;
}

int bench_rank(void) {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int bench_nranks(void) {
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

void bench_grid(int nranks, int *p, int *q) {
  int best = 1;
  for (int i = 1; (long)i * i <= nranks; i++)
    if (nranks % i == 0)
      best = i;
  *p = best;
  *q = nranks / best;
}

int bench_ntiles(int n, int b) { return (n + b - 1) / b; }

int bench_tile_dim(int n, int b, int i) {
  int rest = n - i * b;
  return rest < b ? rest : b;
}

double bench_now(void) { return MPI_Wtime(); }

void bench_barrier(void) { MPI_Barrier(MPI_COMM_WORLD); }

double bench_max(double v) {
  double m = v;
  MPI_Allreduce(&v, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return m;
}

/* ------------------------------------------------------------- matrices */

/* splitmix64's output function of x: a uniform double in [-1, 1) (as in
 * samples/cholesky/tiles.c). */
static double uniform_at(uint64_t x) {
  uint64_t z = x * 0x9e3779b97f4a7c15u;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  z ^= z >> 31;
  return (double)(z >> 11) * 0x1.0p-52 - 1.0;
}

double bench_spd(int n, int i, int j) {
  uint64_t hi = j > i ? j : i, lo = j > i ? i : j;
  double v = uniform_at(2024 + hi * (hi + 1) / 2 + lo);
  return i == j ? v + n : v;
}

double bench_gemm_elem(enum bench_gemm_matrix m, int i, int j) {
  return uniform_at(((uint64_t)m + 1) << 58 ^ (uint64_t)i << 29 ^ (uint64_t)j);
}

static double *probe_vector(int n) {
  double *x = malloc((size_t)n * sizeof *x);
  if (!x) {
    fprintf(stderr, "bench: out of memory for the residual\n");
    return NULL;
  }
  for (int i = 0; i < n; i++)
    x[i] = uniform_at(~(uint64_t)i);
  return x;
}

double bench_chol_probe(const double *l, int n) {
  double *x = probe_vector(n), *y = calloc((size_t)n, sizeof *y);
  if (!x || !y)
    return NAN;
  double norm_a = 0.0;
  for (int i = 0; i < n; i++) { /* y = A x, row by row */
    double s = 0.0;
    for (int j = 0; j < n; j++) {
      double a = bench_spd(n, i, j);
      s += a * x[j];
      norm_a += a * a;
    }
    y[i] = s;
  }
  double norm_x = cblas_dnrm2(n, x, 1);
  cblas_dtrmv(CblasRowMajor, CblasLower, CblasTrans, CblasNonUnit, n, l, n, x,
              1);
  cblas_dtrmv(CblasRowMajor, CblasLower, CblasNoTrans, CblasNonUnit, n, l, n, x,
              1);
  cblas_daxpy(n, -1.0, x, 1, y, 1);
  double r = cblas_dnrm2(n, y, 1) / (sqrt(norm_a) * norm_x);
  free(x);
  free(y);
  return r;
}

double bench_gemm_probe(const double *c, int n) {
  double *x = probe_vector(n), *t = malloc(3 * (size_t)n * sizeof *t);
  if (!x || !t)
    return NAN;
  double *u = t + n, *w = u + n;
  double na = 0.0, nb = 0.0, nc = 0.0;
  for (int i = 0; i < n; i++) { /* t = B x, w = C0 x */
    double sb = 0.0, sc = 0.0;
    for (int j = 0; j < n; j++) {
      double bv = bench_gemm_elem(BENCH_B, i, j);
      double cv = bench_gemm_elem(BENCH_C, i, j);
      sb += bv * x[j];
      sc += cv * x[j];
      nb += bv * bv;
      nc += cv * cv;
    }
    t[i] = sb;
    w[i] = sc;
  }
  for (int i = 0; i < n; i++) { /* w += A t */
    double s = 0.0;
    for (int j = 0; j < n; j++) {
      double av = bench_gemm_elem(BENCH_A, i, j);
      s += av * t[j];
      na += av * av;
    }
    w[i] += s;
  }
  /* u = C x - w */
  cblas_dgemv(CblasRowMajor, CblasNoTrans, n, n, 1.0, c, n, x, 1, 0.0, u, 1);
  cblas_daxpy(n, -1.0, w, 1, u, 1);
  double r = cblas_dnrm2(n, u, 1) /
             ((sqrt(nc) + sqrt(na) * sqrt(nb)) * cblas_dnrm2(n, x, 1));
  free(x);
  free(t);
  return r;
}

/* ------------------------------------------------------ bytes handed out */

static _Atomic uint64_t bytes_sent;

uint64_t bench_bytes_sent(void) {
  return atomic_load_explicit(&bytes_sent, memory_order_relaxed);
}

static void add_bytes(int count, MPI_Datatype type, uint64_t times) {
  int size = 0;
  if (count <= 0 || times == 0 || PMPI_Type_size(type, &size) != MPI_SUCCESS)
    return;
  atomic_fetch_add_explicit(&bytes_sent, (uint64_t)count * size * times,
                            memory_order_relaxed);
}

/* A message to another rank (not to itself, not to MPI_PROC_NULL). */
static void p2p(int count, MPI_Datatype type, int dest, MPI_Comm comm) {
  int me = -1;
  if (dest == MPI_PROC_NULL || PMPI_Comm_rank(comm, &me) != MPI_SUCCESS ||
      dest == me)
    return;
  add_bytes(count, type, 1);
}

static uint64_t others(MPI_Comm comm) {
  int size = 1;
  PMPI_Comm_size(comm, &size);
  return size > 1 ? (uint64_t)size - 1 : 0;
}

/* What each collective this rank calls sends, as its counts say. */
static void bcast_bytes(int count, MPI_Datatype type, int root, MPI_Comm comm) {
  int me = -1;
  PMPI_Comm_rank(comm, &me);
  if (me == root)
    add_bytes(count, type, others(comm));
}

static void reduce_bytes(int count, MPI_Datatype type, int root,
                         MPI_Comm comm) {
  int me = -1;
  PMPI_Comm_rank(comm, &me);
  if (me != root)
    add_bytes(count, type, 1);
}

static void allgather_bytes(const void *sbuf, int scount, MPI_Datatype stype,
                            int rcount, MPI_Datatype rtype, MPI_Comm comm) {
  if (sbuf == MPI_IN_PLACE)
    add_bytes(rcount, rtype, others(comm));
  else
    add_bytes(scount, stype, others(comm));
}

/* The profiling interface: each wrapper counts, then calls the real
 * function. The program's executable defines them, so the calls that
 * libdag, ScaLAPACK (BLACS) and StarPU-MPI make land here too. Each call
 * comes blocking and not (MPI_Send, MPI_Isend): X(NAME, EXTRA, ARG) makes
 * both, EXTRA the non-blocking one's request parameter and ARG its use. */
#define BLOCKING_AND_NOT(X, name, iname)                                       \
  X(name, , )                                                                  \
  X(iname, COMMA MPI_Request *req, COMMA req)
#define COMMA ,

#define SEND(name, extra, arg)                                                 \
  int MPI_##name(const void *buf, int count, MPI_Datatype type, int dest,      \
                 int tag, MPI_Comm comm extra) {                               \
    p2p(count, type, dest, comm);                                              \
    return PMPI_##name(buf, count, type, dest, tag, comm arg);                 \
  }
BLOCKING_AND_NOT(SEND, Send, Isend)
BLOCKING_AND_NOT(SEND, Ssend, Issend)
BLOCKING_AND_NOT(SEND, Rsend, Irsend)
BLOCKING_AND_NOT(SEND, Bsend, Ibsend)

int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest,
                 int stag, void *rbuf, int rcount, MPI_Datatype rtype,
                 int source, int rtag, MPI_Comm comm, MPI_Status *status) {
  p2p(scount, stype, dest, comm);
  return PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype,
                       source, rtag, comm, status);
}

#define BCAST(name, extra, arg)                                                \
  int MPI_##name(void *buf, int count, MPI_Datatype type, int root,            \
                 MPI_Comm comm extra) {                                        \
    bcast_bytes(count, type, root, comm);                                      \
    return PMPI_##name(buf, count, type, root, comm arg);                      \
  }
BLOCKING_AND_NOT(BCAST, Bcast, Ibcast)

#define REDUCE(name, extra, arg)                                               \
  int MPI_##name(const void *sbuf, void *rbuf, int count, MPI_Datatype type,   \
                 MPI_Op op, int root, MPI_Comm comm extra) {                   \
    reduce_bytes(count, type, root, comm);                                     \
    return PMPI_##name(sbuf, rbuf, count, type, op, root, comm arg);           \
  }
BLOCKING_AND_NOT(REDUCE, Reduce, Ireduce)

#define ALLREDUCE(name, extra, arg)                                            \
  int MPI_##name(const void *sbuf, void *rbuf, int count, MPI_Datatype type,   \
                 MPI_Op op, MPI_Comm comm extra) {                             \
    add_bytes(count, type, others(comm));                                      \
    return PMPI_##name(sbuf, rbuf, count, type, op, comm arg);                 \
  }
BLOCKING_AND_NOT(ALLREDUCE, Allreduce, Iallreduce)

#define ALLGATHER(name, extra, arg)                                            \
  int MPI_##name(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, \
                 int rcount, MPI_Datatype rtype, MPI_Comm comm extra) {        \
    allgather_bytes(sbuf, scount, stype, rcount, rtype, comm);                 \
    return PMPI_##name(sbuf, scount, stype, rbuf, rcount, rtype, comm arg);    \
  }
BLOCKING_AND_NOT(ALLGATHER, Allgather, Iallgather)

/* ------------------------------------------------------- minimum volumes */

/* A tile of `bytes` from rank `home` to every rank in `need` (a flag per
 * rank) but itself: adds to *mine what `rank` sends. */
static void deal(uint64_t *mine, int rank, int home, const char *need,
                 int nranks, uint64_t bytes) {
  if (home != rank)
    return;
  for (int r = 0; r < nranks; r++)
    if (need[r] && r != home)
      *mine += bytes;
}

uint64_t bench_chol_min_bytes(int n, int b, int p, int q, int rank) {
  int nt = bench_ntiles(n, b), nranks = p * q;
  char *need = malloc((size_t)nranks);
  if (!need)
    return 0;
  uint64_t mine = 0;
  for (int k = 0; k < nt; k++) {
    int dk = bench_tile_dim(n, b, k);
    /* L(k,k) to the trsm of column k. */
    memset(need, 0, (size_t)nranks);
    for (int i = k + 1; i < nt; i++)
      need[bench_owner(i, k, p, q)] = 1;
    deal(&mine, rank, bench_owner(k, k, p, q), need, nranks,
         (uint64_t)dk * dk * sizeof(double));
    /* L(i,k) to the updates of row i and column i. */
    for (int i = k + 1; i < nt; i++) {
      memset(need, 0, (size_t)nranks);
      for (int j = k + 1; j <= i; j++)
        need[bench_owner(i, j, p, q)] = 1;
      for (int j = i + 1; j < nt; j++)
        need[bench_owner(j, i, p, q)] = 1;
      deal(&mine, rank, bench_owner(i, k, p, q), need, nranks,
           (uint64_t)bench_tile_dim(n, b, i) * dk * sizeof(double));
    }
  }
  free(need);
  return mine;
}

uint64_t bench_gemm_min_bytes(int n, int b, int p, int q, int rank) {
  int nt = bench_ntiles(n, b), nranks = p * q;
  char *need = malloc((size_t)nranks);
  if (!need)
    return 0;
  uint64_t mine = 0;
  for (int i = 0; i < nt; i++)
    for (int k = 0; k < nt; k++) {
      uint64_t bytes = (uint64_t)bench_tile_dim(n, b, i) *
                       bench_tile_dim(n, b, k) * sizeof(double);
      memset(need, 0, (size_t)nranks); /* A(i,k) to C(i,*) */
      for (int j = 0; j < nt; j++)
        need[bench_owner(i, j, p, q)] = 1;
      deal(&mine, rank, bench_owner(i, k, p, q), need, nranks, bytes);
      memset(need, 0, (size_t)nranks); /* B(i,k) (row i = k of the */
      for (int r = 0; r < nt; r++)     /* product) to C(*,k) */
        need[bench_owner(r, k, p, q)] = 1;
      deal(&mine, rank, bench_owner(i, k, p, q), need, nranks, bytes);
    }
  free(need);
  return mine;
}

/* ---------------------------------------------------------------- report */

int bench_report(const char *bench, const char *runtime,
                 const struct bench_opts *o, int p, int q, int workers,
                 double time, double residual, uint64_t sent,
                 uint64_t minimum) {
  int rank = bench_rank(), nranks = bench_nranks();
  uint64_t mine[2] = {sent, minimum}, *all = NULL;
  if (rank == 0 && !(all = malloc(2 * (size_t)nranks * sizeof *all)))
    MPI_Abort(MPI_COMM_WORLD, 1);
  PMPI_Gather(mine, 2, MPI_UINT64_T, all, 2, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  if (rank != 0)
    return 0;
  uint64_t sent_max = 0, sent_total = 0, min_max = 0, min_total = 0;
  for (int r = 0; r < nranks; r++) {
    sent_max = all[2 * r] > sent_max ? all[2 * r] : sent_max;
    min_max = all[2 * r + 1] > min_max ? all[2 * r + 1] : min_max;
    sent_total += all[2 * r];
    min_total += all[2 * r + 1];
  }
  free(all);
  double n = o->n;
  double flops = !strcmp(bench, "gemm") ? 2.0 * n * n * n : n * n * n / 3.0;
  printf("%s runtime=%s ranks=%d grid=%dx%d n=%d b=%d workers=%d time=%.4f "
         "gflops=%.2f residual=%.2e sent=%llu sent_total=%llu min=%llu "
         "min_total=%llu\n",
         bench, runtime, nranks, p, q, o->n, o->b, workers, time,
         flops / time * 1e-9, residual, (unsigned long long)sent_max,
         (unsigned long long)sent_total, (unsigned long long)min_max,
         (unsigned long long)min_total);
  fflush(stdout);
  double tol = 100.0 * n * DBL_EPSILON;
  if (!(residual <= tol)) {
    fprintf(stderr, "%s %s: residual %.3e above tolerance %.3e: WRONG\n", bench,
            runtime, residual, tol);
    return 1;
  }
  return 0;
}

/* mpi_replicated: after a taskwait, replicated memory (malloc, stack,
 * static) written by tasks placed on other ranks holds the same bytes on
 * every rank, and the bytes the sequential program gives. Written against
 * the API; run under mpiexec with any number of ranks:
 *
 *   mpi_replicated [reuse]
 *
 * Three rounds, each ended by a taskwait, then a check on every rank: the
 * values against the sequential expectation, and a checksum of all of them
 * gathered from every rank with MPI_Allgather (the program calls MPI after
 * dag_rank(): the runtime initialised it).
 *   1. each rank's task (on(r)) writes its own slice of a malloc'd array, a
 *      member of a struct on the stack, a static array's element; a task
 *      on the last rank then overwrites a range across several slices; tasks
 *      on every rank read a value written on another rank before the
 *      taskwait (it travels to them);
 *   2. a chain of inout tasks on a scalar and on an array, hopping from
 *      rank to rank;
 *   3. tasks placed by the runtime (round-robin: no distributed data) write
 *      a vector element by element, and one task sums it into a scalar.
 * With `reuse`, a fourth round: an object that, on rank 0 only, sits where
 * an older object of another size was (as malloc may place it after a free
 * differently on each rank), written on rank 1 and read on rank 0.
 * Exits non-zero on the first difference. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dag.h>
#include <mpi.h>

enum { LEN = 1024, SLICE = 64, CHAIN = 40, VEC = 50 };

static int rank_, nranks_;
static double table[16]; /* static replicated memory */

struct point {
  double x, y;
  long tag;
};

/* --------------------------------------------------------------- bodies */

struct fill_args {
  double *p;
  int n, from;
  double scale;
};

static void fill(void *v) {
  const struct fill_args *a = v;
  for (int i = 0; i < a->n; i++)
    a->p[i] = a->scale * (a->from + i) + 0.5;
}

struct copy_args {
  const double *src;
  double *dst;
};

static void copy1(void *v) {
  const struct copy_args *a = v;
  *a->dst = *a->src * 2;
}

struct point_args {
  struct point *pt;
  double v;
};

static void set_point(void *v) {
  const struct point_args *a = v;
  a->pt->x = a->v;
  a->pt->tag = (long)a->v * 3;
}

struct step_args {
  double *s;
  double *arr;
  int k;
};

static void step(void *v) {
  const struct step_args *a = v;
  *a->s = *a->s * 1.5 + a->k;
  for (int i = 0; i < 8; i++)
    a->arr[i] = a->arr[i] * 0.75 + *a->s + i;
}

struct sum_args {
  const double *v;
  int n;
  double *out;
};

static void sum(void *v) {
  const struct sum_args *a = v;
  double s = 0;
  for (int i = 0; i < a->n; i++)
    s += a->v[i];
  *a->out = s;
}

/* ------------------------------------------------------------- helpers */

static void task(dag_task_fn fn, const char *label, int on, const void *args,
                 size_t size, const struct dag_access *acc, size_t n) {
  struct dag_task_info info = {
      .fn = fn, .label = label, .file = __FILE__, .line = __LINE__};
  if (on >= 0) {
    info.flags = DAG_TASK_ON_RANK;
    info.rank = on;
  }
  dag_check(dag_submit(&info, args, size, acc, n));
}

static struct dag_access acc_of(enum dag_mode mode, const void *p,
                                size_t bytes) {
  return dag_access_of(mode, dag_region_1d(p, bytes));
}

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++)
    h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

static int bad;

static void expect(const char *what, int index, double got, double want) {
  if (memcmp(&got, &want, sizeof got) == 0)
    return;
  if (bad++ < 5)
    fprintf(stderr,
            "mpi_replicated: rank %d of %d: %s[%d] is %.17g, the sequential "
            "program gives %.17g\n",
            rank_, nranks_, what, index, got, want);
}

/* The same checksum on every rank. */
static void same_everywhere(const char *round, uint64_t h) {
  uint64_t *all = malloc((size_t)nranks_ * sizeof *all);
  if (!all)
    exit(1);
  MPI_Allgather(&h, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, MPI_COMM_WORLD);
  for (int r = 0; r < nranks_; r++)
    if (all[r] != h) {
      fprintf(stderr,
              "mpi_replicated: rank %d: after %s, the checksum of the "
              "replicated data is %016llx here and %016llx on rank %d\n",
              rank_, round, (unsigned long long)h, (unsigned long long)all[r],
              r);
      bad++;
    }
  free(all);
}

/* --------------------------------------------------------------- rounds */

static void round1(double *a, struct point *pt, double *got_from) {
  int last = nranks_ - 1;
  for (int r = 0; r < nranks_; r++) {
    struct fill_args f = {a + r * SLICE, SLICE, r * SLICE, 1.0};
    struct dag_access x = acc_of(DAG_OUT, f.p, SLICE * sizeof *a);
    task(fill, "slice", r, &f, sizeof f, &x, 1);
  }
  /* Across the slices of ranks 0 .. 3 (as many as there are). */
  struct fill_args f = {a + 40, 200, 40, -2.0};
  struct dag_access x = acc_of(DAG_OUT, f.p, 200 * sizeof *a);
  task(fill, "across", last, &f, sizeof f, &x, 1);
  struct point_args p = {pt, 7.25};
  x = acc_of(DAG_OUT, pt, sizeof *pt);
  task(set_point, "point", last, &p, sizeof p, &x, 1);
  struct fill_args t = {&table[3], 1, 3, 10.0};
  x = acc_of(DAG_OUT, &table[3], sizeof table[3]);
  task(fill, "table", nranks_ > 1 ? 1 : 0, &t, sizeof t, &x, 1);
  /* Every rank reads what rank (r + 1) % n wrote, before the taskwait. */
  for (int r = 0; r < nranks_; r++) {
    int src = ((r + 1) % nranks_) * SLICE + 5;
    struct copy_args c = {&a[src], &got_from[r]};
    struct dag_access xs[2] = {acc_of(DAG_IN, c.src, sizeof *c.src),
                               acc_of(DAG_OUT, c.dst, sizeof *c.dst)};
    task(copy1, "read_other", r, &c, sizeof c, xs, 2);
  }
  dag_check(dag_taskwait());

  /* The sequential answer. */
  double want[LEN] = {0};
  for (int r = 0; r < nranks_; r++)
    for (int i = 0; i < SLICE; i++)
      want[r * SLICE + i] = 1.0 * (r * SLICE + i) + 0.5;
  for (int i = 0; i < 200; i++)
    want[40 + i] = -2.0 * (40 + i) + 0.5;
  for (int i = 0; i < LEN; i++)
    expect("a", i, a[i], want[i]);
  expect("pt.x", 0, pt->x, 7.25);
  expect("pt.tag", 0, (double)pt->tag, 21.0);
  expect("pt.y", 0, pt->y, 0.0);
  expect("table", 3, table[3], 10.0 * 3 + 0.5);
  for (int r = 0; r < nranks_; r++)
    expect("got_from", r, got_from[r],
           2 * want[((r + 1) % nranks_) * SLICE + 5]);
  uint64_t h = fnv(14695981039346656037ull, a, LEN * sizeof *a);
  h = fnv(h, pt, sizeof *pt);
  h = fnv(h, table, sizeof table);
  h = fnv(h, got_from, (size_t)nranks_ * sizeof *got_from);
  same_everywhere("round 1", h);
}

static void round2(void) {
  double s = 1.0;      /* on the stack */
  double arr[8] = {0}; /* on the stack */
  for (int k = 0; k < CHAIN; k++) {
    struct step_args st = {&s, arr, k};
    struct dag_access x[2] = {acc_of(DAG_INOUT, &s, sizeof s),
                              acc_of(DAG_INOUT, arr, sizeof arr)};
    task(step, "chain", (k * 7 + 1) % nranks_, &st, sizeof st, x, 2);
  }
  dag_check(dag_taskwait());
  double ws = 1.0, warr[8] = {0};
  for (int k = 0; k < CHAIN; k++) {
    struct step_args st = {&ws, warr, k};
    step(&st);
  }
  expect("s", 0, s, ws);
  for (int i = 0; i < 8; i++)
    expect("arr", i, arr[i], warr[i]);
  uint64_t h = fnv(fnv(14695981039346656037ull, &s, sizeof s), arr, sizeof arr);
  same_everywhere("round 2", h);
}

static void round3(void) {
  double *v = calloc(VEC, sizeof *v), total = -1;
  if (!v)
    exit(1);
  for (int i = 0; i < VEC; i++) {
    struct fill_args f = {&v[i], 1, i * i, 0.125};
    struct dag_access x = acc_of(DAG_OUT, &v[i], sizeof v[i]);
    task(fill, "element", -1, &f, sizeof f, &x, 1);
  }
  struct sum_args sa = {v, VEC, &total};
  struct dag_access x[2] = {acc_of(DAG_IN, v, VEC * sizeof *v),
                            acc_of(DAG_OUT, &total, sizeof total)};
  task(sum, "sum", -1, &sa, sizeof sa, x, 2);
  dag_check(dag_taskwait());
  double want = 0;
  for (int i = 0; i < VEC; i++) {
    double e = 0.125 * (i * i) + 0.5;
    expect("v", i, v[i], e);
    want += e;
  }
  expect("total", 0, total, want);
  uint64_t h = fnv(fnv(14695981039346656037ull, v, VEC * sizeof *v), &total,
                   sizeof total);
  same_everywhere("round 3", h);
  free(v);
}

/* An object whose address history differs between ranks. */
static void round4(void) {
  if (nranks_ < 2)
    return;
  double *pool = calloc(400, sizeof *pool);
  if (!pool)
    exit(1);
  struct fill_args f = {pool, 100, 0, 1.0}; /* the old object, everywhere */
  struct dag_access x = acc_of(DAG_OUT, pool, 100 * sizeof *pool);
  task(fill, "old", 0, &f, sizeof f, &x, 1);
  dag_check(dag_taskwait());
  double *obj = rank_ == 0 ? pool + 50 : pool + 200, copy = -1;
  f = (struct fill_args){obj, 100, 1000, 1.0};
  x = acc_of(DAG_OUT, obj, 100 * sizeof *obj);
  task(fill, "new", 1, &f, sizeof f, &x, 1);
  struct copy_args c = {&obj[99], &copy};
  struct dag_access xs[2] = {acc_of(DAG_IN, obj, 100 * sizeof *obj),
                             acc_of(DAG_OUT, &copy, sizeof copy)};
  task(copy1, "read_new", 0, &c, sizeof c, xs, 2);
  dag_check(dag_taskwait());
  for (int i = 0; i < 100; i++)
    expect("obj", i, obj[i], 1000.0 + i + 0.5);
  expect("copy", 0, copy, 2 * (1099.5));
  same_everywhere("round 4",
                  fnv(fnv(14695981039346656037ull, obj, 100 * sizeof *obj),
                      &copy, sizeof copy));
  free(pool);
}

int main(int argc, char **argv) {
  int reuse = argc > 1 && strcmp(argv[1], "reuse") == 0;
  if (argc > 1 && !reuse) {
    fprintf(stderr, "usage: mpi_replicated [reuse]\n");
    return 2;
  }
  rank_ = dag_rank();
  nranks_ = dag_nranks();
  if (nranks_ * SLICE > LEN) {
    fprintf(stderr, "mpi_replicated: at most %d ranks\n", LEN / SLICE);
    return 2;
  }
  double *a = calloc(LEN, sizeof *a), got_from[LEN / SLICE];
  struct point pt = {0, 0, 0};
  if (!a)
    return 1;
  round1(a, &pt, got_from);
  round2();
  round3();
  if (reuse)
    round4();
  free(a);
  if (bad)
    return 1;
  printf("mpi_replicated: rank %d of %d%s: replicated data written on other "
         "ranks holds the same bytes everywhere after each taskwait\n",
         rank_, nranks_, reuse ? " (reuse)" : "");
  return 0;
}

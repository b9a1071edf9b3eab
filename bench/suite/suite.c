/* suite.c — arguments, clock, ranks, repetitions and the result line of
 * the benchmark suite's programs (see suite.h).
 */
#include "suite.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef SUITE_MPI
#include <mpi.h>

#include "mpi_sent.h"
#endif

/* ------------------------------------------------------------ arguments */

/* What suite_init was given, for suite_need's message. */
static struct suite_opts program;

static void usage(FILE *f, const char *prog, const char *const *kernels) {
  fprintf(f,
          "usage: %s -k KERNEL [-n N] [-b B] [-r REPS] [-t SECONDS]\n"
          "       %s --list\n"
          "  -k KERNEL   one of:",
          prog, prog);
  for (const char *const *k = kernels; *k; k++)
    fprintf(f, " %s", *k);
  fprintf(f, "\n"
             "  -n N        problem order (default 1000)\n"
             "  -b B        block order (default: the program's rule)\n"
             "  -r REPS     most repetitions, the best time counts "
             "(default 3)\n"
             "  -t SECONDS  stop repeating after this long (default 60)\n");
}

/* The index of kernel in kernels, or -1. */
static int index_of(const char *kernel, const char *const *kernels) {
  for (int k = 0; kernel && kernels[k]; k++)
    if (!strcmp(kernel, kernels[k]))
      return k;
  return -1;
}

/* Returns -1 when every argument was understood, else an exit status. */
static int parse(int argc, char **argv, const char *const *kernels,
                 struct suite_opts *o) {
  long budget = 60;
  int list = 0;
  const struct bench_opt opts[] = {
      BENCH_OPT("-k", BENCH_STRING, &o->kernel, 0, 0),
      BENCH_OPT("-n", BENCH_LONG, &o->n, 1, 1L << 30),
      BENCH_OPT("-b", BENCH_LONG, &o->b, 1, 1L << 30),
      BENCH_OPT("-r", BENCH_INT, &o->reps, 1, SUITE_MAX_REPS),
      BENCH_OPT("-t", BENCH_LONG, &budget, 1, 1L << 20),
      BENCH_OPT("--list", BENCH_FLAG, &list, 0, 0),
      BENCH_OPT_END};
  int rc =
      bench_parse(argv[0], argc, argv, opts, suite_rank() == 0 ? stderr : NULL);
  o->budget = (double)budget;
  if (suite_rank() == 0 && rc)
    usage(rc > 0 ? stdout : stderr, argv[0], kernels);
  if (rc)
    return rc > 0 ? 0 : 2;
  if (list) {
    if (suite_rank() == 0) {
      printf("%s %s", o->group, o->runtime);
      for (const char *const *k = kernels; *k; k++)
        printf(" %s", *k);
      printf("\n");
    }
    return 0;
  }
  if ((o->k = index_of(o->kernel, kernels)) < 0) {
    if (suite_rank() == 0) {
      fprintf(stderr, "%s: %s\n", argv[0],
              o->kernel ? "unknown kernel" : "no kernel (-k)");
      usage(stderr, argv[0], kernels);
    }
    return 2;
  }
  if (o->b > o->n)
    o->b = o->n;
  return -1;
}

int suite_init(int *argc, char ***argv, const char *group, const char *runtime,
               const char *const *kernels, struct suite_opts *o) {
#ifdef SUITE_MPI
  int provided = 0;
  MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
  if (provided < MPI_THREAD_MULTIPLE && suite_rank() == 0)
    fprintf(stderr, "%s: MPI gives thread level %d only\n", (*argv)[0],
            provided);
#endif
  *o = (struct suite_opts){group, runtime, NULL, 0, 1000, 0, 3, 60.0};
  program = *o;
  return parse(*argc, *argv, kernels, o);
}

void suite_finish(void) {
#ifdef SUITE_MPI
  MPI_Finalize();
#endif
}

/* ------------------------------------------------------ ranks and clock */

int suite_rank(void) {
  int r = 0;
#ifdef SUITE_MPI
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
#endif
  return r;
}

int suite_nranks(void) {
  int n = 1;
#ifdef SUITE_MPI
  MPI_Comm_size(MPI_COMM_WORLD, &n);
#endif
  return n;
}

void suite_grid(int nranks, int *p, int *q) {
  int best = 1;
  for (int i = 1; (long)i * i <= nranks; i++)
    if (nranks % i == 0)
      best = i;
  *p = best;
  *q = nranks / best;
}

static void barrier(void) {
#ifdef SUITE_MPI
  MPI_Barrier(MPI_COMM_WORLD);
#endif
}

static double reduce(double v, int max) {
#ifdef SUITE_MPI
  double out = v;
  MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, max ? MPI_MAX : MPI_SUM,
                MPI_COMM_WORLD);
  return out;
#else
  (void)max;
  return v;
#endif
}

double suite_max(double v) { return reduce(v, 1); }
double suite_sum(double v) { return reduce(v, 0); }

/* ---------------------------------------------------------------- bands */

const struct suite_bands *suite_bands_layout(size_t band_bytes, long nbands,
                                             int nranks) {
  /* A program allocates a few matrices; each gets a slot for its life. */
  static struct suite_bands layouts[64];
  static int used;
  if (used == 64) {
    fprintf(stderr, "suite_bands_layout: more than 64 matrices\n");
    exit(1);
  }
  layouts[used] = (struct suite_bands){band_bytes, nbands, nranks};
  return &layouts[used++];
}

/* ---------------------------------------------------------- repetitions */

int suite_more(const struct suite_times *tt, const struct suite_opts *o) {
  /* tt->total is the same on every rank: it adds the slowest rank's times. */
  return tt->reps == 0 || (tt->reps < o->reps && tt->total < o->budget);
}

/* Bytes this rank sent so far; nothing without MPI. */
static uint64_t sent_so_far(void) {
#ifdef SUITE_MPI
  return mpi_sent_bytes();
#else
  return 0;
#endif
}

void suite_begin(struct suite_times *tt) {
  barrier();
  tt->sent_before = sent_so_far();
  tt->t0 = bench_now();
}

void suite_end(struct suite_times *tt) {
  double seconds = bench_now() - tt->t0;
  tt->sent = sent_so_far() - tt->sent_before; /* before suite_max's bytes */
  seconds = suite_max(seconds);
  if (tt->reps < SUITE_MAX_REPS)
    tt->t[tt->reps++] = seconds;
  tt->total += seconds;
}

void suite_repeat(struct suite_times *tt, const struct suite_opts *o,
                  void (*prepare)(void *), void (*kernel)(void *), void *ctx) {
  while (suite_more(tt, o)) {
    if (prepare)
      prepare(ctx);
    suite_begin(tt);
    kernel(ctx);
    suite_end(tt);
  }
}

void *suite_need(void *p) {
  if (!p) {
    fprintf(stderr, "%s %s: out of memory\n", program.group, program.runtime);
    exit(1);
  }
  return p;
}

int suite_report(const struct suite_opts *o, int workers,
                 const struct suite_times *tt, double work, const char *unit,
                 double check, double tol, double sum) {
  double t[SUITE_MAX_REPS];
  int n = tt->reps;
  memcpy(t, tt->t, (size_t)n * sizeof *t);
  double best = bench_best(t, n), median = bench_median(t, n);
  int ok = check <= tol; /* false for NaN */
#ifdef SUITE_MPI
  double sent_max = suite_max((double)tt->sent);
  double sent_total = suite_sum((double)tt->sent);
#endif
  if (suite_rank() == 0) {
    printf("SUITE group=%s kernel=%s runtime=%s n=%ld b=%ld ranks=%d "
           "workers=%d reps=%d time=%.6g median=%.6g rate=%.6g unit=%s "
           "check=%.3g tol=%.3g sum=%.17g ok=%d",
           o->group, o->kernel, o->runtime, o->n, o->b, suite_nranks(), workers,
           n, best, median, best > 0 ? work / best * 1e-9 : 0.0, unit, check,
           tol, sum, ok);
#ifdef SUITE_MPI
    printf(" sent=%.0f sent_total=%.0f", sent_max, sent_total);
#endif
    printf("\n");
    fflush(stdout);
  }
  /* Each rank's own result, which the tests compare (same_sum.sh). */
  printf("SUITE_RANK rank=%d sum=%.17g ok=%d\n", suite_rank(), sum, ok);
  fflush(stdout);
  return ok ? 0 : 1;
}

/* mpi_values: DAG_CHECK_UNIFORMITY=values compares, at each taskwait, the
 * replicated memory that tasks used, and stops a run whose ranks hold
 * different bytes there. Written against the API; run under mpiexec with 2
 * or more ranks:
 *
 *   mpi_values honest      every task declares what it writes: the check
 *                          passes and the program exits 0;
 *   mpi_values undeclared  'sneaky' declares x but also writes y, which a
 *                          later task reads: only the rank that ran it holds
 *                          the new y (the message says no task declares
 *                          writing it);
 *   mpi_values inwrite     'tamper' declares in(w) but writes w: the rank
 *                          that ran it (1) keeps its value, the others get
 *                          'init''s from rank 0 (the message names 'init' as
 *                          the last writer);
 *   mpi_values unmapped    'token' reads an item where no memory is mapped
 *                          (a token, as OpenMP ports keep them; its body
 *                          never touches it): the check names it, where it
 *                          read it and died of SIGSEGV.
 *
 * Each task runs on a given rank, so that the rank that writes in secret
 * is never the one the taskwait's flush copies from.
 *
 * Every mode also writes two heap arrays that odd ranks allocate in the
 * other order, so that their addresses are in a different order there:
 * the check must compare data in an order that does not depend on
 * addresses (honest must pass).
 *
 * The lines the messages must name are marked with @markers@. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <dag.h>

static double x[4], y = 1.0, w[8];

struct args {
  int sneaky; /* also write y */
  double *out;
  double value;
};

static void set(void *p) {
  const struct args *a = p;
  *a->out = a->value;
  if (a->sneaky)
    y = 42.0; /* declared nowhere */
}

static double seen;

static void nop(void *p) { (void)p; }

static void look(void *p) {
  const struct args *a = p;
  seen += *a->out;
}

/* Runs on rank `rank`, or where the runtime places it (rank < 0); writes
 * `value` at `at`, or reads it (value 0), or touches nothing (value < 0). */
static void submit(const char *label, int line, int rank, enum dag_mode mode,
                   double *at, size_t n, double value, int sneaky) {
  struct args a = {sneaky, at, value};
  struct dag_access acc = {mode, dag_region_1d(at, n * sizeof *at)};
  struct dag_task_info info = {.fn = value < 0    ? nop
                                     : value == 0 ? look
                                                  : set,
                               .label = label,
                               .file = __FILE__,
                               .line = line,
                               .flags = rank >= 0 ? DAG_TASK_ON_RANK : 0,
                               .rank = rank};
  dag_check(dag_submit(&info, &a, sizeof a, &acc, 1));
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  int undeclared = !strcmp(mode, "undeclared"),
      inwrite = !strcmp(mode, "inwrite"), unmapped = !strcmp(mode, "unmapped");
  if (!undeclared && !inwrite && !unmapped && strcmp(mode, "honest")) {
    fprintf(stderr, "usage: mpi_values honest|undeclared|inwrite|unmapped\n");
    return 2;
  }
  if (dag_nranks() < 2) {
    fprintf(stderr, "mpi_values: needs 2 ranks or more\n");
    return 2;
  }
  submit("init", __LINE__, 0, DAG_OUT, w, 8, 1.0, 0); /* @init@ */
  submit("sneaky", __LINE__, 1, DAG_OUT, x, 4, 2.0, undeclared);
  /* Reads y (value 0: reads only): y becomes data the ranks must agree
   * on. */
  submit("reader", __LINE__, 0, DAG_IN, &y, 1, 0, 0); /* @reader@ */
  /* Declares reading w; writes it all the same when asked to. */
  submit("tamper", __LINE__, 1, inwrite ? DAG_IN : DAG_INOUT, w, 1, 3.0, 0);
  double *first, *second;
  if (dag_rank() % 2) {
    second = calloc(16, sizeof *second);
    first = calloc(16, sizeof *first);
  } else {
    first = calloc(16, sizeof *first);
    second = calloc(16, sizeof *second);
  }
  if (unmapped) { /* a page with none mapped around it */
    long page = sysconf(_SC_PAGESIZE);
    char *three = mmap(NULL, 3 * (size_t)page, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (three == MAP_FAILED || munmap(three + page, (size_t)page))
      return 2;
    double *none = (double *)(three + page);
    submit("token", __LINE__, 0, DAG_IN, none, 1, -1, 0); /* @token@ */
  }
  submit("first", __LINE__, 0, DAG_OUT, first, 16, 4.0, 0);
  submit("second", __LINE__, 1, DAG_OUT, second, 16, 5.0, 0);
  dag_check(dag_taskwait());
  free(first);
  free(second);
  printf("mpi_values: rank %d: x[0] = %g, y = %g, w[0] = %g\n", dag_rank(),
         x[0], y, w[0]);
  return 0;
}

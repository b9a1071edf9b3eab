/* mpi_memory: a rank commits physical memory only for what it owns. An
 * n x n double matrix (default 8192 x 8192, 512 MiB) is dag_alloc'd 2-D
 * block-cyclic on the grid dag_grid picks; tasks, each placed at the home
 * of the tile it writes, fill every tile, then sum each tile into a
 * replicated array. Then every tile is read on the next rank (its copy
 * travels there) and written again at its home, so the copies go stale
 * and their pages must be given back. Each rank's resident memory (VmRSS
 * in /proc/self/status), after each phase, may exceed what it was before
 * by at most 1.3 times its share of the matrix (n * n * 8 / nranks) plus a
 * small constant. Written against the API; run
 * under mpiexec (the test runs it on 4 ranks):
 *
 *   mpi_memory [n [tile]]
 *
 * Prints the numbers. Exits 77 (a skip) when the machine lacks the memory,
 * or when a limit it names keeps a rank from reserving the matrix's address
 * space (strict overcommit, vm.overcommit_memory=2, with too little commit
 * left for every rank's reservation; an address-space limit, ulimit -v);
 * 1 when dag_alloc fails all the same, on too much growth or a wrong sum.
 * Under AddressSanitizer the growth is printed but not held to the bound.
 * The sanitizer's own memory counts in VmRSS too: its shadow, and its
 * quarantine of freed blocks, such as MPI's buffers for messages that
 * arrive before their receive. There the copies' phase ends at 1.4 to 1.5
 * times the share, against 1.06 without it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <dag.h>
#include <mpi.h>

enum { SKIP = 77 };

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif
#define SLACK_MIB 24.0 /* the runtime's own records, MPI buffers, stacks */

/* A field of /proc/self/status or /proc/meminfo, in KiB; -1 if absent. */
static long kib(const char *file, const char *field) {
  FILE *f = fopen(file, "r");
  if (!f)
    return -1;
  char line[256];
  long v = -1;
  size_t n = strlen(field);
  while (fgets(line, sizeof line, f))
    if (strncmp(line, field, n) == 0 && line[n] == ':') {
      v = strtol(line + n + 1, NULL, 10);
      break;
    }
  fclose(f);
  return v;
}

/* Why this rank cannot reserve `bytes` of address space with
 * mmap(MAP_NORESERVE), as dag_alloc does on each of `ranks` ranks of this
 * node, a limit of the machine or of the process, written into why; NULL if
 * none is known. */
static const char *no_room(double bytes, int ranks, char *why, size_t size) {
  FILE *f = fopen("/proc/sys/vm/overcommit_memory", "r");
  int mode = 0;
  if (f) {
    if (fscanf(f, "%d", &mode) != 1)
      mode = 0;
    fclose(f);
  }
  long limit = kib("/proc/meminfo", "CommitLimit");
  long committed = kib("/proc/meminfo", "Committed_AS");
  if (mode == 2 && limit >= 0 && committed >= 0 &&
      (double)(limit - committed) * 1024.0 < bytes * ranks) {
    snprintf(why, size,
             "vm.overcommit_memory=2 (MAP_NORESERVE ignored) and %.0f MiB "
             "of commit left: no room for %d ranks' %.0f MiB each",
             (limit - committed) / 1024.0, ranks, bytes / 1048576.0);
    return why;
  }
  struct rlimit as;
  long vm = kib("/proc/self/status", "VmSize");
  if (!getrlimit(RLIMIT_AS, &as) && as.rlim_cur != RLIM_INFINITY && vm >= 0 &&
      (double)vm * 1024.0 + bytes > (double)as.rlim_cur) {
    snprintf(why, size,
             "an address-space limit (ulimit -v) of %.0f MiB, %.0f MiB "
             "used: no room for the %.0f MiB of the matrix",
             (double)as.rlim_cur / 1048576.0, vm / 1024.0, bytes / 1048576.0);
    return why;
  }
  return NULL;
}

struct tile {
  double *a;
  int rows, cols, n, i0, j0;
  double *sum;
};

/* Tile (i, j) of the n x n matrix a in bs x bs tiles, summed into *sum. */
static struct tile tile_at(double *a, int n, int bs, int i, int j,
                           double *sum) {
  struct tile t = {a + (size_t)i * bs * n + (size_t)j * bs,
                   (i + 1) * bs <= n ? bs : n - i * bs,
                   (j + 1) * bs <= n ? bs : n - j * bs,
                   n,
                   i * bs,
                   j * bs,
                   sum};
  return t;
}

static struct dag_region tile_region(const struct tile *t) {
  return dag_region_2d(t->a, (size_t)t->rows, (size_t)t->cols * sizeof *t->a,
                       (size_t)t->n * sizeof *t->a);
}

static double value(int i, int j) { return (double)((i * 3 + j * 5) % 101); }

static void fill(void *p) {
  const struct tile *t = p;
  for (int i = 0; i < t->rows; i++)
    for (int j = 0; j < t->cols; j++)
      t->a[(size_t)i * t->n + j] = value(t->i0 + i, t->j0 + j);
}

static void sum(void *p) {
  const struct tile *t = p;
  double s = 0;
  for (int i = 0; i < t->rows; i++)
    for (int j = 0; j < t->cols; j++)
      s += t->a[(size_t)i * t->n + j];
  *t->sum = s;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 8192;
  int bs = argc > 2 ? atoi(argv[2]) : 512;
  if (n < 1 || bs < 1) {
    fprintf(stderr, "usage: mpi_memory [n [tile]]\n");
    return 2;
  }
  int rank = dag_rank(), nranks = dag_nranks(), p, q;
  dag_grid(nranks, &p, &q);
  double total_mib = (double)n * n * 8 / 1048576.0;
  double share_mib = total_mib / nranks;

  /* Enough memory on this machine for every rank's share (the ranks of a
   * test run share one node)? The same answer on every rank. */
  long avail = kib("/proc/meminfo", "MemAvailable");
  int ok = avail < 0 || (double)avail / 1024.0 > 1.5 * total_mib + 256.0;
  int all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all_ok) {
    if (rank == 0)
      printf("mpi_memory: skipped: %.0f MiB available, the test needs about "
             "%.0f\n",
             avail / 1024.0, 1.5 * total_mib + 256.0);
    return SKIP;
  }
  char why[256];
  ok = !no_room(total_mib * 1048576.0, nranks, why, sizeof why);
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all_ok) {
    printf("mpi_memory: rank %d: skipped: %s\n", rank,
           ok ? "another rank cannot reserve the matrix" : why);
    return SKIP;
  }
  /* Nothing known keeps dag_alloc from reserving the matrix: a failure is
   * the runtime's. */
  double *a = dag_alloc(
      (size_t)n * n * sizeof *a,
      dag_dist_2d(sizeof *a, (size_t)n, (size_t)bs, (size_t)bs, p, q));
  ok = a != NULL;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all_ok) {
    printf("mpi_memory: rank %d: FAILED: dag_alloc of %.0f MiB: %s\n", rank,
           total_mib, a ? "failed on another rank" : dag_last_error());
    return 1;
  }
  int nt = (n + bs - 1) / bs;
  double *sums = calloc((size_t)nt * nt, sizeof *sums);
  double *sums2 = calloc((size_t)nt * nt, sizeof *sums2);
  if (!sums || !sums2)
    return 1;
  long before = kib("/proc/self/status", "VmRSS");

  int mine = 0;
  for (int i = 0; i < nt; i++)
    for (int j = 0; j < nt; j++) {
      struct tile t = tile_at(a, n, bs, i, j, &sums[i * nt + j]);
      mine += dag_owner(t.a) == rank;
      struct dag_access acc = dag_access_of(DAG_OUT, tile_region(&t));
      struct dag_task_info info = {.fn = fill, .label = "fill"};
      dag_check(dag_submit(&info, &t, sizeof t, &acc, 1));
      struct dag_access acc2[2] = {
          {DAG_IN, acc.region}, {DAG_OUT, dag_region_1d(t.sum, sizeof *t.sum)}};
      struct dag_task_info info2 = {.fn = sum, .label = "sum"};
      dag_check(dag_submit(&info2, &t, sizeof t, acc2, 2));
    }
  dag_check(dag_taskwait());
  long after = kib("/proc/self/status", "VmRSS");

  /* Phase 2: every tile is read on the next rank (a copy travels there),
   * then written again at its home: the copies go stale, and their pages
   * must be given back. */
  for (int i = 0; i < nt; i++)
    for (int j = 0; j < nt; j++) {
      struct tile t = tile_at(a, n, bs, i, j, &sums2[i * nt + j]);
      struct dag_region tile = tile_region(&t);
      struct dag_access acc2[2] = {
          {DAG_IN, tile}, {DAG_OUT, dag_region_1d(t.sum, sizeof *t.sum)}};
      struct dag_task_info info2 = {.fn = sum,
                                    .label = "sum_elsewhere",
                                    .flags = DAG_TASK_ON_RANK,
                                    .rank = (dag_owner(t.a) + 1) % nranks};
      dag_check(dag_submit(&info2, &t, sizeof t, acc2, 2));
      struct dag_access acc = {DAG_OUT, tile};
      struct dag_task_info info = {.fn = fill, .label = "fill_again"};
      dag_check(dag_submit(&info, &t, sizeof t, &acc, 1));
    }
  dag_check(dag_taskwait());
  long end = kib("/proc/self/status", "VmRSS");

  int bad = 0;
  for (int i = 0; i < nt && !bad; i++)
    for (int j = 0; j < nt && !bad; j++) {
      double s = 0;
      for (int r = i * bs; r < n && r < (i + 1) * bs; r++)
        for (int c = j * bs; c < n && c < (j + 1) * bs; c++)
          s += value(r, c);
      if (s != sums[i * nt + j] || s != sums2[i * nt + j]) {
        fprintf(stderr,
                "mpi_memory: rank %d: the sum of tile (%d, %d) is %.17g (at "
                "its home) and %.17g (on the next rank), not %.17g\n",
                rank, i, j, sums[i * nt + j], sums2[i * nt + j], s);
        bad = 1;
      }
    }
  double grew_mib = (after - before) / 1024.0;
  double end_mib = (end - before) / 1024.0;
  double limit_mib = 1.3 * share_mib + SLACK_MIB;
  printf("mpi_memory: rank %d of %d (%d x %d grid): %d x %d doubles (%.0f "
         "MiB), tiles %d, %d of %d tiles here: VmRSS %.1f MiB before, "
         "grew %.1f MiB (%.2fx the share) after writing its tiles, %.1f MiB "
         "(%.2fx) after copies went stale; share %.1f MiB, limit %.1f MiB\n",
         rank, nranks, p, q, n, n, total_mib, bs, mine, nt * nt,
         before / 1024.0, grew_mib, grew_mib / share_mib, end_mib,
         end_mib / share_mib, share_mib, limit_mib);
  if (UNDER_ASAN)
    printf("mpi_memory: rank %d: growth not checked under "
           "AddressSanitizer\n",
           rank);
  else if (grew_mib > limit_mib || end_mib > limit_mib) {
    fprintf(stderr,
            "mpi_memory: rank %d: resident memory grew by %.1f MiB (then "
            "%.1f MiB), more than 1.3 x its share (%.1f MiB) + %.0f MiB\n",
            rank, grew_mib, end_mib, share_mib, SLACK_MIB);
    bad = 1;
  }
  free(sums);
  free(sums2);
  dag_free(a);
  return bad;
}

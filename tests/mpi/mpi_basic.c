/* mpi_basic: rank-uniform execution on block-distributed and replicated
 * memory, checked on every rank. Run under mpiexec with any number of
 * ranks; exits non-zero (with a message) on a wrong value.
 *
 *   1. 8 tasks each fill one block of a 1-D block-cyclic array: they run at
 *      the blocks' homes;
 *   2. 8 tasks each add the block before theirs into a second array: data
 *      moves from the neighbour's home;
 *   3. one task sums everything into a replicated scalar (placed on the
 *      home of its first read block);
 *   4. taskwait: the scalar holds the same bytes on every rank; taskwait on
 *      the whole second array makes it readable everywhere;
 *   5. tasks without accesses are placed round-robin: each runs on exactly
 *      one rank, and the ranks run as many each (within one). */
#include <dag.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { BLOCKS = 8, LEN = 1000 };

struct fill_args {
  double *block;
  int index;
};

static void fill(void *p) {
  struct fill_args *a = p;
  for (int i = 0; i < LEN; i++)
    a->block[i] = a->index * LEN + i;
}

struct add_args {
  const double *prev, *mine;
  double *out;
};

static void add(void *p) {
  struct add_args *a = p;
  for (int i = 0; i < LEN; i++)
    a->out[i] = a->mine[i] + (a->prev ? a->prev[i] : 0);
}

struct sum_args {
  const double *all;
  double *sum;
};

static void sum(void *p) {
  struct sum_args *a = p;
  double s = 0;
  for (int i = 0; i < BLOCKS * LEN; i++)
    s += a->all[i];
  *a->sum = s;
}

static int check(const char *what, double got, double want) {
  if (got == want)
    return 0;
  fprintf(stderr, "mpi_basic: rank %d: %s is %.17g, not %.17g\n", dag_rank(),
          what, got, want);
  return 1;
}

/* ------------------------------------------- 5. tasks without accesses */

enum { UNPLACED = 1000 };
static unsigned char ran_here[UNPLACED]; /* this rank's count per task */

static void mark(void *p) { ran_here[*(const int *)p]++; }

/* On rank r: this rank's counts into row r of replicated memory, which the
 * taskwait then makes the same on every rank. */
static void report(void *row) { memcpy(*(void **)row, ran_here, UNPLACED); }

static int round_robin(void) {
  struct dag_task_info mark_info = {
      .fn = mark, .label = "mark", .line = __LINE__};
  for (int i = 0; i < UNPLACED; i++)
    dag_check(dag_submit(&mark_info, &i, sizeof i, NULL, 0));
  dag_check(dag_taskwait());

  int n = dag_nranks();
  unsigned char *seen = calloc((size_t)n, UNPLACED);
  if (!seen)
    return 1;
  for (int r = 0; r < n; r++) {
    unsigned char *row = seen + (size_t)r * UNPLACED;
    struct dag_access acc = {DAG_OUT, dag_region_1d(row, UNPLACED)};
    struct dag_task_info info = {.fn = report,
                                 .label = "report",
                                 .line = __LINE__,
                                 .flags = DAG_TASK_ON_RANK,
                                 .rank = r};
    dag_check(dag_submit(&info, &row, sizeof row, &acc, 1));
  }
  dag_check(dag_taskwait());

  int bad = 0;
  for (int i = 0; i < UNPLACED && !bad; i++) {
    int runs = 0;
    for (int r = 0; r < n; r++)
      runs += seen[(size_t)r * UNPLACED + i];
    if (runs != 1) {
      fprintf(stderr, "mpi_basic: rank %d: task %d ran %d times\n", dag_rank(),
              i, runs);
      bad = 1;
    }
  }
  for (int r = 0; r < n; r++) {
    int count = 0;
    for (int i = 0; i < UNPLACED; i++)
      count += seen[(size_t)r * UNPLACED + i];
    if (count < UNPLACED / n || count > UNPLACED / n + 1) {
      fprintf(stderr, "mpi_basic: rank %d: rank %d ran %d of %d tasks\n",
              dag_rank(), r, count, UNPLACED);
      bad = 1;
    }
  }
  free(seen);
  return bad;
}

int main(void) {
  size_t bytes = BLOCKS * LEN * sizeof(double);
  double *x = dag_alloc(bytes, dag_dist_block_cyclic(sizeof(double), LEN));
  double *y = dag_alloc(bytes, dag_dist_block_cyclic(sizeof(double), LEN));
  if (!x || !y)
    return 1;
  for (int b = 0; b < BLOCKS; b++) {
    struct fill_args a = {x + b * LEN, b};
    struct dag_access acc = {DAG_OUT, dag_region_1d(a.block, LEN * 8)};
    struct dag_task_info info = {.fn = fill, .label = "fill", .line = __LINE__};
    dag_check(dag_submit(&info, &a, sizeof a, &acc, 1));
  }
  for (int b = 0; b < BLOCKS; b++) {
    struct add_args a = {b ? x + (b - 1) * LEN : NULL, x + b * LEN,
                         y + b * LEN};
    struct dag_access acc[3] = {
        {DAG_OUT, dag_region_1d(a.out, LEN * 8)},
        {DAG_IN, dag_region_1d(a.mine, LEN * 8)},
        {DAG_IN, dag_region_1d(b ? a.prev : a.mine, LEN * 8)}};
    struct dag_task_info info = {.fn = add, .label = "add", .line = __LINE__};
    dag_check(dag_submit(&info, &a, sizeof a, acc, 3));
  }
  double total = -1;
  struct sum_args s = {y, &total};
  struct dag_access acc[2] = {{DAG_IN, dag_region_1d(y, bytes)},
                              {DAG_OUT, dag_region_1d(&total, sizeof total)}};
  struct dag_task_info info = {.fn = sum, .label = "sum", .line = __LINE__};
  dag_check(dag_submit(&info, &s, sizeof s, acc, 2));
  dag_check(dag_taskwait());

  /* y[b][i] = x[b][i] + x[b-1][i]; the sum of it all: */
  double want = 0;
  for (int b = 0; b < BLOCKS; b++)
    for (int i = 0; i < LEN; i++)
      want += (double)(b * LEN + i) + (b ? (double)((b - 1) * LEN + i) : 0);
  int bad = check("the sum", total, want);

  struct dag_access all = {DAG_IN, dag_region_1d(y, bytes)};
  dag_check(dag_taskwait_on(&all, 1));
  for (int b = 0; b < BLOCKS; b++)
    bad |= check("y[b][7]", y[b * LEN + 7],
                 (double)(b * LEN + 7) + (b ? (double)((b - 1) * LEN + 7) : 0));
  bad |= round_robin();
  if (!bad)
    printf("mpi_basic: rank %d of %d: ok\n", dag_rank(), dag_nranks());
  dag_free(x);
  dag_free(y);
  return bad;
}

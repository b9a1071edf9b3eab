/* mpi_reduce: task reductions on several ranks, checked against the same
 * loops run sequentially. Each round fills two distributed arrays (blocks
 * dealt to the ranks in turn), then the task of block b, where the block
 * lives, adds its counts into a histogram with reduction(+: hist[0:BINS]),
 * its sum of squares into `s` with reduction(+: s) and its largest value
 * into `most` with reduction(max: most): replicated items, combined along
 * the ranks' tree. A task that reads `s` halfway ends that group; the
 * sums after it start a new one. An item in distributed memory (`low`,
 * homed on the last rank) takes reduction(min: low[0:LOWS]) and is read
 * with taskwait on.
 *
 * Integers must match the serial counts exactly; the floating-point sum
 * within rounding, and bit for bit from one run of the same round to the
 * next and between ranks (copies combine in an order fixed by the tasks).
 *
 *   mpi_reduce [rounds]
 *
 * Built with dagcc; run under mpiexec with any number of ranks. Exits
 * non-zero on the first difference. */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dag.h>

enum { BLOCKS = 24, BLOCK = 2048, BINS = 64, LOWS = 4 };

static void fill(uint32_t *x, double *y, int b, int round) {
  for (int i = 0; i < BLOCK; i++) {
    x[i] = (uint32_t)((b * 7919 + i * 31 + round * 104729) % 100003);
    y[i] = 1.0 / (1 + b * BLOCK + i + round);
  }
}

static void count(const uint32_t *x, int64_t *hist) {
  for (int i = 0; i < BLOCK; i++)
    hist[x[i] % BINS]++;
}

static void squares(const double *y, double *s) {
  for (int i = 0; i < BLOCK; i++)
    *s += y[i] * y[i];
}

static void lowest(const uint32_t *x, int b, double *low) {
  for (int i = 0; i < BLOCK; i++)
    low[(b + i) % LOWS] = fmin(low[(b + i) % LOWS], x[i] * 0.5);
}

struct results {
  int64_t hist[BINS];
  double s, half;
  uint32_t most;
  double low[LOWS];
};

static void serial(int round, struct results *r) {
  static uint32_t x[BLOCK];
  static double y[BLOCK];
  memset(r, 0, sizeof *r);
  r->s = 0.25;
  for (int l = 0; l < LOWS; l++)
    r->low[l] = 1e9;
  for (int b = 0; b < BLOCKS; b++) {
    fill(x, y, b, round);
    count(x, r->hist);
    squares(y, &r->s);
    if (b == BLOCKS / 2 - 1)
      r->half = r->s;
    for (int i = 0; i < BLOCK; i++)
      r->most = x[i] > r->most ? x[i] : r->most;
    lowest(x, b, r->low);
  }
}

static void largest(const uint32_t *x, uint32_t *most) {
  for (int i = 0; i < BLOCK; i++)
    *most = x[i] > *most ? x[i] : *most;
}

static void run(int round, uint32_t *x, double *y, double *low,
                struct results *r) {
  int64_t hist[BINS] = {0};
  double s = 0.25, half = 0;
  uint32_t most = 0;
  for (int b = 0; b < BLOCKS; b++) {
#pragma dag task out(x[b * BLOCK:BLOCK], y[b * BLOCK:BLOCK])
    fill(&x[b * BLOCK], &y[b * BLOCK], b, round);
  }
#pragma dag task out(low[0:LOWS])
  for (int l = 0; l < LOWS; l++)
    low[l] = 1e9;
  for (int b = 0; b < BLOCKS; b++) {
#pragma dag task in(x[b * BLOCK:BLOCK]) reduction(+: hist[0:BINS])
    count(&x[b * BLOCK], hist);
#pragma dag task in(y[b * BLOCK:BLOCK]) reduction(+: s)
    squares(&y[b * BLOCK], &s);
#pragma dag task in(x[b * BLOCK:BLOCK]) reduction(max: most)
    largest(&x[b * BLOCK], &most);
#pragma dag task in(x[b * BLOCK:BLOCK]) reduction(min: low[0:LOWS])
    lowest(&x[b * BLOCK], b, low);
    if (b == BLOCKS / 2 - 1) {
#pragma dag task in(s) out(half)
      half = s;
    }
  }
#pragma dag taskwait on(low[0:LOWS])
  memcpy(r->low, low, sizeof r->low);
#pragma dag taskwait
  memcpy(r->hist, hist, sizeof hist);
  r->s = s;
  r->half = half;
  r->most = most;
}

/* dag_dist_owner: every unit on the last rank. */
static int on_last_rank(size_t offset, void *ctx) {
  (void)offset;
  (void)ctx;
  return dag_nranks() - 1;
}

static int fail(int round, const char *what) {
  fprintf(stderr, "rank %d round %d: %s differs\n", dag_rank(), round, what);
  return 1;
}

/* Whether d is the same bits on every rank. */
static int same_everywhere(double d) {
  double first = d;
  MPI_Bcast(&first, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  int same = memcmp(&first, &d, sizeof d) == 0, all;
  MPI_Allreduce(&same, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  return all;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rounds = argc > 1 ? atoi(argv[1]) : 2;
  uint32_t *x = dag_alloc(BLOCKS * BLOCK * sizeof *x,
                          dag_dist_block_cyclic(sizeof *x, BLOCK));
  double *y = dag_alloc(BLOCKS * BLOCK * sizeof *y,
                        dag_dist_block_cyclic(sizeof *y, BLOCK));
  double *low = dag_alloc(LOWS * sizeof *low,
                          dag_dist_owner(LOWS * sizeof *low, on_last_rank, NULL));
  int bad = 0;
  for (int round = 0; round < rounds && !bad; round++) {
    struct results want, got, again;
    serial(round, &want);
    run(round, x, y, low, &got);
    run(round, x, y, low, &again);
    if (memcmp(got.hist, want.hist, sizeof want.hist))
      bad = fail(round, "the histogram");
    else if (got.most != want.most)
      bad = fail(round, "the largest value");
    else if (memcmp(got.low, want.low, sizeof want.low))
      bad = fail(round, "the distributed minima");
    else if (fabs(got.s - want.s) > 1e-12 * want.s ||
             fabs(got.half - want.half) > 1e-12 * want.half)
      bad = fail(round, "the sum of squares");
    else if (memcmp(&got.s, &again.s, sizeof got.s) ||
             memcmp(&got.half, &again.half, sizeof got.half))
      bad = fail(round, "the sum from one run to the next");
    if (!same_everywhere(got.s))
      bad = fail(round, "the sum from rank to rank");
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  }
  dag_free(x);
  dag_free(y);
  dag_free(low);
  if (!bad && dag_rank() == 0)
    printf("mpi_reduce: %d rounds on %d ranks match\n", rounds, dag_nranks());
  MPI_Finalize();
  return bad;
}

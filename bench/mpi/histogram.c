/* histogram: a histogram of a distributed array, its tasks combining into
 * the replicated counts with reduction(+: hist[0:bins]) or, as before
 * reductions, commutative(hist[0:bins]). The blocks of the array are dealt
 * to the ranks in turn and each task runs where its block lives. With
 * reduction the tasks of a rank run on all its workers, each into a
 * private copy, and the ranks' copies combine along a tree; with
 * commutative they run one at a time on each rank, and the counts make
 * one hop per rank (plan/commute_group.c).
 *
 *   histogram reduction|commutative [blocks [block [bins [reps]]]]
 *
 * Prints, on each rank, the median time of `reps` histograms (submission
 * to taskwait) and whether its counts match the serial loop's; exits
 * non-zero when they do not. Built with dagcc; run under mpiexec. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dag.h>
#include <harness.h>

static uint32_t value_at(long i) { return (uint32_t)(i * 2654435761u); }

static void fill(uint32_t *x, long first, long n) {
  for (long i = 0; i < n; i++)
    x[i] = value_at(first + i);
}

static void count(const uint32_t *x, long n, int64_t *hist, long bins) {
  for (long i = 0; i < n; i++)
    hist[x[i] % (uint32_t)bins]++;
}

static void by_reduction(const uint32_t *x, long blocks, long block,
                         int64_t *hist, long bins) {
  for (long b = 0; b < blocks; b++) {
#pragma dag task in(x[b * block:block]) reduction(+: hist[0:bins])
    count(&x[b * block], block, hist, bins);
  }
#pragma dag taskwait
}

static void by_commutative(const uint32_t *x, long blocks, long block,
                           int64_t *hist, long bins) {
  for (long b = 0; b < blocks; b++) {
#pragma dag task in(x[b * block:block]) commutative(hist[0:bins])
    count(&x[b * block], block, hist, bins);
  }
#pragma dag taskwait
}

static int by_time(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  if (argc < 2 || (strcmp(argv[1], "reduction") &&
                   strcmp(argv[1], "commutative"))) {
    fprintf(stderr, "usage: histogram reduction|commutative "
                    "[blocks [block [bins [reps]]]]\n");
    return 2;
  }
  bool reduce = !strcmp(argv[1], "reduction");
  long blocks = argc > 2 ? atol(argv[2]) : 64;
  long block = argc > 3 ? atol(argv[3]) : 1 << 16;
  long bins = argc > 4 ? atol(argv[4]) : 1024;
  int reps = argc > 5 ? atoi(argv[5]) : 9;
  uint32_t *x = dag_alloc((size_t)(blocks * block) * sizeof *x,
                          dag_dist_block_cyclic(sizeof *x, (size_t)block));
  int64_t *hist = calloc((size_t)bins, sizeof *hist);
  int64_t *want = calloc((size_t)bins, sizeof *want);
  double *ms = malloc((size_t)reps * sizeof *ms);
  if (!x || !hist || !want || !ms)
    return 1;
  for (long b = 0; b < blocks; b++) {
#pragma dag task out(x[b * block:block])
    fill(&x[b * block], b * block, block);
  }
  for (long i = 0; i < blocks * block; i++)
    want[value_at(i) % (uint32_t)bins] += reps;
  for (int r = 0; r < reps; r++) {
    double t0 = bench_now();
    (reduce ? by_reduction : by_commutative)(x, blocks, block, hist, bins);
    ms[r] = (bench_now() - t0) * 1e3;
  }
  bool ok = !memcmp(hist, want, (size_t)bins * sizeof *hist);
  qsort(ms, (size_t)reps, sizeof *ms, by_time);
  printf("histogram %-11s rank=%d ranks=%d workers=%d blocks=%ld block=%ld "
         "bins=%ld median_ms=%.3f ok=%d\n",
         argv[1], dag_rank(), dag_nranks(), dag_num_workers(), blocks, block,
         bins, ms[reps / 2], ok);
  dag_free(x);
  free(hist);
  free(want);
  free(ms);
  return !ok;
}

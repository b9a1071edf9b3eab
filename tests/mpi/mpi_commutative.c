/* mpi_commutative: groups of commutative tasks on several ranks, checked
 * against the same updates run sequentially. A histogram of a distributed
 * array: the task of block b reads the block where it lives (its home,
 * dealt to the ranks in turn) and adds its counts into `hist`, replicated
 * memory that every task of the round updates with commutative(hist); a
 * second histogram, of the blocks squared, is a group of its own, and a
 * task per block that rewrites it (inout) ends them. The last group is
 * submitted by a function of its own with priority(b): dagcc makes such a
 * task's description a local of the pragma's block, gone when the group is
 * planned (tests/mpi runs one case with DAG_TRACE, which reads the tasks'
 * labels). The counts are integers: any order of the tasks gives the same
 * bits.
 *
 *   mpi_commutative [rounds]
 *
 * The planner runs a group rank by rank (plan/commute_group.c), so `hist`
 * makes one hop per rank and round where it made one per task;
 * commutative_hops.sh counts the messages. Built with dagcc; run under
 * mpiexec with any number of ranks. Exits non-zero on the first
 * difference. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dag.h>

enum { BLOCKS = 24, BLOCK = 4096, BINS = 64 };

static void fill(uint32_t *x, int b, int round) {
  for (int i = 0; i < BLOCK; i++)
    x[i] = (uint32_t)((b * 7919 + i * 31 + round * 104729) % 100003);
}

static void count(const uint32_t *x, int64_t *hist) {
  for (int i = 0; i < BLOCK; i++)
    hist[x[i] % BINS]++;
}

static void count_squares(const uint32_t *x, int64_t *hist) {
  for (int i = 0; i < BLOCK; i++)
    hist[(uint64_t)x[i] * x[i] % BINS] += x[i] & 3;
}

static void rewrite(uint32_t *x) {
  for (int i = 0; i < BLOCK; i++)
    x[i] = x[i] * 2654435761u % 100003;
}

/* The tasks of one group, from a function that returns before the group
 * ends. */
static void count_all(uint32_t *x, int64_t *hist) {
  for (int b = 0; b < BLOCKS; b++) {
#pragma dag task in(x[b * BLOCK:BLOCK]) commutative(hist[0:BINS]) priority(b) label("count")
    count(&x[b * BLOCK], hist);
  }
}

/* Uses the stack count_all's pragmas used. */
static __attribute__((noinline)) int64_t scribble(int64_t seed) {
  volatile int64_t junk[256];
  for (int i = 0; i < 256; i++)
    junk[i] = seed * i - 1;
  return junk[seed & 255];
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 3;
  uint32_t *x = dag_alloc(sizeof(uint32_t) * BLOCKS * BLOCK,
                          dag_dist_block_cyclic(sizeof(uint32_t), BLOCK));
  int64_t hist[BINS], squares[BINS], want[BINS], want_squares[BINS];
  memset(hist, 0, sizeof hist);
  memset(squares, 0, sizeof squares);
  memset(want, 0, sizeof want);
  memset(want_squares, 0, sizeof want_squares);
  uint32_t *serial = malloc(sizeof(uint32_t) * BLOCK);

  for (int r = 0; r < rounds; r++) {
    for (int b = 0; b < BLOCKS; b++) {
#pragma dag task out(x[b * BLOCK:BLOCK])
      fill(&x[b * BLOCK], b, r);
    }
    for (int b = 0; b < BLOCKS; b++) {
#pragma dag task in(x[b * BLOCK:BLOCK]) commutative(hist)
      count(&x[b * BLOCK], hist);
    }
    for (int b = 0; b < BLOCKS; b++) {
#pragma dag task in(x[b * BLOCK:BLOCK]) commutative(squares)
      count_squares(&x[b * BLOCK], squares);
    }
    for (int b = 0; b < BLOCKS; b++) {
#pragma dag task inout(x[b * BLOCK:BLOCK])
      rewrite(&x[b * BLOCK]);
    }
    count_all(x, hist);
    if (scribble(r) == 42)
      printf("mpi_commutative: unlikely\n");
#pragma dag taskwait

    for (int b = 0; b < BLOCKS; b++) {
      fill(serial, b, r);
      count(serial, want);
      count_squares(serial, want_squares);
      rewrite(serial);
      count(serial, want);
    }
    if (memcmp(hist, want, sizeof hist) ||
        memcmp(squares, want_squares, sizeof squares)) {
      fprintf(stderr, "mpi_commutative: rank %d: round %d differs\n",
              dag_rank(), r);
      return 1;
    }
  }
  printf("mpi_commutative: rank %d of %d: %d rounds ok\n", dag_rank(),
         dag_nranks(), rounds);
  free(serial);
  dag_free(x);
  return 0;
}

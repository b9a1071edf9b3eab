/* nqueens.c — the number of ways to place n queens on an n x n board.
 *
 * Row by row, the free columns of a row are the bits left free by the
 * queens above: by their columns and by their two diagonals, three bit
 * masks. For each free column of a row above the cutoff (row < cutoff) the
 * search of the rows below is a task that writes its count into an array of
 * the caller, which waits and adds; from the cutoff down the same search
 * runs without tasks. Checked against the known counts (OEIS A000170).
 */
#include "nested.h"

#include <stdio.h>

static int size, cutoff;
static long result;

/* Solutions with queens on rows 0 .. row - 1 placed, which leave free the
 * columns not in cols | left | right (bits). */
static long queens_seq(int n, int row, unsigned cols, unsigned left,
                       unsigned right) {
  if (row == n)
    return 1;
  unsigned all = (1u << n) - 1, avail = all & ~(cols | left | right);
  long count = 0;
  while (avail) {
    unsigned bit = avail & -avail;
    avail -= bit;
    count += queens_seq(n, row + 1, cols | bit, (left | bit) << 1,
                        (right | bit) >> 1);
  }
  return count;
}

static long queens(int n, int row, unsigned cols, unsigned left,
                   unsigned right) {
  if (row >= cutoff)
    return queens_seq(n, row, cols, left, right);
  if (row == n)
    return 1;
  unsigned all = (1u << n) - 1, avail = all & ~(cols | left | right);
  long counts[32];
  int k = 0;
  while (avail) {
    unsigned bit = avail & -avail;
    avail -= bit;
#pragma omp task shared(counts)
#pragma dag task out(counts[k])
    counts[k] =
        queens(n, row + 1, cols | bit, (left | bit) << 1, (right | bit) >> 1);
    k++;
  }
#pragma omp taskwait
#pragma dag taskwait
  long count = 0;
  for (int i = 0; i < k; i++)
    count += counts[i];
  return count;
}

static int setup(long n, long c) {
  if (n < 1 || n > 20) {
    fprintf(stderr, "nqueens: n = %ld, expected 1 to 20\n", n);
    return 1;
  }
  size = (int)n;
  cutoff = (int)(c < n ? c : n);
  return 0;
}

static void run(void) { result = queens(size, 0, 0, 0, 0); }

static int check(char *what, size_t len) {
  static const long known[21] = {
      1,      1,       0,        0,        2,         10,         4,
      40,     92,      352,      724,      2680,      14200,      73712,
      365596, 2279184, 14772512, 95815104, 666090624, 4968057848, 39029188884};
  snprintf(what, len, "solutions=%ld", result);
  if (result != known[size]) {
    fprintf(stderr, "nqueens: %ld solutions for n = %d, expected %ld\n", result,
            size, known[size]);
    return 1;
  }
  return 0;
}

const struct nested_kernel nested_kernel = {
    .name = "nqueens",
    .size = 14,
    .cutoff = 3,
    .size_means = "n, the board's side (at most 20)",
    .cutoff_means = "rows above CUTOFF make a task per avail column",
    .setup = setup,
    .run = run,
    .check = check,
};

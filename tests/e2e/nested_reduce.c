/* nested_reduce: reductions among the children of task bodies. A
 * recursive sum splits its range into tasks that reduce into a local of
 * the caller, which waits for them (the same code at the top level and in
 * every task); a task function's children reduce into the item it was
 * given, and it returns without waiting: its successor reads the total.
 * Integer sums, exact: prints the same as the program built without
 * dagcc, and checks them against plain loops (exit 1 if wrong). */
#include <stdio.h>
#include <stdlib.h>

enum { N = 1 << 16, CUT = 1 << 10, WAYS = 4, BLOCKS = 8 };

static long sum_range(const long *x, int n) {
  long s = 0;
  if (n <= CUT) {
    for (int i = 0; i < n; i++)
      s += x[i];
    return s;
  }
  int len = n / WAYS;
  for (int b = 0; b < n; b += len)
#pragma dag task in(x[b:len]) reduction(+: s)
    s += sum_range(x + b, len);
#pragma dag taskwait
  return s;
}

/* The squares of x's elements and their greatest, block by block: the
 * children reduce into *sum and *most, and the body returns at once. */
#pragma dag task in(x[0:n]) inout(*sum, *most)
void block_stats(const long *x, int n, long *sum, long *most);
void block_stats(const long *x, int n, long *sum, long *most) {
  int len = n / BLOCKS;
  for (int b = 0; b < n; b += len)
#pragma dag task in(x[b:len]) reduction(+: *sum) reduction(max: *most)
    for (int i = b; i < b + len; i++) {
      *sum += x[i] * x[i];
      if (x[i] > *most)
        *most = x[i];
    }
}

#pragma dag task in(*sum, *most) out(*line)
void describe(const long *sum, const long *most, char (*line)[64]);
void describe(const long *sum, const long *most, char (*line)[64]) {
  snprintf(*line, sizeof *line, "squares %ld, greatest %ld", *sum, *most);
}

int main(void) {
  long *x = malloc(N * sizeof *x);
  for (int i = 0; i < N; i++)
    x[i] = (i * 7919L) % 1009 - 500;
  long total = sum_range(x, N);
  printf("sum: %ld\n", total);
  enum { PARTS = 4 };
  long sums[PARTS], most[PARTS];
  char lines[PARTS][64];
  for (int p = 0; p < PARTS; p++) {
    sums[p] = p;
    most[p] = -1000;
    block_stats(x + p * (N / PARTS), N / PARTS, &sums[p], &most[p]);
    describe(&sums[p], &most[p], &lines[p]);
  }
#pragma dag taskwait
  for (int p = 0; p < PARTS; p++)
    printf("part %d: %s\n", p, lines[p]);
  /* The same sums by plain loops: tests/mpi runs this on 1-4 ranks. */
  int wrong = 0;
  for (int p = 0; p < PARTS; p++) {
    long want = p, high = -1000;
    for (int i = p * (N / PARTS); i < (p + 1) * (N / PARTS); i++) {
      want += x[i] * x[i];
      high = x[i] > high ? x[i] : high;
      total -= x[i];
    }
    wrong |= sums[p] != want || most[p] != high;
  }
  wrong |= total != 0;
  printf("check: %s\n", wrong ? "WRONG" : "ok");
  free(x);
  return wrong;
}

/* sort.c — merge sort of n 64-bit keys, with a parallel merge.
 *
 * msort sorts the two halves of its range as two tasks, each sorting into
 * the other buffer, waits, and merges them back with pmerge, which splits
 * the larger run at its middle, finds the split of the smaller one by
 * binary search and merges the two pairs as two tasks. Ranges of at most
 * the cutoff elements are sorted, or merged, without tasks (the same
 * recursion; runs of up to 32 keys by insertion). Checked: the output is in
 * order and holds the same keys (sums of the keys and of a mix of them).
 */
#include "nested.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long size, cutoff;
static int64_t *keys, *scratch;
static uint64_t sum_in, mixsum_in;

static void insertion(int64_t *a, long n) {
  for (long i = 1; i < n; i++) {
    int64_t v = a[i];
    long j = i;
    for (; j > 0 && a[j - 1] > v; j--)
      a[j] = a[j - 1];
    a[j] = v;
  }
}

/* The first index of y[0 .. n - 1] (sorted) whose key is >= v. */
static long lower_bound(const int64_t *y, long n, int64_t v) {
  long lo = 0, hi = n;
  while (lo < hi) {
    long mid = lo + (hi - lo) / 2;
    if (y[mid] < v)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static void merge_seq(const int64_t *x, long nx, const int64_t *y, long ny,
                      int64_t *out) {
  long i = 0, j = 0, k = 0;
  while (i < nx && j < ny)
    out[k++] = y[j] < x[i] ? y[j++] : x[i++];
  memcpy(out + k, x + i, (size_t)(nx - i) * sizeof *x);
  memcpy(out + k + nx - i, y + j, (size_t)(ny - j) * sizeof *y);
}

/* Sorts a[0 .. n - 1], using b[0 .. n - 1]: the result ends in b if to_b,
 * else in a. */
static void msort_seq(int64_t *a, int64_t *b, long n, int to_b) {
  if (n <= 32) {
    insertion(a, n);
    if (to_b)
      memcpy(b, a, (size_t)n * sizeof *a);
    return;
  }
  long h = n / 2;
  msort_seq(a, b, h, !to_b);
  msort_seq(a + h, b + h, n - h, !to_b);
  if (to_b)
    merge_seq(a, h, a + h, n - h, b);
  else
    merge_seq(b, h, b + h, n - h, a);
}

/* Merges the sorted x[0 .. nx - 1] and y[0 .. ny - 1] into out. */
static void pmerge(const int64_t *x, long nx, const int64_t *y, long ny,
                   int64_t *out) {
  if (nx < ny) {
    const int64_t *t = x;
    long nt = nx;
    x = y, nx = ny, y = t, ny = nt;
  }
  if (nx + ny <= cutoff) {
    merge_seq(x, nx, y, ny, out);
    return;
  }
  long mx = nx / 2, my = lower_bound(y, ny, x[mx]), rx = nx - mx, ry = ny - my;
#pragma omp task
#pragma dag task in(x[0:mx], y[0:my]) out(out[0:mx + my])
  pmerge(x, mx, y, my, out);
#pragma omp task
#pragma dag task in(x[mx:rx], y[my:ry]) out(out[mx + my:rx + ry])
  pmerge(x + mx, rx, y + my, ry, out + mx + my);
#pragma omp taskwait
#pragma dag taskwait
}

static void msort(int64_t *a, int64_t *b, long n, int to_b);

/* msort_seq with tasks above the cutoff. */
static void msort(int64_t *a, int64_t *b, long n, int to_b) {
  if (n <= cutoff) {
    msort_seq(a, b, n, to_b);
    return;
  }
  long h = n / 2;
#pragma omp task
#pragma dag task inout(a[0:h], b[0:h])
  msort(a, b, h, !to_b);
#pragma omp task
#pragma dag task inout(a[h:n - h], b[h:n - h])
  msort(a + h, b + h, n - h, !to_b);
#pragma omp taskwait
#pragma dag taskwait
  if (to_b)
    pmerge(a, h, a + h, n - h, b);
  else
    pmerge(b, h, b + h, n - h, a);
}

static int setup(long n, long c) {
  if (n < 1) {
    fprintf(stderr, "sort: n = %ld, expected at least 1\n", n);
    return 1;
  }
  size = n;
  cutoff = c < 64 ? 64 : c; /* a merge splits only runs of 2 keys or more */
  keys = malloc((size_t)n * sizeof *keys);
  scratch = malloc((size_t)n * sizeof *scratch);
  if (!keys || !scratch) {
    fprintf(stderr, "sort: out of memory for %ld keys\n", n);
    return 1;
  }
  for (long i = 0; i < n; i++) {
    keys[i] = (int64_t)bench_mix((uint64_t)i);
    sum_in += (uint64_t)keys[i];
    mixsum_in += bench_mix((uint64_t)keys[i]);
  }
  memset(scratch, 0, (size_t)n * sizeof *scratch); /* touched in every run */
  return 0;
}

static void run(void) { msort(keys, scratch, size, 0); }

static int check(char *what, size_t len) {
  uint64_t sum = 0, mixsum = 0;
  long disorder = 0;
  for (long i = 0; i < size; i++) {
    sum += (uint64_t)keys[i];
    mixsum += bench_mix((uint64_t)keys[i]);
    disorder += i > 0 && keys[i - 1] > keys[i];
  }
  snprintf(what, len, "keys=%ld", size);
  free(keys);
  free(scratch);
  if (disorder || sum != sum_in || mixsum != mixsum_in) {
    fprintf(stderr, "sort: %ld keys out of order, keys %s\n", disorder,
            sum != sum_in || mixsum != mixsum_in ? "changed" : "kept");
    return 1;
  }
  return 0;
}

const struct nested_kernel nested_kernel = {
    .name = "sort",
    .size = 1L << 23,
    .cutoff = 1L << 14,
    .size_means = "n, the number of 64-bit keys",
    .cutoff_means =
        "ranges of at most CUTOFF keys (at least 64) sort and merge serially",
    .setup = setup,
    .run = run,
    .check = check,
};

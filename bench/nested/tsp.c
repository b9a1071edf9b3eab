/* tsp.c — branch and bound: the shortest tour of n cities, with a shared
 * best length.
 *
 * n cities at random points of a square, integer distances. A node of the
 * search is a path from city 0: its last city, the set of cities visited
 * and its length. It is pruned when its bound, the length plus the
 * shortest edge out of the last city and out of every city not visited yet
 * (each of them must still be left once), is not below the best tour
 * length found so far, shared by all tasks; a complete path closes the tour
 * and lowers the best length (atomically). Children go to the nearest
 * cities first. Above the cutoff (paths of fewer than cutoff edges) each
 * child is a task, with no taskwait: a task only reads and lowers the best
 * length; from the cutoff down the search goes on without tasks. The best
 * length starts from the nearest-neighbour tour. How many nodes a run visits
 * depends on when it finds short tours, so it varies a little between runs
 * and versions. Checked against Held and Karp's dynamic programming.
 */
#include "nested.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum { MAX_CITIES = 22 };

static int n, cutoff;
static int dist[MAX_CITIES][MAX_CITIES];
static int near[MAX_CITIES][MAX_CITIES]; /* cities by distance, self last */
static int shortest[MAX_CITIES];         /* shortest edge out of a city */
static int best;

static int best_now(void) { return __atomic_load_n(&best, __ATOMIC_RELAXED); }

static void lower_best(int len) {
  int b = best_now();
  while (len < b && !__atomic_compare_exchange_n(
                        &best, &b, len, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
    ;
}

/* The path ends at city `last` after `edges` edges, has length len, has
 * visited the cities of `seen`; rest is the sum of shortest[] over the
 * cities not in seen. */
static void search_seq(int last, int edges, unsigned seen, int len, int rest) {
  if (edges == n - 1) {
    lower_best(len + dist[last][0]);
    return;
  }
  if (len + shortest[last] + rest >= best_now())
    return;
  for (int i = 0; i < n - 1; i++) {
    int c = near[last][i];
    if (!(seen & 1u << c))
      search_seq(c, edges + 1, seen | 1u << c, len + dist[last][c],
                 rest - shortest[c]);
  }
}

static void search(int last, int edges, unsigned seen, int len, int rest) {
  if (edges >= cutoff || edges == n - 1) {
    search_seq(last, edges, seen, len, rest);
    return;
  }
  if (len + shortest[last] + rest >= best_now())
    return;
  for (int i = 0; i < n - 1; i++) {
    int c = near[last][i];
    if (seen & 1u << c)
      continue;
#pragma omp task
#pragma dag task
    search(c, edges + 1, seen | 1u << c, len + dist[last][c],
           rest - shortest[c]);
  }
}

static int sort_last; /* the city whose neighbours by_distance sorts */

static int by_distance(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  int dx = x == sort_last ? 1 << 30 : dist[sort_last][x];
  int dy = y == sort_last ? 1 << 30 : dist[sort_last][y];
  if (dx != dy)
    return (dx > dy) - (dx < dy);
  return (x > y) - (x < y);
}

static int setup(long size, long c) {
  if (size < 3 || size > MAX_CITIES) {
    fprintf(stderr, "tsp: n = %ld, expected 3 to %d cities\n", size,
            MAX_CITIES);
    return 1;
  }
  n = (int)size;
  cutoff = (int)(c < size ? c : size);
  double x[MAX_CITIES], y[MAX_CITIES];
  for (int i = 0; i < n; i++) {
    x[i] = 1000 * nested_unit(2 * (uint64_t)i);
    y[i] = 1000 * nested_unit(2 * (uint64_t)i + 1);
  }
  for (int i = 0; i < n; i++) {
    shortest[i] = 1 << 30;
    for (int j = 0; j < n; j++) {
      dist[i][j] = (int)lround(hypot(x[i] - x[j], y[i] - y[j]));
      if (j != i && dist[i][j] < shortest[i])
        shortest[i] = dist[i][j];
      near[i][j] = j;
    }
    sort_last = i;
    qsort(near[i], (size_t)n, sizeof near[i][0], by_distance);
  }
  unsigned seen = 1; /* the nearest-neighbour tour: the first best */
  int last = 0, len = 0;
  for (int e = 0; e < n - 1; e++) {
    int i = 0;
    while (seen & 1u << near[last][i])
      i++;
    int next = near[last][i];
    len += dist[last][next];
    seen |= 1u << next;
    last = next;
  }
  best = len + dist[last][0];
  return 0;
}

static void run(void) {
  int rest = 0;
  for (int i = 1; i < n; i++)
    rest += shortest[i];
  search(0, 0, 1, 0, rest);
}

static int check(char *what, size_t len) {
  /* Held-Karp: d[S][j], the shortest path from 0 through the cities of S
   * (a set of cities 1 .. n - 1, bit j - 1 for city j) ending at j in S. */
  size_t sets = (size_t)1 << (n - 1);
  int *d = malloc(sets * (size_t)n * sizeof *d);
  if (!d)
    return 1;
  for (size_t s = 1; s < sets; s++)
    for (int j = 1; j < n; j++) {
      int *dsj = &d[s * (size_t)n + (size_t)j];
      *dsj = 1 << 30;
      if (!(s >> (j - 1) & 1))
        continue;
      size_t r = s & ~((size_t)1 << (j - 1));
      if (!r) {
        *dsj = dist[0][j];
        continue;
      }
      for (int k = 1; k < n; k++)
        if (r >> (k - 1) & 1 &&
            d[r * (size_t)n + (size_t)k] + dist[k][j] < *dsj)
          *dsj = d[r * (size_t)n + (size_t)k] + dist[k][j];
    }
  int expected = 1 << 30;
  for (int j = 1; j < n; j++) {
    int t = d[(sets - 1) * (size_t)n + (size_t)j] + dist[j][0];
    if (t < expected)
      expected = t;
  }
  free(d);
  snprintf(what, len, "tour=%d", best);
  if (best != expected) {
    fprintf(stderr, "tsp: best tour %d, expected %d\n", best, expected);
    return 1;
  }
  return 0;
}

const struct nested_kernel nested_kernel = {
    .name = "tsp",
    .size = 18,
    .cutoff = 3,
    .size_means = "n, the number of cities (at most 22)",
    .cutoff_means =
        "paths of fewer than CUTOFF edges make a task per next city",
    .setup = setup,
    .run = run,
    .check = check,
};

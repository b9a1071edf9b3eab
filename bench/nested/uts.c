/* uts.c — an unbalanced tree search: count the nodes of a random tree that
 * exists only as a hash.
 *
 * As UTS's geometric trees (shape "fixed"): a node at depth below the depth
 * limit has a geometrically distributed number of children with mean 4 (at
 * most 64), drawn from a hash of the node; a node at the limit is a leaf.
 * The hash is SplitMix64 (UTS uses SHA-1): child i of a node with state s
 * has state mix(s + i + 1), so the tree is the same however it is
 * searched. The subtree sizes vary widely. Above the cutoff depth each child
 * is a task that writes its subtree's count into an array of the parent,
 * which waits and adds; from the cutoff down the search goes on without
 * tasks. Checked against the counts of a serial search, known for a few
 * sizes and recomputed (not timed) for the others.
 */
#include "nested.h"

#include <math.h>
#include <stdio.h>

enum { MAX_CHILDREN = 64 };

static const uint64_t root_state = 19; /* UTS's default root seed */
static int depth_limit, cutoff;
static long result;

/* The children of the node with state s at depth d: geometric, mean 4. */
static int children(uint64_t s, int d) {
  if (d >= depth_limit)
    return 0;
  double u = 1 - nested_unit(s); /* in (0, 1] */
  double k = floor(log(u) / log(1 - 1.0 / (1 + 4.0)));
  return k < MAX_CHILDREN ? (int)k : MAX_CHILDREN;
}

static uint64_t child(uint64_t s, int i) {
  return bench_mix(s + (uint64_t)i + 1);
}

static long count_seq(uint64_t s, int d) {
  long count = 1;
  for (int i = 0, nc = children(s, d); i < nc; i++)
    count += count_seq(child(s, i), d + 1);
  return count;
}

/* The nodes of the subtree of the node with state s at depth d. */
static long count(uint64_t s, int d) {
  if (d >= cutoff)
    return count_seq(s, d);
  long counts[MAX_CHILDREN];
  int nc = children(s, d);
  for (int i = 0; i < nc; i++) {
#pragma omp task shared(counts)
#pragma dag task out(counts[i])
    counts[i] = count(child(s, i), d + 1);
  }
#pragma omp taskwait
#pragma dag taskwait
  long total = 1;
  for (int i = 0; i < nc; i++)
    total += counts[i];
  return total;
}

static int setup(long size, long c) {
  if (size > 40) {
    fprintf(stderr, "uts: depth %ld, expected at most 40\n", size);
    return 1;
  }
  depth_limit = (int)size;
  cutoff = (int)(c < size ? c : size);
  return 0;
}

static void run(void) { result = count(root_state, 0); }

static int check(char *what, size_t len) {
  /* Nodes by depth limit, from count_seq. */
  static const long known[][2] = {{4, 383},       {6, 6714},
                                  {8, 107901},    {10, 1716950},
                                  {12, 27495894}, {13, 109982233}};
  long expected = -1;
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
    if (known[i][0] == depth_limit)
      expected = known[i][1];
  if (expected < 0)
    expected = count_seq(root_state, 0);
  snprintf(what, len, "nodes=%ld", result);
  if (result != expected) {
    fprintf(stderr, "uts: %ld nodes, expected %ld\n", result, expected);
    return 1;
  }
  return 0;
}

const struct nested_kernel nested_kernel = {
    .name = "uts",
    .size = 12,
    .cutoff = 6,
    .size_means = "the depth limit of the tree (at most 40)",
    .cutoff_means = "nodes at depth below CUTOFF make a task per child",
    .setup = setup,
    .run = run,
    .check = check,
};

/* dag port: a taskgroup becomes a taskwait, or a task around the group. */
#include <stdio.h>

#define DEPTH 12

static int depth_of[2 << DEPTH]; /* node k has children 2k and 2k + 1 */

static void visit(int node, int depth) {
  depth_of[node] = depth;
  if (depth == DEPTH)
    return;
#pragma dag task
  visit(2 * node, depth + 1);
#pragma dag task
  visit(2 * node + 1, depth + 1);
} /* no taskwait: the children may still run when visit returns */

static long sum_depths(const int *d) {
  long total = 0;
  for (int k = 1; k < 2 << DEPTH; k++)
    total += d[k];
  return total;
}

int main(void) {
  /* 1. taskwait: it waits for the tasks and all their descendants. */
#pragma dag task
  visit(1, 0);
#pragma dag taskwait
  printf("sum of depths = %ld\n", sum_depths(depth_of));

  /* 2. A task around the group: it completes when every task inside has,
   * and what depends on it waits for that, while main goes on. */
  long total = 0;
#pragma dag task out(depth_of)
  visit(1, 0);
#pragma dag task in(depth_of) out(total)
  total = sum_depths(depth_of);
#pragma dag taskwait
  printf("sum of depths = %ld\n", total);
  return 0;
}

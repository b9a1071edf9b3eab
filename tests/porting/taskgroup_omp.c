/* OpenMP original: tasks that spawn tasks and do not wait for them; a
 * taskgroup waits for all of them. */
#include <stdio.h>

#define DEPTH 12

static int depth_of[2 << DEPTH]; /* node k has children 2k and 2k + 1 */

static void visit(int node, int depth) {
  depth_of[node] = depth;
  if (depth == DEPTH)
    return;
#pragma omp task
  visit(2 * node, depth + 1);
#pragma omp task
  visit(2 * node + 1, depth + 1);
} /* no taskwait: the children may still run when visit returns */

int main(void) {
  long total = 0;
#pragma omp parallel
#pragma omp single
  {
#pragma omp taskgroup
    {
#pragma omp task
      visit(1, 0);
    } /* waits for visit(1, 0) and every task it created, at any depth */
    for (int k = 1; k < 2 << DEPTH; k++)
      total += depth_of[k];
  }
  printf("sum of depths = %ld\n", total);
  return 0;
}

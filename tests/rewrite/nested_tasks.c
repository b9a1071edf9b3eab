/* A task inside a task's body: the inner body is outlined first, and the
 * outer body submits it with the outer body's own view of the variables
 * (sum through the outer task's pointer). */
#include <stdio.h>

int main(void) {
  int sum = 0;
  int a[4] = {1, 2, 3, 4};
#pragma dag task inout(sum) in(a)
  {
    for (int i = 0; i < 4; i++) {
#pragma dag task inout(sum) in(a[i])
      sum += a[i];
    }
  }
#pragma dag taskwait
  printf("%d\n", sum);
  return 0;
}

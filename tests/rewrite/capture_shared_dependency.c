/* A variable named by a dependency item is shared: the body writes the
 * submitter's total, through a pointer. */
#include <stdio.h>

int main(void) {
  int total = 0;
  for (int i = 1; i <= 4; i++) {
#pragma dag task inout(total)
    total += i;
  }
#pragma dag taskwait
  printf("%d\n", total);
  return 0;
}

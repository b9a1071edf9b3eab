/* A task on a compound statement: the block is outlined as it is; n and
 * the loop's bound are copied, the array is shared. */
#include <stdio.h>

int main(void) {
  int a[8];
  int n = 8;
#pragma dag task out(a)
  {
    for (int i = 0; i < n; i++)
      a[i] = i * i;
  }
#pragma dag taskwait
  printf("%d %d\n", a[3], a[7]);
  return 0;
}

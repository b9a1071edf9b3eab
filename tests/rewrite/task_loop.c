/* A task on a loop statement: the whole loop is one task. */
#include <stdio.h>

int main(void) {
  long sum = 0;
  int a[6] = {1, 2, 3, 4, 5, 6};
#pragma dag task in(a) inout(sum)
  for (int i = 0; i < 6; i++)
    sum += a[i];
#pragma dag taskwait
  printf("%ld\n", sum);
  return 0;
}

/* A task pragma on a definition: the function stays as it is, its calls
 * become tasks, the wrapper comes right after the definition. */
#include <stdio.h>

#pragma dag task inout(*x)
static void twice(int *x) {
  *x *= 2;
}

int main(void) {
  int v = 3;
  twice(&v);
  twice(&v);
#pragma dag taskwait
  printf("%d\n", v);
  return 0;
}

/* A task per term of a sum; prints 55 with or without the runtime. */
#include <stdio.h>

static void add(int *x, int v) { *x += v; }

int main(void) {
  int x = 0;
  for (int i = 1; i <= 10; i++) {
#pragma dag task inout(x)
    add(&x, i);
  }
#pragma dag taskwait
  printf("%d\n", x);
  return 0;
}

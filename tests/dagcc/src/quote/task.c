/* A rewritten file that includes a header next to it with quotes. */
#include "local.h"
#include <stdio.h>

static void add(int *x, int v) { *x += v; }

int main(void) {
  int x = 0;
  for (int i = 1; i <= LOCAL_TERMS; i++) {
#pragma dag task inout(x)
    add(&x, i);
  }
#pragma dag taskwait
  printf("%d\n", x);
  return 0;
}

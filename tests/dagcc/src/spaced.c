/* Copied to "space dir/my file.c" by the tests; MSG comes from -D. */
#include "my header.h"
#include <stdio.h>

static void add(int *x, int v) { *x += v; }

int main(void) {
  int x = 0;
  for (int i = 1; i <= 10; i++) {
#pragma dag task inout(x)
    add(&x, i);
  }
#pragma dag taskwait
  printf("%s %d %d\n", MSG, x, HEADER_VALUE);
  return 0;
}

/* Pragmas: a task per term of a sum. TERMS comes from the build (-D) and
 * terms.h from an include folder; local.h sits next to this file. Prints
 * 55 (with TERMS 10 and OFFSET 0). */
#include "local.h"
#include <stdio.h>
#include <terms.h>

static void add(int *x, int v) { *x += v; }

int main(void) {
  int x = OFFSET;
  for (int i = 1; i <= TERMS; i++) {
#pragma dag task inout(x)
    add(&x, i);
  }
#pragma dag taskwait
  printf("%d\n", x);
  return 0;
}

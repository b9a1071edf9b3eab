/* A task as the branch of an if without braces, with an else after it:
 * the generated block takes the place of the one statement, so the else
 * still belongs to the same if. */
#include <stdio.h>

static void put(int *x, int v) { *x = v; }

int main(void) {
  int x = 0, y = 0;
  for (int c = 0; c < 2; c++)
    if (c)
#pragma dag task out(x)
      put(&x, 1);
    else
#pragma dag task out(y)
      put(&y, 2);
#pragma dag taskwait
  printf("%d %d\n", x, y);
  return 0;
}

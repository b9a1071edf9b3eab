/* A call that comes before the task pragma's declaration is a task too
 * (every call of the function in the file): the wrapper must be declared
 * before that first call. */
#include <stdio.h>

void work(int *x);

static void first(int *x) {
  work(x);
}

#pragma dag task inout(*x)
void work(int *x) {
  *x += 1;
}

int main(void) {
  int v = 1;
  first(&v);
  work(&v);
#pragma dag taskwait
  printf("%d\n", v);
  return 0;
}

/* A task statement in a function that calls itself, with no prototype
 * before it: the outlined bodies come after the function, where its
 * declaration is visible, so the call does not declare it implicitly. */
#include <stdio.h>

long fib(int n) {
  if (n < 2)
    return n;
  long x, y;
#pragma dag task out(x)
  x = fib(n - 1);
#pragma dag task out(y)
  y = fib(n - 2);
#pragma dag taskwait
  return x + y;
}

int main(void) {
  printf("%ld\n", fib(20));
  return 0;
}

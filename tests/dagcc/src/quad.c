/* A header only gcc has (quadmath.h): the rewriter finds it after its own
 * and the system's headers. */
#include <quadmath.h>
#include <stdio.h>

static void twice(__float128 *x) { *x *= 2; }

int main(void) {
  __float128 x = 1;
#pragma dag task inout(x)
  twice(&x);
#pragma dag taskwait
  printf("%g\n", (double)x);
  return 0;
}

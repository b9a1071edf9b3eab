/* A task on a call statement: the call is outlined, x is captured by
 * value, the array is shared through its dependency. */
#include <stdio.h>

static void scale(double *v, int n, double f) {
  for (int i = 0; i < n; i++)
    v[i] *= f;
}

int main(void) {
  double v[4] = {1, 2, 3, 4};
  double f = 2.5;
#pragma dag task inout(v)
  scale(v, 4, f);
#pragma dag taskwait
  printf("%g %g %g %g\n", v[0], v[1], v[2], v[3]);
  return 0;
}

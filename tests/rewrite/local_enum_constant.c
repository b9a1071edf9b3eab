/* Enum constants of the function, as OpenMP code often has them: in the
 * body, in a section of a clause, and one defined through another. The
 * submission sees them where it is; the body declares the enum again. */
#include <stdio.h>

void f(double *a) {
  enum { R = 64, HALF = R / 2 };
  enum color { RED, GREEN } c = GREEN;
#pragma dag task inout(a[0:HALF])
  for (int i = 0; i < HALF; i++)
    a[i] *= c == GREEN ? R : 1;
#pragma dag taskwait
  printf("%g\n", a[0]);
}

/* Typedefs of the function: one for a variable the task captures, one the
 * body uses only, one through the other (tile needs R and real). The
 * outlined body declares them again in source order. */
#include <stdio.h>

void f(double *data) {
  enum { R = 4 };
  typedef double real;
  typedef real tile[R];
  typedef unsigned long count;
  tile *t = (tile *)data;
#pragma dag task inout(t[0:2])
  {
    count n = 0;
    for (int i = 0; i < 2; i++)
      for (int j = 0; j < R; j++, n++)
        t[i][j] += (real)n;
    printf("%lu\n", n);
  }
#pragma dag taskwait
}

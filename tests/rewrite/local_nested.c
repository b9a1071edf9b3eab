/* Nested tasks and the function's declarations: the inner task's clause
 * and body use the function's enum and typedef, so the outer body declares
 * them again too, where the inner task is submitted; a typedef of the
 * outer body itself is in scope there already, and the inner body declares
 * it again. */
#include <stdio.h>

void f(int *v) {
  enum { N = 8 };
  typedef int cell;
#pragma dag task inout(v[0:N])
  {
    typedef long wide;
    for (int i = 0; i < N; i += 2) {
#pragma dag task inout(v[i:2])
      {
        cell c = (cell)(wide)N;
        v[i] += c;
      }
    }
  }
#pragma dag taskwait
  printf("%d\n", v[0]);
}

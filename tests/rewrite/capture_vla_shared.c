/* A local VLA named by a dependency is shared: the body sees it through a
 * pointer to an array whose dimensions (3 x 5 here) are measured at
 * submission. */
#include <stdio.h>

int main(void) {
  int m = 3, n = 5;
  double M[m][n];
#pragma dag task out(M)
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++)
      M[i][j] = 10 * i + j + (double)sizeof M[0] / 1000;
#pragma dag taskwait
  printf("%g %g %zu\n", M[2][4], M[1][3], sizeof M);
  return 0;
}

/* A task function with a pointer-to-VLA parameter: the argument struct
 * holds it as void *, converted back when the body calls the function. */
#include <stdio.h>

#pragma dag task inout(A[i:1][:n])
static void scale_row(int n, double (*A)[n], int i) {
  for (int j = 0; j < n; j++)
    A[i][j] *= 10;
}

int main(void) {
  double A[3][2] = {{1, 2}, {3, 4}, {5, 6}};
  scale_row(2, A, 0);
  scale_row(2, A, 2);
#pragma dag taskwait
  printf("%g %g %g %g\n", A[0][1], A[1][0], A[2][0], A[2][1]);
  return 0;
}

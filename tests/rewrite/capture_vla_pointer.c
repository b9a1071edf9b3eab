/* A pointer to a VLA is copied with its row length, measured at
 * submission: the body declares double (*A)[d0] with the submitter's n. */
#include <stdio.h>

static void twice(int n, double (*A)[n], int i) {
#pragma dag task inout(A[i][:n])
  for (int j = 0; j < n; j++)
    A[i][j] *= 2;
}

int main(void) {
  double A[2][3] = {{1, 2, 3}, {4, 5, 6}};
  twice(3, A, 1);
#pragma dag taskwait
  printf("%g %g %g\n", A[1][0], A[1][1], A[1][2]);
  return 0;
}

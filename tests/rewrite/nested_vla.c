/* Nested tasks over a pointer to a VLA: the outer body gets its own typed
 * copy of A, and the inner tasks measure their rows from that copy. */
#include <stdio.h>

static void fill(int n, double (*A)[n]) {
#pragma dag task out(A[0:n][0:n])
  for (int i = 0; i < n; i++) {
#pragma dag task out(A[i][0:n])
    for (int j = 0; j < n; j++)
      A[i][j] = i * n + j;
  }
}

int main(void) {
  double A[3][3];
  fill(3, A);
#pragma dag taskwait
  printf("%g %g %g\n", A[0][1], A[1][2], A[2][2]);
  return 0;
}

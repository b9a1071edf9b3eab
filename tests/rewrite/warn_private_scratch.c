/* Variables the body uses as OpenMP's private ones, declared at the top of
 * the function as older C does: loop counters and scratch that the body
 * writes before it reads them, so they are the body's own, not copied.
 * The function writes them again before reading them, so nothing is lost:
 * no warning. */
void scale(float **A, int nb, int bs) {
  int i, j, k;
  float tmp;
  for (k = 0; k < nb; k++) {
#pragma dag task inout(A[k][0:bs * bs])
    for (i = 0; i < bs; i++)
      for (j = 0; j < bs; j++) {
        tmp = A[k][i * bs + j];
        A[k][i * bs + j] = tmp * 0.5f;
      }
  }
#pragma dag taskwait
  for (i = 0; i < nb; i++) {
    tmp = A[i][0];
    A[i][0] = tmp + 1;
  }
}

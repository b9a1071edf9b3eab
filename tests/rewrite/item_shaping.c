/* ([m][n])p sees the pointer p as an m x n array: the whole array is the
 * region, m * n elements at p. */
void init(double *p, int m, int n);

void f(double *p, int m, int n) {
#pragma dag task out(([m][n])p)
  init(p, m, n);
}

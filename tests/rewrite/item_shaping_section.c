/* A section of a shaped pointer: rows i..i+2 and columns 1..n-2 of p seen
 * as an m x n array; the row stride is n elements. */
void inner(double *p, int i, int n);

void f(double *p, int m, int n, int i) {
#pragma dag task inout(([m][n])p[i:3][1:n - 2])
  inner(p, i, n);
}

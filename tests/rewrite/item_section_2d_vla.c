/* A 2-D section of a pointer to a VLA: m rows of n elements from
 * A[i][j], one row (sizeof A[0], evaluated at run time) apart. */
void block(int ld, double (*A)[ld], int i, int j, int m, int n);

void f(int ld, double (*A)[ld], int i, int j, int m, int n) {
#pragma dag task inout(A[i:m][j:n])
  block(ld, A, i, j, m, n);
}

/* Plain indices before the first section stay in the base (A[i] is the
 * row); an index after a section is a dimension of one element. */
void work(int n, double (*A)[n]);

void f(int n, double (*A)[n], int i, int j, int m) {
#pragma dag task inout(A[i][j:m]) in(A[0:m][j])
  work(n, A);
}

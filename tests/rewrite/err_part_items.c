/* Items in a block modifier that are not a square 2-D block: each an
 * error at the item that says what the modifier needs. Lengths that are
 * not both constants, such as those of `([4][n + 1])v`, are the runtime's
 * to check. */
void use(double *a);

void f(int n, double *v, double (*A)[n], double C[2][4][4]) {
  double s = 0, T[4][6];
#pragma dag task in(lower(v[0:n]))
  use(v);
#pragma dag task inout(upper(s))
  use(&s);
#pragma dag task in(diagonal(C[0:2][0:4][0:4]))
  use(&C[0][0][0]);
#pragma dag task inout(unit_lower(A[0:4][0:2 * 3]))
  use(&A[0][0]);
#pragma dag task inout(lower(A[0:n][0:n]), upper(T))
  use(&T[0][0]);
#pragma dag task in(diagonal(([4][n + 1])v), lower(A[0:3][1]))
  use(v);
}

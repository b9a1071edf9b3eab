/* Block modifiers where they cannot go: nested, in a reduction, in
 * shared(), around part of an item, empty. A name close to a modifier's
 * is an ordinary expression, which C then rejects. */
void use(double *a);

void f(int n, double (*A)[n]) {
  double s = 0;
#pragma dag task inout(lower(upper(A[0:n][0:n])))
  use(&A[0][0]);
#pragma dag task reduction(+: diagonal(A[0:n][0:n]))
  use(&A[0][0]);
#pragma dag task shared(lower(s))
  use(&s);
#pragma dag task in(lower(A)[0:n][0:n], upper( ))
  use(&A[0][0]);
}

void g(int n, double (*A)[n]) {
#pragma dag task inout(lowr(A[0:n][0:n]))
  use(&A[0][0]);
}

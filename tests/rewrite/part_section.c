/* Block modifiers on sections of a matrix through a pointer to its rows:
 * each access is the section's, its mode DAG_SHAPED(mode, DAG_<PART>), and
 * the items' texts keep the modifier as written; `in` and `inout` items
 * with and without one in a task. */
void potrf(double *a, int b);
void trsm(const double *l, double *x, int b);
void scale(double *a, int b);

void tiles(int n, int b, double (*A)[n]) {
  for (int k = 0; k < n / b; k++) {
#pragma dag task inout(lower(A[k * b:b][k * b:b]))
    potrf(&A[k * b][k * b], n);
#pragma dag task in(unit_upper(A[k*b:b][k*b:b])) inout(A[0:b][0:b])
    trsm(&A[k * b][k * b], &A[0][0], n);
#pragma dag task out(upper( A[0:b][b:b] )), in(unit_lower(A[b:b][0:b]))
    trsm(&A[b][0], &A[0][b], n);
#pragma dag task commutative(diagonal(A[k * b:b][k * b:b]))
    scale(&A[k * b][k * b], n);
    /* The body writes what the item names: no -Wdag-uncovered-write. */
#pragma dag task inout(unit_lower(A[k * b:b][k * b:b]))
    for (int i = 1; i < b; i++)
      for (int j = 0; j < i; j++)
        A[k * b + i][k * b + j] *= 0.5;
  }
}

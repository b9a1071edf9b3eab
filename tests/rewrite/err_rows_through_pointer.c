/* A 2-D section over rows reached through pointers (double **): the rows
 * are not one strided block. A pointer to an array is fine. */
void work(double **rows, double (*m)[8]);

void f(double **rows, double (*m)[8], int n) {
#pragma dag task inout(rows[0:n][0:4]) inout(m[0:n][0:4])
  work(rows, m);
}

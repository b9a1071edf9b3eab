/* Block modifiers on task functions, as a tiled Cholesky has them: potrf
 * writes the lower triangle of a diagonal tile, trsm reads it. */
#pragma dag task inout(lower(([b][b])a))
void potrf(double *a, int b);
#pragma dag task in(lower(([b][b])l)) inout(([b][b])x)
void trsm(const double *l, double *x, int b);

void cholesky(int nt, int b, double *tile[nt][nt]) {
  for (int k = 0; k < nt; k++) {
    potrf(tile[k][k], b);
    for (int i = k + 1; i < nt; i++)
      trsm(tile[k][k], tile[i][k], b);
  }
#pragma dag taskwait
}

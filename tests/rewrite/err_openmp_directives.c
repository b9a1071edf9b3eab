/* OpenMP's directives after '#pragma dag', as `s/omp/dag/` leaves them:
 * errors, each with what a dag port does instead. */
void work(long *x);

void f(long *x, int n) {
#pragma dag parallel
#pragma dag single
  {
#pragma dag taskgroup
    {
      for (int i = 0; i < n; i++) {
#pragma dag task inout(x[i])
        work(&x[i]);
      }
    }
  }
#pragma dag parallel for
  for (int i = 0; i < n; i++)
    work(&x[i]);
#pragma dag critical
  x[0]++;
}

/* A file with OpenMP pragmas and no dag pragma is compiled as it is, and
 * without -fopenmp its OpenMP does nothing: the program runs serially. The
 * rewriter says so, once, at the first OpenMP pragma, even one in an #if
 * group that the build skips (the file was written for OpenMP, not for
 * dagcc). */
// clang-format off
void work(double *x, int n);

void f(double *x, int n) {
#ifdef _OPENMP
#pragma omp parallel
#pragma omp single
#endif
  for (int i = 0; i < n; i += 64) {
#pragma omp task depend(inout: x[i:64])
    work(&x[i], 64);
  }
}

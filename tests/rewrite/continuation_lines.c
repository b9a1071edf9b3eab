/* A directive continued over several lines: the generated code keeps the
 * lines after it where they were (#line), and the items are read across
 * the backslash-newlines. */
void axpy(double a, const double *x, double *y, int n);

void f(double a, const double *x, double *y, int n) {
#pragma dag task \
    in(x[0:n]) \
    inout(y[0:  \
            n])
  axpy(a, x, y, n);
  axpy(a, y, y, n);
}

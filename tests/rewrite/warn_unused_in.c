/* An 'in' item that the body never reads. */
void work(double *y);

void f(double *x, double *y) {
#pragma dag task in(x[0:4]) out(y[0:4])
  work(y);
#pragma dag taskwait
}

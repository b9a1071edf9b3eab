/* The bounds of a section must be integers. */
void work(double *a);

void f(double *a, double lo, int *len) {
#pragma dag task inout(a[lo:4]) in(a[0:len])
  work(a);
}

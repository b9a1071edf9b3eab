/* a[lo:len] on a pointer and on an array: the region starts at &a[lo]
 * and spans len elements. */
void copy(double *to, const double *from, int n);

void f(double *p, int lo, int n) {
  double a[100];
#pragma dag task out(a[lo + 1:n]) in(p[lo:n])
  copy(a + lo + 1, p + lo, n);
#pragma dag taskwait
}

/* work(...) belongs to a task function's declaration, not to a variant (the
 * variants do the same work) nor to a task statement. */
#pragma dag task inout(x[0:n]) work(n)
void scale(double *x, int n);

#pragma dag task implements(scale) device(cuda) work(2 * n)
void scale_cuda(double *x, int n);

void f(double *x, int n) {
#pragma dag task inout(x[0:n]) work(n)
  scale(x, n);
}

/* A task pragma on a prototype: every call of the function becomes a task
 * submitted by a wrapper; the clauses name the parameters. */
#pragma dag task in(a[:n]) out(b[:n])
void copy(const double *a, double *b, int n);

void f(const double *x, double *y, int n) {
  copy(x, y, n);
  copy(y, y + n, n);
}

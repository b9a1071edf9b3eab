/* Reduction items that the runtime could not combine or redirect: a type
 * it does not combine, a bitwise operator on a floating value, an item
 * that does not start at its variable's first element, an item in two
 * clauses (firstprivate() included), and a global named by a task
 * function. */
#include <complex.h>

struct point {
  double x, y;
};

double g;

#pragma dag task reduction(+: g)
void add(double *p);

#pragma dag task reduction(+: p[1:n])
void shifted(double *p, int n);

void f(double *a, double **rows, int n) {
  double s = 0;
  double _Complex z = 0;
  struct point pt = {0, 0};
  long m[4][4] = {{0}};
#pragma dag task reduction(+: rows[0:n], pt, z)
  s += a[0];
#pragma dag task reduction(|: s) reduction(^: a[0:n])
  s += a[0];
#pragma dag task reduction(+: a[1:n], m[0:4][2:2], pt.x, *(a + 1))
  s += a[0];
#pragma dag task reduction(+: s) in(s) reduction(max: a[0:n], a[:1])
  s += a[0];
#pragma dag task reduction(+: s) reduction(*: s)
  s += a[0];
#pragma dag task reduction(+: s) firstprivate(s)
  s += a[0];
  (void)m;
}

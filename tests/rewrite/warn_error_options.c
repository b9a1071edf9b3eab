/* The options of compiler warnings act on dag's (.flags: -Werror
 * -Wno-error=dag-unused-in): under -Werror the uncovered writes are errors
 * and the rewrite fails, the unused item stays a warning, and every task's
 * warnings are reported, not only the first task's. */
int g1, g2;

void f(int *p, int *q) {
#pragma dag task in(p[0])
  g1 = 1;
#pragma dag task in(q[0])
  g2 = q[0];
#pragma dag taskwait
}

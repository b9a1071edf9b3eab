/* The body writes through a pointer that only an 'in' item names: the
 * write is not a declared dependency. */
void f(double *p, const double *q) {
#pragma dag task in(p[0:2], q[0:2])
  {
    p[1] = q[0];
    *p += q[1];
  }
#pragma dag taskwait
}

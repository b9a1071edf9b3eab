/* A variant's parameters are compared as C types: a typedef of the same
 * type is the same parameter. */
typedef double real;

#pragma dag task inout(x[:n])
void scale(double *x, int n);

#pragma dag task device(hip) implements(scale)
void scale_hip(real *x, int n);

void f(double *x, int n) {
  scale(x, n);
}

/* implements(f): a variant of task function f for another device, with
 * the same parameters; the runtime picks f or a variant per task. Calls
 * of f go to the wrapper, whose info lists the variants. */
#pragma dag task inout(x[:n])
void scale(double *x, int n);

#pragma dag task device(cuda) implements(scale)
void scale_cuda(double *x, int n);

void f(double *x, int n) {
  scale(x, n);
}

/* work(expr): the work of one call of a task function, an expression of its
 * parameters (flops here), which a device model charges at its rate for
 * the task's label (docs/gpu.md); the variant does the same work. */
#pragma dag task in(([n][n])a [0:n] [0:n]) inout(([n][n])c [0:n] [0:n])       \
    work(2.0 * n * n * n) label("gemm")
void gemm(const double *a, double *c, int n);

#pragma dag task implements(gemm) device(cuda)
void gemm_cuda(const double *a, double *c, int n);

void f(const double *a, double *c, int n) { gemm(a, c, n); }

/* A task that may run on a device lists its pointer arguments, which a
 * device body gets as device addresses: a pointer, a shared variable (the
 * struct holds its address), each element of an array of pointers and a
 * pointer to a VLA. An int, a double and a struct (even one holding a
 * pointer) are not listed: the runtime leaves them as they are. */
struct pair {
  double *p;
  int n;
};

void launch(double *x, double **rows, double *sum, int n, double by,
            struct pair q, int m, double (*a)[m]);

void f(double *x, double *rows[2], int n, double by, struct pair q, int m,
       double (*a)[m]) {
  double sum = 0;
  double *local_rows[2] = {rows[0], rows[1]};
#pragma dag task device(cuda) inout(x[:n], sum, a[0][:m])
  launch(x, local_rows, &sum, n, by, q, m, a);
#pragma dag taskwait
}

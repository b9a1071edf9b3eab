/* The clauses of a task function are evaluated in its wrapper, with the
 * parameters as the call passed them. */
#pragma dag task inout(x[:n]) priority(n) if(n > 8) on(n % 2) label("blk")
void work(double *x, int n);

void f(double *x) {
  work(x, 16);
}

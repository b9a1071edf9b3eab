/* priority and if are evaluated at submission (the task info is then not
 * static); label names the task instead of the callee. */
void solve(double *x, int n);

void f(double *x, int n, int level) {
#pragma dag task inout(x[:n]) priority(level + 1) if(n > 64) label("solve-big")
  solve(x, n);
}

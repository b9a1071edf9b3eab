/* A type of the function whose size is one of its variables cannot go
 * along with the task body: declare it in the body. */
void f(int n, double *p) {
  typedef double row[n];
#pragma dag task inout(p[0:n])
  {
    row *r = (row *)p;
    (*r)[0] = 1;
  }
#pragma dag taskwait
}

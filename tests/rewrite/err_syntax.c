/* Syntax errors in clauses: each is reported where it is, all of them. */
void work(int *a, int n);

void f(int *a, int n) {
#pragma dag task in(a[0:n) out()
  work(a, n);
#pragma dag task inout(a[1:2:3]) priority(1, 2)
  work(a, n);
#pragma dag task in(a,, n) label(name)
  work(a, n);
}

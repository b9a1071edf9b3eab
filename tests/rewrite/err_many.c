/* Several errors in one file, from every pass (pragma syntax, C, pragma
 * semantics, task bodies): all are reported, in the order of the file. */
void work(int *a, int n);

void f(int *a, int n, const int c) {
#pragma dag task in(a[0:n) bad(c)
  work(a, n);
#pragma dag task out(c)
  work(a, c);
  n = nothing;
#pragma dag task inout(a[:n])
  {
    return;
  }
#pragma dag taskwait priority(1)
}

/* Malformed reduction clauses: each an error that says what to write. */
void f(double *a, int n) {
  double s = 0;
#pragma dag task reduction(-: s)
  s -= a[0];
#pragma dag task reduction(avg: s)
  s += a[0];
#pragma dag task reduction(s)
  s += a[0];
#pragma dag task reduction(: s)
  s += a[0];
#pragma dag task reduction(+: )
  s += a[0];
#pragma dag task reduction(+: s, )
  s += a[0];
#pragma dag task in(a[0:n]) in_reduction(+: s)
  s += a[0];
#pragma dag taskwait reduction(+: s)
}

/* The body writes a shared variable that no out/inout item covers: a
 * warning, and the rewrite still succeeds. */
int counter;

void f(int *a) {
#pragma dag task in(a[0])
  counter = a[0];
#pragma dag taskwait
}

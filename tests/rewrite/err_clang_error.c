/* A plain C error elsewhere in the file is reported too, as the compiler
 * would, and the rewrite fails. */
void work(int *p);

static int helper(int x) {
  return x + undefined_thing;
}

void f(int *p) {
#pragma dag task inout(*p)
  work(p);
}

/* A pragma with a clause that does not exist: the rewriter's error. */
static void add(int *x, int v) { *x += v; }

int main(void) {
  int x = 0;
#pragma dag task bogus(x)
  add(&x, 1);
  return x;
}

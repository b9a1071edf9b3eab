/* A pragma and a C error on line 8. */
static void add(int *x, int v) { *x += v; }

int main(void) {
  int x = 0;
#pragma dag task inout(x)
  add(&x, 1);
  return x + undeclared_name;
}

/* A scalar item is the whole object: &x, sizeof x. */
void set(int *p, int v);

void f(void) {
  int x = 0;
#pragma dag task out(x)
  set(&x, 5);
#pragma dag taskwait
}

/* A task body moves to file scope: a type declared inside the function is
 * not visible there. */
void f(void) {
  struct acc {
    int n;
  } s = {0};
  typedef int count;
#pragma dag task inout(s)
  {
    count c = 1;
    s.n += c;
  }
#pragma dag taskwait
}

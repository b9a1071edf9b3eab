/* A struct tag and a typedef declared inside the function: the outlined
 * body declares them again, as written, before the copies of its
 * variables, so the shared 's' and the body's own 'c' have their types. */
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

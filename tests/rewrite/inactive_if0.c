/* Pragmas in a skipped #if block are not part of the program: not even a
 * malformed one is reported, and they are left as they are. */
void work(int *x);

void f(int *x) {
#if 0
#pragma dag task inout(*x) bogus(
  work(x);
#endif
#ifdef NOT_DEFINED
#pragma dag nonsense
#else
#pragma dag task inout(*x)
  work(x);
#endif
}

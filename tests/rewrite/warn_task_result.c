/* A task function with a result: calls as statements are fine, the result
 * is lost, and the pragma says so. */
#pragma dag task inout(*p)
int bump(int *p);

void f(int *p) {
  bump(p);
}

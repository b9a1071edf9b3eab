/* An item that names an undeclared variable: libclang's error, at the
 * name in the pragma. */
void work(int *a);

void f(int *a) {
#pragma dag task inout(a[0:len]) in(*q)
  work(a);
}

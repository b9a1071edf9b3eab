/* taskwait noflush waits like taskwait: noflush only matters for data on
 * other nodes and devices. */
void work(int *a);

void f(int *a) {
#pragma dag task inout(a[0:4])
  work(a);
#pragma dag taskwait on(a[0:4]) noflush
#pragma dag taskwait noflush
}

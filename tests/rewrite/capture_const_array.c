/* A const local array that no dependency names is copied like any other
 * array: the copies are filled with memcpy through void *, since the
 * copies' elements are const. */
#include <stdio.h>

int main(void) {
  const int w[3] = {1, 2, 3};
  int r = 0;
#pragma dag task out(r)
  r = w[0] + w[1] + w[2];
#pragma dag taskwait
  printf("%d\n", r);
  return 0;
}

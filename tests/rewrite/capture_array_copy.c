/* A local array that no dependency names is firstprivate: the whole array
 * is copied at submission (memcpy), so the body sees {1, 2, 3} even though
 * the submitter overwrites w[0] right after. */
#include <stdio.h>

int main(void) {
  int w[3] = {1, 2, 3};
  int r = 0;
#pragma dag task out(r)
  r = w[0] + w[1] + w[2];
  w[0] = 100;
#pragma dag taskwait
  printf("%d\n", r);
  return 0;
}

/* Locals and parameters the body uses without naming them in a
 * dependency are copied at submission: the body sees k = 1 even though
 * the submitter changes k afterwards. */
#include <stdio.h>

int main(void) {
  int out[2] = {0, 0};
  int k = 1;
#pragma dag task out(out[0])
  out[0] = k * 10;
  k = 2;
#pragma dag task out(out[1])
  out[1] = k * 10;
#pragma dag taskwait
  printf("%d %d\n", out[0], out[1]);
  return 0;
}

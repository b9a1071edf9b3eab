/* A static local is shared like a global, never copied: the body, moved
 * out of the function, reaches it through its address. */
#include <stdio.h>

int main(void) {
  static int calls;
  for (int i = 0; i < 3; i++) {
#pragma dag task inout(calls)
    calls++;
  }
#pragma dag taskwait
  printf("%d\n", calls);
  return 0;
}

/* No pragma, a whole program. */
#include <stdio.h>

int twice(int x);

int main(void) {
  printf("%d\n", twice(21));
  return 0;
}

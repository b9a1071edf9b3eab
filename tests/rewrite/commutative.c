/* commutative(list): DAG_COMMUTATIVE accesses; such tasks on the same data
 * run one at a time, in any order. */
#include <stdio.h>

int main(void) {
  int acc = 0;
  for (int i = 1; i <= 3; i++) {
#pragma dag task commutative(acc)
    acc += i * i;
  }
#pragma dag taskwait
  printf("%d\n", acc);
  return 0;
}

/* dag_macro.c: a program that tells a dagcc build from a plain one by
 * _DAG, with a pragma that only a dagcc build sees. */
#include <stdio.h>

int main(void) {
  int x = 1;
#if defined(_DAG) && _DAG >= 202612
#pragma dag task inout(x)
  x += 1;
#pragma dag taskwait
  printf("dag %d %d\n", _DAG, x);
#else
  printf("plain %d\n", x);
#endif
  return 0;
}

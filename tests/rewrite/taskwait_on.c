/* taskwait on(list) waits only for the tasks that touch the listed data:
 * dag_taskwait_on with the same regions as dependency items. */
#include <stdio.h>

int main(void) {
  double a[10], b = 0;
#pragma dag task out(a[2:5])
  for (int i = 2; i < 7; i++)
    a[i] = i;
#pragma dag task out(b)
  b = 1;
#pragma dag taskwait on(a[2:5], b)
  printf("%g %g\n", a[6], b);
  return 0;
}

/* The body assigns a firstprivate variable: it writes its own copy, and
 * the value is lost when the task ends. */
#include <stdio.h>

int main(void) {
  int best = 0;
  int v[3] = {3, 9, 4};
#pragma dag task in(v)
  for (int i = 0; i < 3; i++)
    if (v[i] > best)
      best = v[i];
#pragma dag taskwait
  printf("%d\n", best);
  return 0;
}

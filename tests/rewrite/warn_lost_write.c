/* Writes of the body's own copy that the function reads afterwards, and
 * so loses: the next iteration reads 'last', the loop's condition reads
 * 'left', the code after the loop reads 'total'. */
#include <stdio.h>

void f(int *out, int n) {
  int last = 0, total = 0;
  for (int i = 0; i < n; i++) {
    out[i] = last;
#pragma dag task inout(out[i])
    {
      last = out[i] + i;
      total += last;
    }
  }
  int left = n;
  while (left > 0) {
#pragma dag task
    left -= 1;
  }
#pragma dag taskwait
  printf("%d\n", total);
}

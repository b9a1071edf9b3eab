/* dag port: what the items name is shared, other locals are copied, and a
 * private scratch variable moves into the task body. */
#include <stdio.h>

#define N 100

int main(void) {
  int a[N], b[N];
  int scale = 3;  /* copied into each task when it is submitted */
  long count = 0; /* named in commutative(): shared */
  for (int i = 0; i < N; i++)
    a[i] = i;
  for (int i = 0; i < N; i++) {
#pragma dag task in(a[i]) out(b[i]) commutative(count)
    {
      int tmp = a[i] * scale; /* private(tmp): declared in the body */
      b[i] = tmp + 1;
      count += b[i]; /* commutative: one task at a time */
    }
  }
#pragma dag taskwait
  printf("b[%d] = %d, count = %ld\n", N - 1, b[N - 1], count);
  return 0;
}

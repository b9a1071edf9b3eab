/* A variable named in shared() is the user's to protect (an _Atomic
 * counter, elements each task writes alone): writing it draws no
 * -Wdag-uncovered-write. shared(p) on a pointer shares the pointer, not
 * what it points to: a write through it still warns. */
#include <stdio.h>

static long count(int b) { return b % 3; }

int main(void) {
  _Atomic long hits = 0;
  long last[4] = {0};
  int flag = 0, *p = &flag;
  for (int b = 0; b < 4; b++) {
#pragma dag task shared(hits, last)
    {
      hits += count(b);
      last[b] = b;
    }
  }
#pragma dag task shared(p)
  *p = 1;
#pragma dag taskwait
  printf("%ld %ld %d\n", (long)hits, last[3], flag);
  return 0;
}

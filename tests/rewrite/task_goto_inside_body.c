/* A goto to a label inside the task body does not leave the body: it is
 * fine, like break in a loop of the body. */
#include <stdio.h>

int main(void) {
  int grid[3][3] = {{1, 2, 3}, {4, -5, 6}, {7, 8, 9}};
  int at = -1;
#pragma dag task in(grid) out(at)
  {
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++)
        if (grid[i][j] < 0) {
          at = 3 * i + j;
          goto found;
        }
  found:;
  }
#pragma dag taskwait
  printf("%d\n", at);
  return 0;
}

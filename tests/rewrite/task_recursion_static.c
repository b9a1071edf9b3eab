/* A static function that calls itself from a task body: its outlined body
 * follows it, so the call sees the static declaration rather than
 * declaring a function with external linkage. */
#include <stdio.h>

static void add_cell(int *cells, int lo, int hi) {
  if (hi - lo == 1) {
    cells[lo] += lo;
    return;
  }
  int mid = lo + (hi - lo) / 2;
#pragma dag task inout(cells[lo:mid - lo])
  add_cell(cells, lo, mid);
#pragma dag task inout(cells[mid:hi - mid])
  add_cell(cells, mid, hi);
#pragma dag taskwait
}

int main(void) {
  int cells[256] = {0};
  add_cell(cells, 0, 256);
  int sum = 0;
  for (int i = 0; i < 256; i++)
    sum += cells[i];
  printf("%d\n", sum);
  return 0;
}

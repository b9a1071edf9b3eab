/* reduction(op: list) on a local scalar: a DAG_REDUCE access whose type
 * the compiler picks from the item, and the pointer list by which the
 * runtime hands each task of the group its private copy (the struct holds
 * the local's address). */
#include <stdio.h>

int main(void) {
  double x[64], y[64], s = 0;
  for (int i = 0; i < 64; i++)
    x[i] = y[i] = i;
  for (int b = 0; b < 64; b += 16) {
#pragma dag task in(x[b:16], y[b:16]) reduction(+: s)
    for (int i = b; i < b + 16; i++)
      s += x[i] * y[i];
  }
#pragma dag taskwait
  printf("%g\n", s);
  return 0;
}

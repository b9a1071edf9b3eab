/* dag port: the same items; mutexinoutset becomes commutative. */
#include <stdio.h>

#define NB 8
#define BS 1000

static long x[NB * BS], part[NB];

static void fill(long *v, int n, long first) {
  for (int i = 0; i < n; i++)
    v[i] = first + i;
}

static void twice(long *v, int n) {
  for (int i = 0; i < n; i++)
    v[i] *= 2;
}

static long sum(const long *v, int n) {
  long s = 0;
  for (int i = 0; i < n; i++)
    s += v[i];
  return s;
}

int main(void) {
  long total = 0;
  for (int b = 0; b < NB; b++) {
#pragma dag task out(x[b * BS : BS])
    fill(&x[b * BS], BS, (long)b * BS);
#pragma dag task inout(x[b * BS : BS])
    twice(&x[b * BS], BS);
#pragma dag task in(x[b * BS : BS]) out(part[b])
    part[b] = sum(&x[b * BS], BS);
#pragma dag task in(part[b]) commutative(total)
    total += part[b];
  }
#pragma dag taskwait
  printf("total = %ld\n", total);
  return 0;
}

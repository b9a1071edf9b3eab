/* dag port: a task per chunk, each writing a partial result, and a task
 * that adds them. */
#include <stdio.h>

#define N 1000000
#define CHUNK 10000
#define NC (N / CHUNK)

static double a[N], b[N];

static double dot(const double *x, const double *y, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += x[i] * y[i];
  return s;
}

int main(void) {
  for (int i = 0; i < N; i++) {
    a[i] = i % 10;
    b[i] = 2;
  }
  double s, part[NC];
  for (int c = 0; c < NC; c++) {
    int lo = c * CHUNK;
#pragma dag task in(a[lo : CHUNK], b[lo : CHUNK]) out(part[c])
    part[c] = dot(&a[lo], &b[lo], CHUNK);
  }
#pragma dag task in(part) out(s)
  {
    s = 0;
    for (int c = 0; c < NC; c++)
      s += part[c];
  }
#pragma dag taskwait
  printf("a.b = %.0f\n", s);
  return 0;
}

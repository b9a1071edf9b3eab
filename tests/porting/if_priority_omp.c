/* OpenMP original: small tasks run undeferred (if), long ones first
 * (priority). */
// clang-format off
#include <stdio.h>

#define NB 16
#define MAXLEN 4096
#define SMALL 256

static double x[NB][MAXLEN];

static void work(double *v, int n) {
  for (int i = 0; i < n; i++)
    v[i] = 0.5 * i;
}

int main(void) {
  int len[NB];
  for (int b = 0; b < NB; b++)
    len[b] = (b * 997) % MAXLEN + 1;
#pragma omp parallel
#pragma omp single
  {
    for (int b = 0; b < NB; b++) {
#pragma omp task depend(out: x[b]) if(len[b] > SMALL) priority(len[b] / SMALL)
      work(x[b], len[b]);
    }
#pragma omp taskwait
  }
  double s = 0;
  for (int b = 0; b < NB; b++)
    for (int i = 0; i < len[b]; i++)
      s += x[b][i];
  printf("sum = %.1f\n", s);
  return 0;
}

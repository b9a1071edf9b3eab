/* Under -fopenmp libclang parses the OpenMP pragmas, and hides from dagcc
 * the statements of an OpenMP construct: a dag pragma inside one, or on
 * one, cannot be rewritten. An error, with a note at the OpenMP construct
 * that says what to do. */
#include <stdio.h>

static long work(int i) { return (long)i * i; }

int main(void) {
  long r[4], s[4], sum = 0;
#pragma omp parallel
#pragma omp single
  {
    for (int i = 0; i < 4; i++) {
#pragma omp task depend(out: r[i])
#pragma dag task out(r[i])
      r[i] = work(i);
    }
#pragma omp taskwait
#pragma dag taskwait
  }
  for (int i = 0; i < 4; i++) {
#pragma dag task out(s[i])
#pragma omp task depend(out: s[i])
    s[i] = work(i);
  }
#pragma dag taskwait
  for (int i = 0; i < 4; i++)
    sum += r[i] + s[i];
  printf("%ld\n", sum);
  return 0;
}

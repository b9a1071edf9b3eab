/* The guards of a port that keeps its OpenMP pragmas: '#if
 * defined(_OPENMP)' before OpenMP's, '#elif defined(_DAG)' before dag's,
 * then the statement. Without -fopenmp dagcc takes the dag branch; the
 * '#endif' between the pragma and its statement stays in place. */
#include <stdio.h>

static long work(int i) { return (long)i * i; }

int main(void) {
  long r[8], sum = 0;
#if defined(_OPENMP)
#pragma omp parallel
#pragma omp single
#endif
  {
    for (int i = 0; i < 8; i++) {
#if defined(_OPENMP)
#pragma omp task depend(out: r[i]) depend(inout: sum)
#elif defined(_DAG)
#pragma dag task out(r[i]) inout(sum)
#endif
      sum += r[i] = work(i);
    }
#if defined(_OPENMP)
#pragma omp taskwait
#elif defined(_DAG)
#pragma dag taskwait
#endif
  }
  printf("sum = %ld, r[7] = %ld\n", sum, r[7]);
  return 0;
}

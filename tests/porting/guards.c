/* One file, three builds: gcc -fopenmp runs the OpenMP tasks, dagcc the
 * dag tasks, plain cc neither. Each compiler ignores the other's pragmas. */
#include <stdio.h>
#if defined(_DAG)
#include <dag.h>
#elif defined(_OPENMP)
#include <omp.h>
#endif

#define N 16

static long work(int i) { return (long)i * i; }

static void say_how(void) {
#if defined(_DAG)
  fprintf(stderr, "dag tasks (_DAG = %ld), %d workers\n", (long)_DAG,
          dag_num_workers());
#elif defined(_OPENMP)
  fprintf(stderr, "OpenMP tasks (_OPENMP = %ld), %d threads\n", (long)_OPENMP,
          omp_get_max_threads());
#else
  fprintf(stderr, "no tasks\n");
#endif
}

int main(void) {
  long r[N], sum = 0;
  say_how();
#pragma omp parallel
#pragma omp single
  {
    for (int i = 0; i < N; i++) {
#pragma omp task depend(out: r[i])
#pragma dag task out(r[i])
      r[i] = work(i);
    }
    for (int i = 0; i < N; i++) {
#pragma omp task depend(in: r[i]) depend(inout: sum)
#pragma dag task in(r[i]) inout(sum)
      sum += r[i];
    }
#pragma omp taskwait
#pragma dag taskwait
  }
  printf("sum = %ld\n", sum);
  return 0;
}

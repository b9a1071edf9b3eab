/* -Wno-dag-openmp silences the warning about OpenMP's pragmas (dagcc
 * passes it on for -Wno-unknown-pragmas too). */
void work(int *x);

void f(int *x) {
#pragma omp task
#pragma dag task out(*x)
  work(x);
#pragma omp taskwait
#pragma dag taskwait
}

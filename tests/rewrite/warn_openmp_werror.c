/* Under -Werror the warning about OpenMP's pragmas is an error, and the
 * file is not rewritten. */
void work(int *x);

void f(int *x) {
#pragma omp task
#pragma dag task out(*x)
  work(x);
#pragma omp taskwait
#pragma dag taskwait
}

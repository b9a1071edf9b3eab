/* The flags decide the conditions around OpenMP's pragmas too: _DAG is
 * defined, which drops the first, and -DUSE_OMP=1 keeps the second. */
void work(int *x);

void f(int *x) {
#if !defined(_DAG)
#pragma omp taskwait
#endif
#if USE_OMP > 0
#pragma omp task
#endif
#pragma dag task out(*x)
  work(x);
}

/* A file that names _DAG is written for dagcc: its OpenMP branch is on
 * purpose, and it gets no warning (as bench/nested/nested.c). */
int threads(void) {
  int n = 1;
#if defined(_DAG)
  n = 0;
#elif defined(_OPENMP)
#pragma omp parallel
#pragma omp single
  n = omp_get_num_threads();
#endif
  return n;
}

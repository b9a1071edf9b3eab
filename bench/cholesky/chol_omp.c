/* chol_omp.c — the tiled Cholesky of samples/cholesky with OpenMP tasks.
 *
 * Same kernels, loop nest, priorities and driver (samples/cholesky/tiles.c);
 * the tasks are chol_omp.h's, as the linalg group's OpenMP peer submits
 * them. Built twice: with gcc (runtime "gomp", libgomp) and with clang
 * (runtime "libomp", LLVM's). OMP_NUM_THREADS sets the threads.
 */
#include "chol_omp.h"

#include <omp.h>

#define CHOL_STR_(x) #x
#define CHOL_STR(x) CHOL_STR_(x)
#ifdef __clang__
#define CHOL_OMP_NAME "libomp"
#define CHOL_OMP_CC                                                            \
  "clang " CHOL_STR(__clang_major__) "." CHOL_STR(__clang_minor__)
#else
#define CHOL_OMP_NAME "gomp"
#define CHOL_OMP_CC "gcc " CHOL_STR(__GNUC__) "." CHOL_STR(__GNUC_MINOR__)
#endif

/* Starts the thread team outside the timed part. */
static int omp_start(void) {
  int threads = 0;
#pragma omp parallel
#pragma omp single
  threads = omp_get_num_threads();
  return threads;
}

static int omp_factor(double *a, int n, int bs) {
  chol_omp_factor(a, n, bs);
  return 0;
}

int main(int argc, char **argv) {
  static const struct chol_runtime rt = {.name = CHOL_OMP_NAME,
                                         .config = CHOL_OMP_CC,
                                         .start = omp_start,
                                         .factor = omp_factor};
  return chol_main(argc, argv, &rt);
}

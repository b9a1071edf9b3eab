/* The OpenMP of a file may be in the functions of a header it includes
 * with quotes: the warning points there. */
#include "warn_openmp_no_dag_header.h"

void twice(double *x, int n) { scale(x, n); }

/* A header that cannot be found is reported like the compiler does. */
#include "no_such_header.h"

void work(int *x);

void f(int *x) {
#pragma dag task inout(*x)
  work(x);
}

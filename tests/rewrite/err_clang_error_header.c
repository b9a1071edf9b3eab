/* A C error in a quoted header is reported where it is, in the header. */
#include "err_clang_error_header.h"

void work(int *x);

void f(int *x) {
#pragma dag task inout(*x)
  work(x);
}

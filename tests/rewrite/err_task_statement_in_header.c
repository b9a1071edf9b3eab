/* Task statements live in the .c files that dagcc rewrites: one in a
 * header is an error, never silently a plain call. (Task functions may be
 * declared in headers.) */
#include "err_task_statement_in_header.h"

void f(int *x) {
  helper(x);
}

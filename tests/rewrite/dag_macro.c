/* _DAG is defined in the parse, as in the compile dagcc runs, and dag.h is
 * included as the rewrite's first line includes it: a pragma under
 * `#if _DAG` or `#ifdef DAG_H` is rewritten, and the other branches stay
 * as they are, for the plain build. */
#include <stdio.h>

void f(int *x) {
#if defined(_DAG) && _DAG >= 202612
#pragma dag task inout(*x)
  *x += 1;
#else
  *x += 2;
#endif
#ifdef DAG_H
#pragma dag task inout(*x)
  *x *= 3;
#pragma dag taskwait
#endif
  printf("%d\n", *x);
}

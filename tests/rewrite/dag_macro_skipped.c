/* Every directive in a branch that _DAG leaves out: nothing to rewrite in
 * the file, which comes out as it is after dag.h. */
void f(int *x) {
#ifndef _DAG
#pragma dag task inout(*x)
  *x += 1;
#endif
}

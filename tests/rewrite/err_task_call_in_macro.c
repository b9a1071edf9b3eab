/* A call of a task function written inside a macro's definition cannot be
 * redirected to the task wrapper: an error, never a dropped call. */
#pragma dag task inout(*x)
void work(int *x);

#define DO_WORK(p) work(p)
#define CALLEE work

void f(int *x) {
  DO_WORK(x);
  CALLEE(x);
}

/* use_tasks.c: a pragma under a macro that only the command line
 * defines. */
void f(int *x) {
#ifdef USE_TASKS
#pragma dag task inout(*x)
  *x += 1;
#else
  *x += 1;
#endif
}

/* A local VLA that the body uses but no dependency or shared() names: it
 * cannot be copied into the task's arguments. */
void work(int n, double *v);

void f(int n) {
  double v[n];
#pragma dag task
  work(n, v);
#pragma dag taskwait
}

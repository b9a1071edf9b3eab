/* A task pragma before a declaration: a declaration cannot be a task. */
int compute(void);

int f(void) {
#pragma dag task
  int x = compute();
  return x;
}

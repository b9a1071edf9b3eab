/* The value of a task function is used: the task runs later, so it has
 * no value to give; a call as a statement of its own (or cast to void) is
 * fine. */
#pragma dag task
int next(int *state);

int f(int *s) {
  (void)next(s);
  int v = next(s);
  if (next(s) > 0)
    v++;
  return v + next(s);
}

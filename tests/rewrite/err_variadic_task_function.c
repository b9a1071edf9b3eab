/* A variadic function cannot be a task function: its arguments cannot be
 * copied into the task. */
#pragma dag task inout(*log)
void say(int *log, const char *fmt, ...);

void f(int *log) {
  say(log, "%d", 1);
}

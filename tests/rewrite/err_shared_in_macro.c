/* A shared variable named inside a macro's definition cannot be redirected
 * to the task's pointer: an error, never a silent change. */
#define BUMP total++
#define RESET() (total = 0)

void f(void) {
  int total = 0;
#pragma dag task inout(total)
  BUMP;
#pragma dag task inout(total)
  RESET();
#pragma dag taskwait
}

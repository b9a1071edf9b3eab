/* A task pragma with nothing after it in the block, and one before a
 * closing brace of an inner block. */
void work(void);

void f(int c) {
  if (c) {
    work();
#pragma dag task
  }
#pragma dag task
}

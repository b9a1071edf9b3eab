/* taskwait is not a statement: as the only statement of an if or a loop it
 * would take that place from the statement after it, which cc runs under
 * the if. */
void work(void);

void f(int c) {
  if (c)
#pragma dag taskwait
    work();
  while (c--)
#pragma dag taskwait on(c)
    work();
}

/* taskwait waits for every task submitted before it: dag_taskwait(). */
void work(void);

void f(void) {
#pragma dag task
  work();
#pragma dag taskwait
}

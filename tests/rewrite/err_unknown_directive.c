/* An unknown directive after 'dag' is an error, with the expected ones. */
void work(void);

void f(void) {
#pragma dag tasks
  work();
}

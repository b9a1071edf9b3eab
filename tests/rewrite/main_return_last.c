/* main's last statement is a return: no wait after it. main itself has no
 * task, but calls a function that submits some (they write main's x):
 * main of any file with tasks waits for them before it returns. */
void work(int *x);

static void start(int *x) {
#pragma dag task out(*x)
  work(x);
}

int main(void) {
  int x = 0;
  start(&x);
  return x;
}

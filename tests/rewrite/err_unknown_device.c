/* device() accepts cpu, cuda and hip only. */
void work(void);

void f(void) {
#pragma dag task device(gpu)
  work();
}

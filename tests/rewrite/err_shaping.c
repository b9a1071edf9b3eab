/* Array shaping needs a pointer to complete objects. */
void work(void *p);

void f(void *p, int x) {
#pragma dag task in(([2][2])x) out(([2][2])p)
  work(p);
}

/* a[i] is one element, on a pointer and on an array of structs. */
struct cell {
  int a, b;
};
void step(struct cell *c, const int *k);

void f(const int *k, int i) {
  struct cell cells[4] = {{0, 0}};
#pragma dag task inout(cells[i]) in(k[i + 1])
  step(&cells[i], &k[i + 1]);
#pragma dag taskwait
}

/* firstprivate(x) copies x although a dependency item names it: the body
 * works on its own copy, the region is still the submitter's x. */
void use(int v);

void f(void) {
  int x = 3;
#pragma dag task in(x) firstprivate(x)
  use(x);
#pragma dag taskwait
}

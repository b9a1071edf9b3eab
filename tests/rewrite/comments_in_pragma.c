/* Comments inside a directive are white space, also between the parts of
 * an item and at the end of the line. */
void step(int *a, int i);

void f(int *a, int i) {
#pragma dag task /* reads and writes */ inout(a[i /* row */ : 2]) // pair
  step(a, i);
#pragma dag task in(/* one */ a[i]) /* a comment
   over two lines */ out(a[i + 1])
  step(a, i + 1);
}

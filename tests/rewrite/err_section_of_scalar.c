/* A section of something that is neither an array nor a pointer. */
void work(int x);

void f(int x, double d) {
#pragma dag task in(x[0:4]) in(d[1])
  work(x);
}

/* a[:len] starts at element 0. */
void fill(float *v, int n);

void f(float *v, int n) {
#pragma dag task out(v[:n])
  fill(v, n);
}

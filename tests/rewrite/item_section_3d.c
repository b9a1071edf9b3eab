/* A 3-D section: the region has two (count, stride) pairs, the outer
 * stride one plane, the inner one row. */
void cube(int n, float (*c)[n][n]);

void f(int n, float (*c)[n][n], int k) {
#pragma dag task in(c[k:2][1:n - 2][0:n])
  cube(n, c);
}

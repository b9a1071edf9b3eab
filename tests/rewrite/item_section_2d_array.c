/* A 2-D section of a fixed-size array: 4 rows of 2 doubles from a[2][3],
 * 64 bytes apart. */
void block(double a[8][8]);

double a[8][8];

void f(void) {
#pragma dag task out(a[2:4][3:2])
  block(a);
}

/* Four dimensions, the most a region has: three (count, stride) pairs. */
void work(float (*t)[4][4][4]);

float t[4][4][4][4];

void f(void) {
#pragma dag task in(t[0:2][1:2][2:2][0:4])
  work(t);
}

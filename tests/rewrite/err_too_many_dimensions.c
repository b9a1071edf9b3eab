/* A section with more than four dimensions, and a shaping with more than
 * four. */
void work(char *p);

void f(char (*q)[2][2][2][2], char *p) {
#pragma dag task in(q[0:1][0:2][0:2][0:2][0:2]) out(([2][2][2][2][2])p)
  work(p);
}

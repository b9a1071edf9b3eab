/* Members through a pointer and of a local struct: each is that member's
 * object alone. */
struct point {
  double x, y;
};
void move(double *to, const double *from);

void f(struct point *p) {
  struct point s = {1, 2};
#pragma dag task out(p->x) in(s.y)
  move(&p->x, &s.y);
#pragma dag taskwait
}

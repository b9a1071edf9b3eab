/* `*p` is the object p points to: the pointer is copied, the object's
 * address and size are the region. */
void add(double *p, double v);

void f(double *p) {
#pragma dag task inout(*p)
  add(p, 1.0);
}

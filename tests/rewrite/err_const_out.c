/* out or inout on a const object, through a pointer to const and on a
 * const array. */
void work(const double *p);

static const double table[4] = {1, 2, 3, 4};

void f(const double *p, int n) {
#pragma dag task out(p[:n]) inout(table) in(*p)
  work(p);
}

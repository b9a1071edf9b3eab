/* A shared variable written as a macro's argument is where the user wrote
 * it, so it is redirected like any other reference. */
#define MAX(a, b) ((a) > (b) ? (a) : (b))

void f(const int *v) {
  int best = 0;
#pragma dag task inout(best) in(v[0:2])
  best = MAX(best, MAX(v[0], v[1]));
#pragma dag taskwait
}

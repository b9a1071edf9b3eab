/* Two reductions with different operators, min and &&, on one task, and
 * a task function whose reduction goes through its pointer parameters. */
#include <stdbool.h>

#pragma dag task in(v[0:n]) reduction(min: *lo) reduction(||: *any)
void scan(const double *v, int n, double *lo, bool *any);

void check(const double *v, int n, double *lo, bool *any) {
  double least = 1e300;
  bool all = true;
  for (int b = 0; b < n; b += 100) {
#pragma dag task in(v[b:100]) reduction(min: least) reduction(&&: all)
    for (int i = b; i < b + 100; i++) {
      least = v[i] < least ? v[i] : least;
      all = all && v[i] > 0;
    }
    scan(v + b, 100, lo, any);
  }
#pragma dag taskwait
  *lo = *lo < least ? *lo : least;
  *any = *any && all;
}

/* A global that a reduction names travels by address, as a shared local
 * does, and the body's references to it go through that pointer: the
 * runtime redirects the pointer to the task's private copy. A global that
 * no reduction names is still used in place, and so is a global pointer's
 * target, reached through the pointer's value. */
long total;
extern const long bias;
int *counts;

void count(const int *v, int n) {
#pragma dag task in(v[0:n]) reduction(+: total) reduction(+: counts[0:4])
  {
    for (int i = 0; i < n; i++) {
      total += v[i];
      counts[v[i] & 3]++;
    }
    total += bias;
  }
#pragma dag taskwait
}

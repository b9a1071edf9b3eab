/* OpenMP's clauses on a dag pragma, as `s/omp/dag/` leaves them: errors,
 * each with what dag writes instead. */
void work(long *x, int n);

long f(int n) {
  long x[4], total = 0, tmp;
#pragma dag task depend(out: x[0:2]) untied mergeable
  work(x, 2);
#pragma dag task depend(in: x[0:2]) depend(mutexinoutset: total) final(n < 8)
  total += x[0];
#pragma dag task private(tmp) firstprivate(n) default(shared) depend(iterator(j = 0:2), in: x[j])
  {
    tmp = n;
    work(&tmp, 1);
  }
#pragma dag taskwait depend(inout: total)
  return total;
}

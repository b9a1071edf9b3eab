/* A histogram: a local array reduced whole and as a section from 0, and a
 * section of what a pointer points to; each element is a scalar of the
 * group's private copy, and DAG_REDUCE_TYPE_OF names the innermost one,
 * also for an array of arrays. */
enum { NB = 8 };

void histogram(const unsigned char *v, int n, unsigned *out, int m) {
  unsigned hist[NB] = {0};
  unsigned grid[2][NB] = {{0}};
#pragma dag task in(v[0:n]) reduction(+: hist)
  for (int i = 0; i < n; i++)
    hist[v[i] % NB]++;
#pragma dag task in(v[0:n]) reduction(+: hist[0:m])
  for (int i = 0; i < n; i++)
    hist[v[i] % m]++;
#pragma dag task in(v[0:n]) reduction(max: grid) reduction(+: out[0:m])
  for (int i = 0; i < n; i++) {
    if (v[i] > grid[i & 1][v[i] % NB])
      grid[i & 1][v[i] % NB] = v[i];
    out[v[i] % m] += 1;
  }
#pragma dag taskwait
  for (int k = 0; k < m; k++)
    out[k] += hist[k % NB] + grid[1][k % NB];
}

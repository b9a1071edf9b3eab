/* Counters and scratch set in a comma expression, as OpenMP code with
 * private(i, len) has them: the body assigns them first, in
 * `for (i = 0, len = 0; ...)`, so they are its own (nothing copied), and
 * the code after the task assigns them first the same way, so nothing is
 * lost: no warning. */
int weigh(const int *row, int k);

void align(const int *rows, int n, int m, int *out) {
  int i, len, best;
  for (int s = 0; s < n; s++) {
#pragma dag task in(rows[s * m : m]) out(out[s])
    {
      for (i = 0, len = 0; i < m; i++)
        len += weigh(&rows[s * m], i);
      out[s] = len;
    }
  }
#pragma dag taskwait
  for (i = 0, len = 0; i < n; i++)
    len += out[i];
  for (best = 0, i = 0; i < n; i++)
    best = out[i] > best ? out[i] : best;
  out[0] = len + best;
}

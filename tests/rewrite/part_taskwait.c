/* A block modifier in taskwait on(): the wait covers those bytes only. */
void fill(double *a, int n);

void wait_lower(int n, double (*A)[n]) {
#pragma dag task out(A[0:n][0:n])
  fill(&A[0][0], n);
#pragma dag taskwait on(lower(A[0:n][0:n]), diagonal(([n][n])&A[0][0]))
}

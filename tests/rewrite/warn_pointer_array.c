/* Items over an array of pointers, as OpenMP ports of a sparse LU write
 * them (`depend(inout: BENCH[k:bs*bs])` matches by start address there):
 * the body uses the memory the pointers point to, which the items do not
 * name. A task that only moves the pointers gets no warning, nor one whose
 * item names the memory. */
void lu0(float *diag, int bs);

void sparse(float **BENCH, int nb, int bs) {
  for (int kk = 0; kk < nb; kk++) {
#pragma dag task inout(BENCH[kk * nb + kk:bs * bs])
    lu0(BENCH[kk * nb + kk], bs);
#pragma dag task in(BENCH[kk]) inout(BENCH[kk + 1])
    for (int i = 0; i < bs; i++)
      BENCH[kk + 1][i] += BENCH[kk][i];
#pragma dag task inout(BENCH[kk][0:bs * bs])
    BENCH[kk][0] = 1;
  }
#pragma dag task inout(BENCH[0:2])
  {
    float *t = BENCH[0];
    BENCH[0] = BENCH[1];
    BENCH[1] = t;
  }
#pragma dag taskwait
}

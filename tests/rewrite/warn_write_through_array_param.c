/* A parameter declared as an array is a pointer: the body writes through
 * it, as through 'N', and the write is not lost but undeclared. */
void g(float *M[], float **N, int k) {
#pragma dag task in(M[k], N[k])
  {
    M[k] = 0;
    N[k] = 0;
  }
#pragma dag taskwait
}

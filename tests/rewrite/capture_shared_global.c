/* shared() may name globals, as OpenMP programs often do: a body uses a
 * global in place whatever the clause says, so it changes nothing but the
 * warning about writing one (the user protects it, as for a shared local);
 * the local beside them is used by address. */
extern int nthreads;
static double scale;
void run(double *out, int n, double s, int t);

void f(double *out, int n) {
  int t = 4;
#pragma dag task out(out[:n]) shared(nthreads, scale, t)
  {
    run(out, n, scale, t + nthreads);
    nthreads++;
  }
#pragma dag taskwait
}

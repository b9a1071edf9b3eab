/* Block modifiers on a whole 2-D array, on a shaped pointer and on a
 * section through a pointer to arrays: a whole block goes as one span per
 * row, as the runtime takes a block. */
enum { NB = 4 };

void invert(double t[NB][NB]);
void solve(const double *l, double *x, int b);

void blocks(double *p, double (*q)[NB], int b) {
  double T[NB][NB] = {{0}};
#pragma dag task inout(lower(T))
  for (int i = 0; i < NB; i++)
    T[i][i] += 1;
#pragma dag task inout(upper(([b][b])p))
  p[0] = 1;
#pragma dag task out(lower(T))
  invert(T);
#pragma dag task in(unit_lower(([b][b])p)) inout(upper(([b][b])(p + b * b)))
  solve(p, p + b * b, b);
#pragma dag task in(diagonal(q[0:NB][0:NB]), upper(([NB][NB])p)) out(T)
  solve(&q[0][0], &T[0][0], NB);
}

/* A variable declared outside the task that the body surely writes before
 * it reads it is the body's own, as OpenMP's private: declared in the
 * outlined body, not copied (a copy of an uninitialised value made gcc
 * warn at the pragma). Only when certain: a variable the body may read
 * first, one a jump may reach unwritten, one a nested task names, or one
 * named in firstprivate() is copied. */
#include <stdio.h>

#define N 8

static int g[N];

void fill(void) {
  int k;
#pragma dag task out(g)
  for (k = 0; k < N; k++) /* only a private variable: nothing travels */
    g[k] = k;
}

int main(void) {
  int a[N], b[N], c[N], d[N];
  int tmp, sq, sign, first, seen, step, cnt, kept;
  for (int i = 0; i < N; i++)
    a[i] = i - 3;
  for (int i = 0; i < N; i++) {
#pragma dag task in(a[i]) out(b[i])
    {
      tmp = a[i] * 3; /* private */
      b[i] = tmp + 1;
    }
  }
#pragma dag task in(a) out(c)
  for (int i = 0; i < N; i++) {
    if (a[i] < 0) /* sign: written on both branches first; private */
      sign = -1;
    else
      sign = 1;
    sq = a[i] * a[i]; /* private: written in the loop before its read */
    c[i] = sign * sq;
  }
  first = 0;
#pragma dag task in(a) out(d)
  for (int i = 0; i < N; i++) {
    d[i] = first; /* read first: copied */
    first = a[i];
  }
  seen = 0;
#pragma dag task in(a) out(d[0])
  {
    int k = 0;
    do {
      if (a[k] < 0)
        continue; /* may skip the write: copied */
      seen = a[k];
    } while (++k < N && seen < 2);
    d[0] = seen;
  }
#pragma dag task in(a) out(d[1])
  {
    if (a[0] < 0)
      goto done; /* may skip the write: copied */
    step = a[0];
  done:
    d[1] = step;
  }
#pragma dag task in(a) out(d[2])
  {
    cnt = 0; /* the nested task copies it: copied */
#pragma dag task in(a) out(d[2])
    d[2] = cnt + a[2];
  }
#pragma dag task in(a) out(d[3]) firstprivate(kept)
  {
    kept = a[3]; /* firstprivate(): copied */
    d[3] = kept;
  }
#pragma dag taskwait
  printf("%d %d %d %d\n", b[N - 1], c[0], d[0], d[3]);
  return 0;
}

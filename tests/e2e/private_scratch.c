/* Scratch variables declared at the top of the function, as older C and
 * OpenMP code with private(...) have them: each task writes them before it
 * reads them, so they are the task's own (nothing copied, and gcc finds no
 * uninitialised copy in the generated code), the loop counter too. */
#include <stdio.h>

#define N 4096
#define BS 256

struct span {
  double lo, hi;
};

static double in[N], out[N];

int main(void) {
  int i, b;
  double left, right;
  struct span s;
  long acc;
  for (i = 0; i < N; i++)
    in[i] = (i * 37) % 101;
  for (b = 0; b < N; b += BS) {
#pragma dag task in(in) out(out[b : BS])
    for (i = b; i < b + BS; i++) {
      left = i > 0 ? in[i - 1] : 0;
      if (i + 1 < N)
        right = in[i + 1];
      else
        right = 0;
      s = (struct span){left < right ? left : right,
                        left < right ? right : left};
      out[i] = (s.lo + 2 * in[i] + s.hi) / 4;
    }
  }
#pragma dag taskwait
  acc = 0;
  for (i = 0; i < N; i++)
    acc += (long)(out[i] * 4);
  printf("%ld\n", acc);
  return 0;
}

/* Struct and union tags of the function: a variable of the struct type
 * copied into the task, a union the body declares itself, and a tag that
 * refers to another (pair holds two points). */
#include <stdio.h>

void f(void) {
  struct point {
    int x, y;
  };
  struct pair {
    struct point a, b;
  } p = {{1, 2}, {3, 4}};
  union bits {
    float f;
    unsigned u;
  };
  int out;
#pragma dag task out(out)
  {
    union bits b = {.f = 1.0f};
    out = p.a.x + p.b.y + (int)sizeof(struct point) + (int)(b.u >> 31);
  }
#pragma dag taskwait
  printf("%d\n", out);
}

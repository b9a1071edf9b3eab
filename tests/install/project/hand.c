/* The runtime API by hand: two tasks scale the halves of an array. Prints
 * the sum, 2000. */
#include <dag.h>
#include <stdio.h>

struct half {
  double *x;
  int n;
};

static void scale(void *p) {
  struct half *h = p;
  for (int i = 0; i < h->n; i++)
    h->x[i] *= 2;
}

int main(void) {
  static double x[1000];
  for (int i = 0; i < 1000; i++)
    x[i] = 1;
  struct dag_task_info info = {.fn = scale, .label = "scale"};
  for (int half = 0; half < 2; half++) {
    struct half h = {x + 500 * half, 500};
    struct dag_access acc =
        dag_access_of(DAG_INOUT, dag_region_1d(h.x, 500 * sizeof(double)));
    if (dag_submit(&info, &h, sizeof h, &acc, 1) != 0)
      return 1;
  }
  dag_taskwait();
  double sum = 0;
  for (int i = 0; i < 1000; i++)
    sum += x[i];
  printf("%g\n", sum);
  return 0;
}

/* break and continue that would leave the task body; those of a loop or
 * switch inside the body are fine. */
void work(int *a, int i);

void f(int *a, int n) {
  for (int i = 0; i < n; i++) {
#pragma dag task inout(a[i])
    {
      for (int k = 0; k < 3; k++)
        if (k == 1)
          break;
      if (a[i] < 0)
        continue;
      work(a, i);
      if (a[i] > 9)
        break;
    }
  }
#pragma dag taskwait
}

/* A switch in the body keeps break inside, but not continue: continue
 * belongs to the loop around the task. */
void work(int *a, int i);

void f(int *a, int n) {
  for (int i = 0; i < n; i++) {
#pragma dag task inout(a[i])
    switch (a[i]) {
    case 0:
      continue;
    default:
      work(a, i);
      break;
    }
  }
}

/* A task statement that ends with a compound literal, and a loop whose
 * body does: the '}' closes an expression, and the ';' after it belongs
 * to the task. */
struct pair {
  double lo, hi;
};

double f(int k);

void fill(struct pair *p, int n) {
  for (int k = 0; k < n; k++) {
#pragma dag task out(p[k])
    p[k] = (struct pair){f(k), f(k + 1)};
  }
#pragma dag task out(p[0:n])
  for (int k = 0; k < n; k++)
    p[k] = (struct pair){0.0, 1.0};
#pragma dag taskwait
}

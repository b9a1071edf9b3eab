/* A call of a task function inside an expression (a for loop's increment,
 * a comma expression) is not a statement of its own: an error even though
 * the function returns nothing. */
#pragma dag task inout(*x)
void step(int *x);
void other(void);

void f(int *x) {
  for (int i = 0; i < 3; step(x))
    i++;
  other(), step(x);
}

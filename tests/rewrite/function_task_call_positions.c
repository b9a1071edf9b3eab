/* Every place where a call is a statement of its own becomes a task: the
 * branches of if/else, loop bodies, case and label statements. */
#pragma dag task inout(*x)
void step(int *x);

void f(int *x, int c) {
  if (c)
    step(x);
  else
    step(x);
  while (c-- > 0)
    step(x);
  do
    step(x);
  while (0);
  switch (c) {
  case 1:
    step(x);
    break;
  default:
    step(x);
  }
again:
  step(x);
  if (++c < 9)
    goto again;
}

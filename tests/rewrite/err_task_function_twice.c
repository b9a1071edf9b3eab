/* A function gets its task pragma once: a second one, on its definition,
 * is an error that points back at the first. */
#pragma dag task inout(*x)
void work(int *x);

#pragma dag task inout(*x)
void work(int *x) {
  *x += 1;
}

void f(int *x) {
  work(x);
}

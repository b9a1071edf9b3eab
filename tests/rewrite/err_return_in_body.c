/* return and goto cannot leave a task body. */
void work(int *p);

void f(int *p) {
#pragma dag task inout(*p)
  {
    if (!p)
      return;
    work(p);
    goto done;
  }
done:;
}

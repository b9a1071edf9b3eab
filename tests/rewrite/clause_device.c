/* device(cuda): the body runs on a CUDA device, which the task info says;
 * the rest of the task is as on the CPU. */
void launch(float *x, int n);

void f(float *x, int n) {
#pragma dag task device(cuda) inout(x[:n])
  launch(x, n);
}

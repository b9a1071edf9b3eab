/* on(expr): the rank is evaluated at submission, so the task info is not
 * static, and its flag asks for that rank. */
void work(double *blk);

void f(double *blk, int owner, int nranks) {
#pragma dag task on((owner + 1) % nranks) inout(blk[:64])
  work(blk);
}

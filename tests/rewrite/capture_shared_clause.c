/* shared(cfg) makes the body use the submitter's struct by address, though
 * no dependency names it: nothing is copied. */
struct config {
  double table[64];
  int n;
};
void run(const struct config *c, double *out);

void f(double *out) {
  struct config cfg = {{0}, 64};
#pragma dag task out(out[:cfg.n]) shared(cfg)
  run(&cfg, out);
#pragma dag taskwait
}

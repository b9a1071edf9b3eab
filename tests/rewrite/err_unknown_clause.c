/* An unknown clause is an error that points at the clause; the known
 * clauses around it are still checked. */
void work(int *p);

void f(int *p) {
#pragma dag task in(*p) depend(out: *p) out(
  work(p);
}

/* A task on a statement, inside a function of a header: the header is not
 * rewritten, so the task would silently be a plain call. */
void work(int *x);

static inline void helper(int *x) {
#pragma dag task inout(*x)
  work(x);
}

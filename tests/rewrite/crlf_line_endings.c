/* CRLF line endings: directives, continuations and #line numbers work
 * as with LF; the carriage returns of the user's lines are kept. */
void work(int *x);

void f(int *x) {
#pragma dag task \
    inout(*x)
  work(x);
#pragma dag taskwait
}

/* Directives where no statement can be (in a struct, inside an expression
 * or an initializer): one error each, at the directive; the C around them
 * is fine and draws no error. */
void work(int a, int b);

struct pair {
  int a;
#pragma dag task
  int b;
};

void f(void) {
  work(1,
#pragma dag task
       2);
  int v[2] = {1,
#pragma dag taskwait
              2};
  work(v[0], v[1]);
}

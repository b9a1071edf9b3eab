/* Block-scope declarations of a variable or a function are not visible
 * where the task body moves (file scope): like local types, an error. */
void f(void) {
  extern int g;
  void helper(int);
#pragma dag task
  helper(g);
#pragma dag taskwait
}

/* Block-scope declarations of a variable and a function: the outlined body
 * declares them again, so it names the same global and the same
 * function. */
void f(void) {
  extern int g;
  void helper(int);
#pragma dag task
  helper(g);
#pragma dag taskwait
}

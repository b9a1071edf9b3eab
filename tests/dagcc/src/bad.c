/* No pragma, a C error on line 4. */
int main(void) {
  int x = 0;
  return x + undeclared_name;
}

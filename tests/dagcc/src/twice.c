/* No pragma: dagcc passes this file to the compiler untouched. */
int twice(int x) { return 2 * x; }

/* A file whose only dag pragma is in a skipped #if group has no task:
 * its main is left as it is, and so is the pragma. */
void work(int *x);

int main(void) {
  int x = 0;
#if 0
#pragma dag task out(x)
#endif
  work(&x);
  if (x)
    return 1;
  return 0;
}

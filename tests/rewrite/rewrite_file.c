/* rewrite_file: runs the rewriter on one file, as dagcc does before it
 * compiles: the rewritten source on stdout, diagnostics on stderr, exit
 * status 1 when the file has errors. Flags after the file go to libclang.
 * The golden tests (check.sh) run it. */
#include <stdio.h>
#include <string.h>

#include "translate.h"

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: rewrite_file FILE.c [clang flags...]\n");
    return 2;
  }
  struct translate_options opt = {(const char *const *)argv + 2, argc - 2,
                                  false};
  for (int i = 2; i < argc; i++)
    opt.werror |= strcmp(argv[i], "-Werror") == 0;
  switch (translate_file(argv[1], &opt, stdout)) {
  case TRANSLATE_UNCHANGED:
    fputs("(unchanged)\n", stdout);
    return 0;
  case TRANSLATE_REWRITTEN:
    return 0;
  case TRANSLATE_FAILED:
    break;
  }
  return 1;
}

/* parts.c — an output file of several ranks (DAG_TRACE, DAG_GRAPH): every
 * rank writes its part beside it, and rank 0 merges the parts into it.
 */
#include "comm/comm.h"
#include "obs/trace.h"

#include <stdlib.h>
#include <string.h>

void dag__part_path(char *buf, size_t size, const char *path, const char *ext,
                    int r) {
  size_t len = strlen(path), n = strlen(ext);
  bool has = len > n && !strcmp(path + len - n, ext);
  snprintf(buf, size, "%.*s.rank%d%s", (int)(has ? len - n : len), path, r,
           has ? ext : "");
}

void dag__merge_parts(const struct parts *p, const char *path) {
  FILE *out = fopen(path, "w");
  if (!out) {
    dag__user_error(NULL, DAG_EINVAL, "%s: cannot write '%s'", p->setting,
                    path);
    return;
  }
  fputs(p->header, out);
  bool whole = true;
  for (int r = 0; r < dag__nranks; r++) {
    char part[4096];
    dag__part_path(part, sizeof part, path, p->ext, r);
    FILE *in = fopen(part, "r");
    if (!in) {
      dag__log(DAG_LOG_WARN,
               "%s: rank %d's part is not here (no shared file system?): "
               "the parts stay as they are",
               p->setting, r);
      whole = false;
      continue;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, in)) > 0)
      p->copy(out, line, (size_t)len, p->arg);
    free(line);
    fclose(in);
  }
  if (p->finish)
    p->finish(out, p->arg);
  fputs(p->footer, out);
  fclose(out);
  for (int r = 0; whole && r < dag__nranks; r++) {
    char part[4096];
    dag__part_path(part, sizeof part, path, p->ext, r);
    remove(part);
  }
}

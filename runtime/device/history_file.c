/* history_file.c — the chooser's measured times kept across runs
 * (DAG_HISTORY=file), as StarPU keeps its calibrated performance models:
 * a run starts from what earlier runs measured instead of exploring every
 * variant again, and writes back what it knows at the end.
 *
 * A line per measured candidate: its size class of data, its position
 * among the task's variants (0: the task's own function), where it ran
 * ("cpu", a device's space, "emul:MODEL" on a timed emulated device), its
 * number of runs, its mean in ns, then the task's name (its label, or
 * file:line) to the end of the line. Functions are known by these, not by
 * their addresses, which change from run to run.
 */
#include "device/choose.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct history_record *records;
static size_t nrecords, records_cap;

long dag__history_file_load(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f)
    return -1; /* a first run: nothing measured yet */
  char line[512];
  while (fgets(line, sizeof line, f)) {
    struct history_record r = {0};
    int name_at = 0;
    if (sscanf(line, "%d %d %63s %u %lf %n", &r.size_class, &r.variant, r.place,
               &r.runs, &r.mean_ns, &name_at) != 5 ||
        !name_at)
      continue; /* not a record: skipped, as a partly written file's end */
    line[strcspn(line, "\n")] = 0;
    snprintf(r.name, sizeof r.name, "%s", line + name_at);
    records = dag__grow(records, &records_cap, nrecords + 1, sizeof *records,
                        "the chooser's history");
    records[nrecords++] = r;
  }
  fclose(f);
  return (long)nrecords;
}

const struct history_record *
dag__history_file_find(const struct history_record *key) {
  for (size_t i = 0; i < nrecords; i++) {
    const struct history_record *r = &records[i];
    if (r->size_class == key->size_class && r->variant == key->variant &&
        !strcmp(r->place, key->place) && !strcmp(r->name, key->name))
      return r;
  }
  return NULL;
}

int dag__history_file_save(const char *path, const struct history_record *rs,
                           size_t n) {
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.%d.tmp", path, (int)getpid());
  FILE *f = fopen(tmp, "w");
  if (!f)
    return dag__error_note(DAG_EINVAL, "DAG_HISTORY: cannot write %s", tmp);
  for (size_t i = 0; i < n; i++)
    fprintf(f, "%d %d %s %u %.0f %s\n", rs[i].size_class, rs[i].variant,
            rs[i].place, rs[i].runs, rs[i].mean_ns, rs[i].name);
  /* Records of tasks this run did not see are kept. */
  for (size_t i = 0; i < nrecords; i++) {
    bool seen = false;
    for (size_t k = 0; k < n && !seen; k++)
      seen = records[i].size_class == rs[k].size_class &&
             records[i].variant == rs[k].variant &&
             !strcmp(records[i].place, rs[k].place) &&
             !strcmp(records[i].name, rs[k].name);
    if (!seen)
      fprintf(f, "%d %d %s %u %.0f %s\n", records[i].size_class,
              records[i].variant, records[i].place, records[i].runs,
              records[i].mean_ns, records[i].name);
  }
  bool ok = !ferror(f);
  ok &= fclose(f) == 0;
  if (!ok || rename(tmp, path)) {
    remove(tmp);
    return dag__error_note(DAG_EINVAL, "DAG_HISTORY: cannot write %s", path);
  }
  return 0;
}

void dag__history_file_release(void) {
  free(records);
  records = NULL;
  nrecords = records_cap = 0;
}

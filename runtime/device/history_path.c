/* history_path.c — where measured times are kept when DAG_HISTORY does not
 * say: in the user's cache folder ($XDG_CACHE_HOME/dag, else
 * ~/.cache/dag), one file per machine and devices, as StarPU keeps its
 * calibrations in ~/.starpu/sampling:
 *
 *     <host name>-<devices>.history
 *
 * the devices being the model name of each one open, in order ("emul-h200"
 * for the timed emulated device, "NVIDIA_H200", joined by '+'), so that a
 * run on another machine, or with other devices, never starts from times
 * that are not its own. Characters other than letters, digits, '.', '-',
 * '_' and '+' become '_'.
 */
#include "device/choose.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The cache folder's dag/ into dir; false when neither variable says
 * where (an absolute path: the XDG specification ignores others). */
static bool cache_folder(char *dir, size_t len) {
  const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  if (xdg && xdg[0] == '/')
    return (size_t)snprintf(dir, len, "%s/dag", xdg) < len;
  if (home && home[0] == '/')
    return (size_t)snprintf(dir, len, "%s/.cache/dag", home) < len;
  return false;
}

/* mkdir -p dir, private to the user as the XDG specification asks. */
static bool make_folders(char *dir) {
  for (char *p = dir + 1;; p++) {
    if (*p && *p != '/')
      continue;
    char was = *p;
    *p = 0;
    bool made = !mkdir(dir, 0700) || errno == EEXIST;
    *p = was;
    if (!made)
      return false;
    if (!was)
      return true;
  }
}

/* Appends text to buf (at *at), its odd characters as '_'. */
static void append_name(char *buf, size_t len, size_t *at, const char *text) {
  for (const char *t = text; *t && *at + 1 < len; t++) {
    char ch = *t;
    bool plain = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                 (ch >= '0' && ch <= '9') || ch == '.' || ch == '-' ||
                 ch == '_' || ch == '+';
    buf[(*at)++] = plain ? ch : '_';
  }
  buf[*at] = 0;
}

/* The model name of device d: a timed space's model, a GPU's name, or its
 * kind. */
static void device_model(const struct device *d, char *buf, size_t len) {
  const char *model = dag__space_model(&d->space);
  if (model)
    snprintf(buf, len, "%s-%s", d->space.ops->name, model);
  else if (!dag__space_device_name(&d->space, buf, len))
    snprintf(buf, len, "%s", d->space.ops->name);
}

bool dag__history_default_path(char *buf, size_t len) {
  char dir[4096], host[256] = "host", model[256];
  if (!cache_folder(dir, sizeof dir)) {
    dag__log(DAG_LOG_INFO, "no measured times kept: neither XDG_CACHE_HOME "
                           "nor HOME says where the cache folder is");
    return false;
  }
  if (!make_folders(dir)) {
    dag__log(DAG_LOG_WARN, "no measured times kept: cannot make %s (%s)", dir,
             strerror(errno));
    return false;
  }
  gethostname(host, sizeof host - 1);
  size_t at = (size_t)snprintf(buf, len, "%s/", dir);
  if (at >= len)
    return false;
  append_name(buf, len, &at, host);
  for (int i = 0; i < dag__ndevices; i++) {
    device_model(&dag__devices[i], model, sizeof model);
    append_name(buf, len, &at, i ? "+" : "-");
    append_name(buf, len, &at, model);
  }
  append_name(buf, len, &at, ".history");
  return at + 1 < len;
}

/* emul_model.c — reading device models (emul_model.h). The built-in models
 * are written in the file format itself, so that there is one reader and
 * each figure sits beside where it came from.
 */
#include "mem/emul_model.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* NVIDIA H200 SXM on a PCIe Gen5 x16 host link. Sources: NVIDIA's H200
 * datasheet (141 GB HBM3e; FP64 34 TFLOP/s, 67 on tensor cores), the
 * TOP500's H100/H200 systems (HPL, mostly dgemm, reaches 55-59 TFLOP/s per
 * GPU), and "measured": what bench/gpu/copy_paths and bench/gpu/run give on
 * an H200 with a host of 16 cores (cuBLAS dgemm 53-63 TFLOP/s on whole
 * matrices of 8192 to 32768). Figures marked "assumed" are ours. */
static const char h200[] =
    "name h200\n"
    "memory 141G          # datasheet\n"
    "copy in 53G 10us     # measured: 8 MiB page-locked buffers, 52.7 GB/s\n"
    "copy out 55G 10us    # measured: 55.2 GB/s\n"
    "pack 9.4G 40G        # measured: one core packs 2048-tiles at 9.4 GB/s, "
    "all 16 at 37-44\n"
    "pageable 7.7G        # measured: cudaMemcpy from malloc memory\n"
    "launch 5us           # kernel launch latency (assumed)\n"
    "rate device gemm 60T # dgemm on tiles of 1024 and more: below HPL's\n"
    "rate device syrk 55T # assumed\n"
    "rate device trsm 45T # assumed\n"
    "rate device potrf 10T # assumed: one tile's dpotrf is latency-bound\n"
    "rate cpu gemm 40G    # a server core's dgemm: half of AVX-512 peak "
    "(assumed)\n"
    "rate cpu syrk 35G    # assumed\n"
    "rate cpu trsm 30G    # assumed\n"
    "rate cpu potrf 20G   # assumed\n";

static const struct { const char *name, *text; } builtin[] = {{"h200", h200}};

/* Where a model is being read, for messages. */
struct reader {
  const char *source;
  int line;
};

static int bad(const struct reader *r, const char *what, const char *token) {
  return dag__error_note(DAG_EINVAL, "device model %s:%d: %s%s%s%s", r->source,
                         r->line, what, token ? " ('" : "", token ? token : "",
                         token ? "')" : "");
}

/* A positive number with an optional k, M, G or T (powers of 1000). */
static bool read_amount(const char *s, double *out) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  static const char units[] = "kMGT";
  const char *u = *end ? strchr(units, *end) : NULL;
  if (u) {
    for (const char *k = units; k <= u; k++)
      v *= 1000;
    end++;
  }
  *out = v;
  return end != s && !*end && !errno && v > 0 && isfinite(v);
}

/* A duration: a number and ns, us, ms or s. */
static bool read_seconds(const char *s, double *out) {
  char *end;
  double v = strtod(s, &end);
  static const struct {
    const char *unit;
    double scale;
  } units[] = {{"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1}};
  for (size_t i = 0; end != s && i < sizeof units / sizeof *units; i++)
    if (!strcmp(end, units[i].unit) && v >= 0 && isfinite(v)) {
      *out = v * units[i].scale;
      return true;
    }
  return false;
}

#define MAX_WORDS 8

static int read_line(const struct reader *r, char **w, int n,
                     struct emul_model *m) {
  if (!strcmp(w[0], "name") && n == 2) {
    snprintf(m->name, sizeof m->name, "%s", w[1]);
    return 0;
  }
  if (!strcmp(w[0], "memory") && n == 2) {
    double bytes;
    if (!read_amount(w[1], &bytes))
      return bad(r, "memory: expected bytes, as 141G", w[1]);
    m->memory = (size_t)bytes;
    return 0;
  }
  if (!strcmp(w[0], "copy") && n == 4) {
    bool in = !strcmp(w[1], "in");
    if (!in && strcmp(w[1], "out"))
      return bad(r, "copy: expected in or out", w[1]);
    double rate, latency;
    if (!read_amount(w[2], &rate))
      return bad(r, "copy: expected bytes per second, as 55G", w[2]);
    if (!read_seconds(w[3], &latency))
      return bad(r, "copy: expected a latency, as 10us", w[3]);
    *(in ? &m->in_bytes_per_s : &m->out_bytes_per_s) = rate;
    *(in ? &m->in_latency : &m->out_latency) = latency;
    return 0;
  }
  if (!strcmp(w[0], "pack") && (n == 2 || n == 3)) {
    if (!read_amount(w[1], &m->pack_bytes_per_s))
      return bad(r, "pack: expected bytes per second, as 9G", w[1]);
    if (n == 3 && !read_amount(w[2], &m->pack_all_bytes_per_s))
      return bad(r, "pack: expected all cores' bytes per second, as 40G", w[2]);
    return 0;
  }
  if (!strcmp(w[0], "pageable") && n == 2) {
    if (!read_amount(w[1], &m->pageable_bytes_per_s))
      return bad(r, "pageable: expected bytes per second, as 7G", w[1]);
    return 0;
  }
  if (!strcmp(w[0], "launch") && n == 2) {
    if (!read_seconds(w[1], &m->launch))
      return bad(r, "launch: expected a latency, as 5us", w[1]);
    return 0;
  }
  if (!strcmp(w[0], "rate") && n == 4) {
    bool on_device = !strcmp(w[1], "device");
    if (!on_device && strcmp(w[1], "cpu"))
      return bad(r, "rate: expected device or cpu", w[1]);
    if (strlen(w[2]) >= sizeof m->rates[0].label)
      return bad(r, "rate: label too long", w[2]);
    double rate;
    if (!read_amount(w[3], &rate))
      return bad(r, "rate: expected work per second, as 60T", w[3]);
    if (m->nrates == EMUL_MODEL_RATES)
      return bad(r, "too many rates", NULL);
    struct emul_rate *e = &m->rates[m->nrates++];
    snprintf(e->label, sizeof e->label, "%s", w[2]);
    e->on_device = on_device;
    e->per_second = rate;
    return 0;
  }
  return bad(r,
             "expected 'name N', 'memory BYTES', 'copy in|out BYTES/S "
             "LATENCY', 'pack BYTES/S [ALL CORES' BYTES/S]', 'pageable "
             "BYTES/S', 'launch LATENCY' or 'rate device|cpu LABEL WORK/S'",
             w[0]);
}

static int read_text(const char *source, const char *text,
                     struct emul_model *m) {
  struct reader r = {source, 0};
  memset(m, 0, sizeof *m);
  while (*text) {
    size_t len = strcspn(text, "\n");
    char line[512];
    r.line++;
    if (len >= sizeof line)
      return bad(&r, "line too long", NULL);
    memcpy(line, text, len);
    line[len] = 0;
    text += len + (text[len] == '\n');
    line[strcspn(line, "#")] = 0;
    char *w[MAX_WORDS], *save;
    int n = 0;
    for (char *t = strtok_r(line, " \t\r", &save); t;
         t = strtok_r(NULL, " \t\r", &save))
      if (n < MAX_WORDS)
        w[n++] = t;
    int err = n ? read_line(&r, w, n, m) : 0;
    if (err)
      return err;
  }
  r.line = 0;
  if (!m->memory || !m->in_bytes_per_s || !m->out_bytes_per_s)
    return dag__error_note(DAG_EINVAL,
                           "device model %s: it needs 'memory', 'copy in' and "
                           "'copy out'",
                           source);
  if (!m->name[0])
    snprintf(m->name, sizeof m->name, "%s", source);
  return 0;
}

int dag__emul_model_load(const char *which, struct emul_model *m) {
  for (size_t i = 0; i < sizeof builtin / sizeof *builtin; i++)
    if (!strcmp(which, builtin[i].name))
      return read_text(which, builtin[i].text, m);
  FILE *f = fopen(which, "r");
  if (!f)
    return dag__error_note(DAG_EINVAL,
                           "device model '%s': no built-in model of that name "
                           "(h200) and no such file",
                           which);
  char *text = NULL;
  size_t size = 0;
  FILE *all = open_memstream(&text, &size);
  char buf[4096];
  size_t got;
  while (all && (got = fread(buf, 1, sizeof buf, f)) > 0)
    fwrite(buf, 1, got, all);
  fclose(f);
  if (!all)
    return dag__error_note(DAG_ENOMEM, "device model %s: no memory", which);
  fclose(all);
  int err = read_text(which, text, m);
  free(text);
  return err;
}

double dag__emul_model_seconds(const struct emul_model *m, const char *label,
                               bool on_device, double work) {
  for (int i = 0; label && i < m->nrates; i++)
    if (m->rates[i].on_device == on_device && !strcmp(m->rates[i].label, label))
      return work / m->rates[i].per_second + (on_device ? m->launch : 0);
  return -1;
}

double dag__emul_model_copy_seconds(const struct emul_model *m, bool to_device,
                                    size_t bytes, bool pinned) {
  double rate = to_device ? m->in_bytes_per_s : m->out_bytes_per_s;
  if (!pinned && m->pageable_bytes_per_s > 0 && m->pageable_bytes_per_s < rate)
    rate = m->pageable_bytes_per_s;
  return (to_device ? m->in_latency : m->out_latency) + (double)bytes / rate;
}

double dag__emul_model_pack_seconds(const struct emul_model *m, size_t bytes) {
  return (double)bytes / m->pack_bytes_per_s;
}

/* dagcc_plan.c: the compiler's commands for an invocation, with the
 * rewritten inputs in place of the user's files, one command per input
 * when nothing is linked; and the dependency files, fixed to name the
 * user's files rather than the temporaries. */
#include "dagcc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* `path` as make reads it in a dependency file, escaped the way gcc
 * escapes it. */
static char *make_quote(const char *path) {
  char *q = xmalloc(2 * strlen(path) + 1), *o = q;
  for (const char *p = path; *p; p++) {
    if (*p == ' ' || *p == '\t' || *p == '#')
      *o++ = '\\';
    else if (*p == '$')
      *o++ = '$';
    *o++ = *p;
  }
  *o = '\0';
  return q;
}

/* Writes `text` with every `from` replaced by `to`. */
static void write_replacing(FILE *out, const char *text, size_t len,
                            const char *from, const char *to) {
  size_t flen = strlen(from);
  for (size_t i = 0; i < len;) {
    if (len - i >= flen && memcmp(text + i, from, flen) == 0) {
      fputs(to, out);
      i += flen;
    } else {
      fputc(text[i++], out);
    }
  }
}

/* Names the user's file instead of the temporary in `depfile`, in place or
 * into `copy_to` ("-": standard output). */
static void depfile_fix(const char *depfile, const char *tmp, const char *orig,
                        const char *copy_to) {
  size_t len;
  char *text = read_file(depfile, &len);
  if (!text)
    return;
  const char *dest = copy_to ? copy_to : depfile;
  FILE *out = strcmp(dest, "-") == 0 ? stdout : fopen(dest, "w");
  if (!out)
    fatal("cannot write '%s': %s", dest, strerror(errno));
  char *from = make_quote(tmp), *to = make_quote(orig);
  write_replacing(out, text, len, from, to);
  if (out == stdout ? fflush(out) != 0 : fclose(out) != 0)
    fatal("cannot write '%s': %s", dest, strerror(errno));
  free(from);
  free(to);
  free(text);
}

static struct command *plan_add(struct plan *p) {
  p->cmd = xrealloc(p->cmd, (p->n + 1) * sizeof *p->cmd);
  p->cmd[p->n] = (struct command){0};
  return &p->cmd[p->n++];
}

void plan_release(struct plan *p) {
  for (size_t i = 0; i < p->n; i++) {
    strv_release(&p->cmd[i].argv);
    free(p->cmd[i].depfile);
  }
  free(p->cmd);
}

/* The compiler, dag's headers, and the directory of each rewritten input
 * for its `#include "..."`: the temporary lives elsewhere. */
void push_compile_start(struct strv *argv, const struct strv *cc,
                        const struct home *h, const struct invocation *inv) {
  strv_append(argv, cc);
  strv_take(argv, xasprintf("-I%s", h->include));
  if (!inv->dag_macro_set)
    strv_push(argv, "-D" DAG_MACRO "=" DAG_MACRO_VALUE);
}

static void command_start(struct strv *argv, const struct strv *cc,
                          const struct home *h, const struct invocation *inv,
                          const struct input *only) {
  push_compile_start(argv, cc, h, inv);
  for (size_t i = 0; i < inv->nin; i++) {
    const struct input *in = &inv->in[i];
    if (in->tmp && (!only || only == in)) {
      char *dir = dir_name(in->path);
      strv_push(argv, "-iquote");
      strv_push(argv, dir);
      free(dir);
    }
  }
}

/* The user's arguments in their order, with rewritten inputs replaced and,
 * when `only` is set, the other inputs left out. */
static void push_user_args(struct strv *argv, const struct invocation *inv,
                           const struct input *only) {
  size_t k = 0;
  for (size_t i = 0; i < inv->args.n; i++) {
    const struct input *in =
        k < inv->nin && inv->in[k].at == i ? &inv->in[k++] : NULL;
    if (!in)
      strv_push(argv, inv->args.v[i]);
    else if (!only || in == only)
      strv_push(argv, in->tmp ? in->tmp : in->path);
  }
}

/* One command over every input: linking, or nothing to split. */
static void plan_single(struct plan *p, const struct invocation *inv,
                        const struct home *h, const struct strv *cc) {
  struct command *c = plan_add(p);
  command_start(&c->argv, cc, h, inv, NULL);
  push_user_args(&c->argv, inv, NULL);
  if (inv->output) {
    strv_push(&c->argv, "-o");
    strv_push(&c->argv, inv->output);
  }
  if (inv->mode == MODE_LINK && (inv->nin || p->show))
    push_link_flags(&c->argv, h);
}

/* The file a rewritten input compiles to, named after the user's file;
 * NULL when the compiler writes to standard output or nothing. */
static char *output_for(const struct invocation *inv, const struct input *in) {
  if (inv->output)
    return xstrdup(inv->output);
  if (!in->tmp)
    return NULL;
  char *base = stem(in->path), *out = NULL;
  if (inv->mode == MODE_COMPILE)
    out = xasprintf("%s.o", base);
  else if (inv->mode == MODE_ASSEMBLE)
    out = xasprintf("%s.s", base);
  free(base);
  return out;
}

/* Makes the dependencies of a rewritten input name the user's file: the
 * target is named after it, and the file is fixed after the command. */
static void plan_deps(struct plan *p, struct command *c,
                      const struct invocation *inv, const char *out) {
  if (!inv->dep_stdout && !inv->dep_file)
    return;
  if (!inv->dep_target) {
    char *base = stem(c->in->path);
    char *target = out && inv->mode != MODE_PREPROCESS
                       ? xstrdup(out)
                       : xasprintf("%s.o", base);
    strv_push(&c->argv, "-MQ");
    strv_push(&c->argv, target);
    free(target);
    free(base);
  }
  if (inv->dep_mf) {
    c->depfile = xstrdup(inv->dep_mf);
    return;
  }
  if (inv->dep_file) {
    c->depfile = with_extension(out ? out : base_name(c->in->path), ".d");
  } else if (p->show) {
    c->depfile = temp_template(c->in->path, ".d");
  } else {
    int fd;
    c->depfile = temp_create(c->in->path, ".d", &fd);
    close(fd);
    c->copy_to = inv->output ? inv->output : "-";
  }
  strv_push(&c->argv, "-MF");
  strv_push(&c->argv, c->depfile);
}

/* One command per input when nothing is linked, so that each rewritten
 * input gets an output named after the user's file. */
static void plan_each(struct plan *p, const struct invocation *inv,
                      const struct home *h, const struct strv *cc) {
  if (inv->output && inv->nin > 1)
    fatal("cannot specify '-o' with '-c', '-S' or '-E' with multiple files");
  for (size_t i = 0; i < inv->nin; i++) {
    const struct input *in = &inv->in[i];
    struct command *c = plan_add(p);
    c->in = in->tmp ? in : NULL;
    command_start(&c->argv, cc, h, inv, in);
    push_user_args(&c->argv, inv, in);
    char *out = output_for(inv, in);
    if (out) {
      strv_push(&c->argv, "-o");
      strv_push(&c->argv, out);
    }
    if (c->in)
      plan_deps(p, c, inv, out);
    free(out);
  }
}

void plan_make(struct plan *p, const struct invocation *inv,
               const struct home *h, const struct strv *cc) {
  if (inv->nin == 0 || inv->mode == MODE_LINK)
    plan_single(p, inv, h, cc);
  else
    plan_each(p, inv, h, cc);
}

int plan_run(const struct plan *p, bool verbose) {
  int status = 0;
  for (size_t i = 0; i < p->n; i++) {
    const struct command *c = &p->cmd[i];
    int st = run(c->argv.v, verbose);
    if (st == 0 && c->depfile)
      depfile_fix(c->depfile, c->in->tmp, c->in->path, c->copy_to);
    if (!status)
      status = st;
  }
  return status;
}

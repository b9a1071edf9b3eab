/* probe.h: the text libclang parses in place of a file with pragmas.
 *
 * libclang ignores `#pragma dag`, so the rewriter hands it a copy of each
 * file in which every directive is replaced by code that puts the
 * directive's expressions where the compiler checks them, in the scope
 * where they are evaluated:
 *
 *   #pragma dag task in(a[i:n]) ... stmt  ->  if (0) { (void)((a)); ... } else
 * stmt #pragma dag taskwait on(x)            ->  { (void)&(x); } #pragma dag
 * task ... before f(params) ->  a function `__dag_probe_K params { ... }` after
 * f's declaration
 *
 * The `if (0) ... else` form makes the probe and the task's statement one
 * statement, so `if (c) #pragma dag task ... f();` stays valid. Line breaks
 * are kept, and a map takes every offset of the probe text back to the
 * original file, so libclang's messages land on the user's text. */
#ifndef DAG_TOOL_PROBE_H
#define DAG_TOOL_PROBE_H

#include "scan.h"

enum probe_role {
  PROBE_ADDRESS, /* &(item): a whole object */
  PROBE_BASE,    /* (base) of a section */
  PROBE_PREFIX,  /* (base)[lo0]..[lo(sub-1)]: what subscript `sub` indexes */
  PROBE_ELEMENT, /* &((base)[lo0]...): the first element of a section */
  PROBE_LO,
  PROBE_LEN,
  PROBE_ARG,    /* the expression of on, priority, if */
  PROBE_NAME,   /* an identifier of shared or firstprivate */
  PROBE_SHAPED, /* (p) of an array shaping ([m][n])p */
};

/* One probe expression: the '(' that opens it is at `offset` in the probe
 * text, so the ParenExpr there is the expression. */
struct probe_point {
  unsigned offset;
  enum probe_role role;
  unsigned directive, clause, item, sub;
};

struct probe_segment {
  unsigned begin, len; /* in the probe text */
  unsigned origin;     /* offset in the original file of probe byte `begin` */
  bool copied;         /* false: generated, every byte maps to origin */
};

struct probe_file {
  char *text;
  unsigned len;
  struct probe_segment *segs;
  unsigned nsegs;
  struct probe_point *points;
  unsigned npoints;
  /* Per directive: the offset in the probe text of its anchor (`if` of a
   * task's probe, `{` of a taskwait's, the name of a probe function), or
   * PROBE_NONE. */
  unsigned *anchors;
};

#define PROBE_NONE 0xffffffffu

/* Builds the probe text of `src`. `dirs[k]` is directive k of `scan`,
 * parsed; `ok[k]` false when it had errors (it is then blanked out).
 * `file_id` tells the files of one translation unit apart. */
void probe_build(const struct source *src, const char *clean,
                 const struct scan_result *scan, const struct directive *dirs,
                 const bool *ok, unsigned file_id, struct probe_file *out);
void probe_release(struct probe_file *p);
/* The original offset of probe offset `at`. */
unsigned probe_origin(const struct probe_file *p, unsigned at);
/* Probe functions are named "__dag_probe_<file_id>_<directive>". */
#define PROBE_FUNCTION_PREFIX "__dag_probe_"

#endif

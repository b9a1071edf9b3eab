/* pragma.h: one `#pragma dag` directive as plain data.
 *
 * pragma.c turns the text of a directive into this form without libclang:
 * clauses, their items and expressions, each with its byte offsets in the
 * file so that later passes can point at them. Expressions stay C text; the
 * parser only finds their boundaries (brackets, commas, the colon of a
 * section), it does not check them. */
#ifndef DAG_TOOL_PRAGMA_H
#define DAG_TOOL_PRAGMA_H

#include "dag.h" /* DAG_DEVICE_KINDS: the kinds the runtime knows */
#include "diag.h"

/* Byte offsets [begin, end) in the source file. */
struct span {
  unsigned begin, end;
};

/* A C expression from the directive: its text, with comments and line
 * continuations turned into spaces and the ends trimmed, and where it is. An
 * absent expression has text NULL. */
struct expr {
  char *text;
  struct span at;
};

/* One subscript of an array section: `[lo:len]`, `[:len]` (lo absent: 0) or
 * a plain index `[i]` (is_section false, len absent: one element). */
struct subscript {
  struct expr lo, len;
  bool is_section;
  struct span at; /* from '[' to ']' inclusive */
};

/* A list item: `([d0][d1]...)base[s0][s1]...`, maybe wrapped in a block
 * modifier such as `lower(...)`.
 * - part: the part of a square 2-D block that the item selects, DAG_FULL
 *   (no modifier) or DAG_LOWER ... DAG_DIAGONAL; part_at is the modifier's
 *   name, for messages (`at` covers the modifier and its parentheses);
 * - shape: the dimensions of an array-shaping prefix, nshape == 0 if none;
 * - base: the expression the subscripts apply to; when the item has no
 *   section it is the whole item (`x`, `*p`, `p->f`, `a[i]`, `s.f`);
 * - subs: the trailing subscripts from the first one that holds a ':' on
 *   (plain indices before it stay in `base`); nsubs == 0 if none. */
struct item {
  struct span at;
  enum dag_shape part;
  struct span part_at;
  struct expr *shape;
  unsigned nshape;
  struct expr base;
  struct subscript *subs;
  unsigned nsubs;
  /* An item of a reduction: the number of array levels from its element
   * (the item itself, or its section's first element) down to the scalar
   * that the reduction combines. Set by sema, which knows the types. */
  unsigned scalar_levels;
};

enum directive_kind { DIRECTIVE_TASK, DIRECTIVE_TASKWAIT };

enum clause_kind {
  CLAUSE_IN,
  CLAUSE_OUT,
  CLAUSE_INOUT,
  CLAUSE_COMMUTATIVE,
  CLAUSE_REDUCTION, /* reduction(op: list) */
  CLAUSE_DEVICE,
  CLAUSE_IMPLEMENTS,
  CLAUSE_ON, /* task: on(expr) names a rank; taskwait: on(list) */
  CLAUSE_PRIORITY,
  CLAUSE_LABEL,
  CLAUSE_IF,
  CLAUSE_WORK, /* task functions: the work of one call, for device models */
  CLAUSE_SHARED,
  CLAUSE_FIRSTPRIVATE,
  CLAUSE_NOFLUSH,
};

struct clause {
  enum clause_kind kind;
  struct span at; /* the clause, from its name to its ')' */
  /* in, out, inout, commutative, reduction, taskwait's on: the items;
   * shared and firstprivate: items that are plain identifiers (in base). */
  struct item *items;
  unsigned nitems;
  /* on (task), priority, if: an expression; label: the string literal with
   * its quotes; implements: an identifier. */
  struct expr arg;
  enum dag_device device;    /* device */
  enum dag_reduce_op reduce; /* reduction: the operator */
};

struct directive {
  enum directive_kind kind;
  struct span at; /* from '#' to the end of the directive's last line */
  struct clause *clauses;
  unsigned nclauses;
};

/* Parses one directive. `src` is the file and [begin, end) the directive
 * from its '#' to the end of its last line (continuations included). Every
 * problem found becomes an error in `diags`, all of them, not just the
 * first. Returns 0 with `out` filled, or -1 when the directive had errors
 * (`out` is then released and empty). Never reads outside [begin, end). */
int pragma_parse(const struct source *src, unsigned begin, unsigned end,
                 struct directive *out, struct diags *diags);
void directive_release(struct directive *d);

/* The clause's name as written in pragmas, such as "inout". */
const char *clause_name(enum clause_kind kind);
/* The spelling of a reduction operator, such as "min". */
const char *reduce_op_name(enum dag_reduce_op op);
/* The modifier that selects `part` of a block, such as "unit_lower"; NULL
 * for DAG_FULL. */
const char *part_name(enum dag_shape part);
/* The enumerator of dag.h that `part` is, such as "DAG_UNIT_LOWER". */
const char *part_enumerator(enum dag_shape part);
/* True for in, out, inout, commutative and reduction. */
bool clause_is_dependency(enum clause_kind kind);

#endif

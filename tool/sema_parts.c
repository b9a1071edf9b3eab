/* sema_parts.c: the checks of items in a block modifier, such as
 * `lower(A[i:n][j:n])`, in their probe expressions (probe.h).
 *
 * The runtime takes the part of a square block that a modifier selects
 * from a region of n rows of n elements (dag.h, enum dag_shape). So the
 * item inside must have two dimensions, its elements being no arrays: a
 * section with two subscripts, or a whole 2-D array (shaped pointers
 * included). It must be square where the rewriter can tell: two lengths
 * that are the same text are equal; two constant ones are compared; any
 * other pair is the runtime's to check when the task is submitted. */
#include "sema_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An error about item `it`, at probe offset `at`: `fmt` takes the item's
 * text, then `detail`, then the modifier's name. */
static void part_error(struct walker *w, int file, unsigned at,
                       const struct item *it, const char *fmt,
                       const char *detail) {
  char *text = item_text(&w->s->files[file], it);
  char *message = xasprintf(fmt, text, detail, part_name(it->part));
  error_at(w, file, at, "%s%s", message, "");
  free(message);
  free(text);
}

/* Whether the item has two dimensions: its subscripts plus the array
 * levels of `type`, the type of its first element (or of the whole item);
 * an error if not. */
static bool check_dimensions(struct walker *w, int file, unsigned at,
                             const struct item *it, CXType type) {
  CXType scalar;
  unsigned dims = it->nsubs + array_levels(type, &scalar);
  if (dims == 2)
    return true;
  char count[32];
  snprintf(count, sizeof count, "%u dimension%s", dims, dims == 1 ? "" : "s");
  part_error(w, file, at, it,
             "'%s' has %s, but '%s' selects part of a square 2-D block: "
             "name a section such as 'A[i:n][j:n]', a shaped pointer "
             "'([n][n])p' or a 2-D array",
             count);
  return false;
}

/* The error for a block of `rows` rows of `columns` elements. */
static void not_square(struct walker *w, int file, unsigned at,
                       const struct item *it, long long rows,
                       long long columns) {
  char shape[64];
  snprintf(shape, sizeof shape, "%lld rows of %lld element%s", rows, columns,
           columns == 1 ? "" : "s");
  part_error(w, file, at, it,
             "'%s' is not square (%s), but '%s' selects part of a square "
             "2-D block",
             shape);
}

/* A whole 2-D array, of type `type`: square when both sizes are
 * constants. */
static void check_whole(struct walker *w, int file, unsigned at,
                        const struct item *it, CXType type) {
  if (!check_dimensions(w, file, at, it, type))
    return;
  CXType t = canonical(type);
  long long rows = clang_getArraySize(t);
  long long columns =
      clang_getArraySize(canonical(clang_getArrayElementType(t)));
  if (rows >= 0 && columns >= 0 && rows != columns)
    not_square(w, file, at, it, rows, columns);
}

/* The text of `x` without its white space, for comparing two lengths. */
static char *squeezed(const struct expr *x) {
  char *s = xstrdup(x->text ? x->text : "1"), *w = s;
  for (const char *r = s; *r; r++)
    if (*r != ' ' && *r != '\t' && *r != '\n' && *r != '\r')
      *w++ = *r;
  *w = '\0';
  return s;
}

/* The first length of the section `it` is the constant `rows` (when
 * rows_known), the second is `columns`: equal text, or unequal constants,
 * decide; anything else is left to the runtime. */
static void compare_lengths(struct walker *w, int file, unsigned at,
                            const struct item *it, bool rows_known,
                            long long rows, bool columns_known,
                            long long columns) {
  char *a = squeezed(&it->subs[0].len), *b = squeezed(&it->subs[1].len);
  if (strcmp(a, b) != 0 && rows_known && columns_known && rows != columns)
    not_square(w, file, at, it, rows, columns);
  free(a);
  free(b);
}

/* Length `p->sub` of the section `it`, `paren`: the first is kept in
 * w->rows until the second comes; a plain index as the second subscript is
 * one column. */
static void check_length(struct walker *w, int file, CXCursor paren,
                         const struct probe_point *p, const struct item *it) {
  if (it->nsubs != 2)
    return; /* check_dimensions said why */
  long long value = 0;
  bool known = constant_integer(paren, &value);
  if (p->sub == 0 && !it->subs[1].is_section)
    compare_lengths(w, file, p->offset, it, known, value, true, 1);
  else if (p->sub == 0)
    w->rows = (struct part_rows){it, known, value};
  else if (w->rows.item == it)
    compare_lengths(w, file, p->offset, it, w->rows.known, w->rows.value, known,
                    value);
}

void check_part_point(struct walker *w, int file, CXCursor paren,
                      const struct probe_point *p) {
  const struct item *it =
      &w->s->files[file].dirs[p->directive].clauses[p->clause].items[p->item];
  CXType type = clang_getCursorType(paren);
  if (type.kind == CXType_Invalid)
    return; /* libclang reported why */
  switch (p->role) {
  case PROBE_ADDRESS:
    check_whole(w, file, p->offset, it, type);
    break;
  case PROBE_ELEMENT:
    check_dimensions(w, file, p->offset, it, type);
    break;
  case PROBE_LEN:
    check_length(w, file, paren, p, it);
    break;
  default:
    break;
  }
}

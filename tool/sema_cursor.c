/* sema_cursor.c: what the sema files ask of libclang's cursors, types and
 * tokens, and the offsets between the probe text libclang parses and the
 * user's files. */
#include "sema_internal.h"

#include <stdlib.h>
#include <string.h>

char *take(CXString s) {
  char *copy = xstrdup(clang_getCString(s) ? clang_getCString(s) : "");
  clang_disposeString(s);
  return copy;
}

int file_index(const struct walker *w, CXFile f) {
  for (unsigned i = 0; i < w->s->nfiles; i++)
    if (w->cxfiles[i] && clang_File_isEqual(w->cxfiles[i], f))
      return (int)i;
  return -1;
}

int where(const struct walker *w, CXSourceLocation loc, unsigned *offset) {
  CXFile f;
  clang_getFileLocation(loc, &f, NULL, NULL, offset);
  return f ? file_index(w, f) : -1;
}

unsigned origin(const struct walker *w, int file, unsigned at) {
  return probe_origin(&w->s->files[file].probe, at);
}

unsigned origin_end(const struct walker *w, int file, unsigned end) {
  return end == 0 ? origin(w, file, 0) : origin(w, file, end - 1) + 1;
}

struct span extent_of(const struct walker *w, CXCursor c, int *file) {
  CXSourceRange r = clang_getCursorExtent(c);
  struct span sp;
  *file = where(w, clang_getRangeStart(r), &sp.begin);
  where(w, clang_getRangeEnd(r), &sp.end);
  return sp;
}

static enum CXChildVisitResult collect(CXCursor c, CXCursor parent,
                                       CXClientData data) {
  struct kids *k = data;
  GROW(k->v, k->n, k->cap);
  k->v[k->n++] = c;
  return CXChildVisit_Continue;
}

struct kids children(CXCursor c) {
  struct kids k = {0};
  clang_visitChildren(c, collect, &k);
  return k;
}

CXCursor strip(CXCursor c) {
  for (;;) {
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k != CXCursor_UnexposedExpr && k != CXCursor_ParenExpr)
      return c;
    struct kids ks = children(c);
    if (ks.n != 1) {
      free(ks.v);
      return c;
    }
    c = ks.v[0];
    free(ks.v);
  }
}

bool is_array_kind(enum CXTypeKind k) {
  return k == CXType_ConstantArray || k == CXType_VariableArray ||
         k == CXType_IncompleteArray || k == CXType_DependentSizedArray;
}

CXType canonical(CXType t) { return clang_getCanonicalType(t); }

bool is_integer(CXType t) {
  enum CXTypeKind k = canonical(t).kind;
  return (k >= CXType_Bool && k <= CXType_Int128) || k == CXType_Enum;
}

bool is_variably_modified(CXType t) {
  t = canonical(t);
  for (;;) {
    if (t.kind == CXType_VariableArray)
      return true;
    if (t.kind == CXType_Pointer)
      t = canonical(clang_getPointeeType(t));
    else if (is_array_kind(t.kind))
      t = canonical(clang_getArrayElementType(t));
    else
      return false;
  }
}

unsigned array_levels(CXType t, CXType *inner) {
  unsigned levels = 0;
  t = canonical(t);
  while (is_array_kind(t.kind)) {
    levels++;
    t = canonical(clang_getArrayElementType(t));
  }
  *inner = t;
  return levels;
}

bool constant_integer(CXCursor e, long long *value) {
  CXEvalResult r = clang_Cursor_Evaluate(e);
  bool known = r && clang_EvalResult_getKind(r) == CXEval_Int;
  if (known)
    *value = clang_EvalResult_getAsLongLong(r);
  if (r)
    clang_EvalResult_dispose(r);
  return known;
}

char *type_spelling(CXType t) { return take(clang_getTypeSpelling(t)); }

/* The tokens of the file over c's extent. clang_tokenize takes a range
 * inside a macro's expansion to the macro's definition, which may be in
 * another file (a header's accessor macro, `ELEM(A, i, j) = v`): then it
 * finds nothing, or what lies between the definition and the use. Ranges
 * made anew from file positions are the file's own. */
static CXToken *file_tokens(CXTranslationUnit tu, CXCursor c, unsigned *n) {
  CXSourceRange r = clang_getCursorExtent(c);
  CXFile lo_file, hi_file;
  unsigned lo, hi;
  clang_getFileLocation(clang_getRangeStart(r), &lo_file, NULL, NULL, &lo);
  clang_getFileLocation(clang_getRangeEnd(r), &hi_file, NULL, NULL, &hi);
  CXToken *toks = NULL;
  *n = 0;
  if (lo_file && clang_File_isEqual(lo_file, hi_file) && lo <= hi)
    clang_tokenize(tu,
                   clang_getRange(clang_getLocationForOffset(tu, lo_file, lo),
                                  clang_getLocationForOffset(tu, hi_file, hi)),
                   &toks, n);
  return toks;
}

static unsigned token_offset(CXTranslationUnit tu, CXToken t) {
  unsigned at;
  clang_getFileLocation(clang_getTokenLocation(tu, t), NULL, NULL, NULL, &at);
  return at;
}

char *binary_operator(CXTranslationUnit tu, CXCursor c, CXCursor lhs) {
  unsigned n, lhs_end;
  CXToken *toks = file_tokens(tu, c, &n);
  clang_getFileLocation(clang_getRangeEnd(clang_getCursorExtent(lhs)), NULL,
                        NULL, NULL, &lhs_end);
  char *op = NULL;
  for (unsigned i = 0; i < n && !op; i++)
    if (token_offset(tu, toks[i]) >= lhs_end)
      op = take(clang_getTokenSpelling(tu, toks[i]));
  clang_disposeTokens(tu, toks, n);
  return op ? op : xstrdup("");
}

char *unary_operator(CXTranslationUnit tu, CXCursor c) {
  unsigned n;
  CXToken *toks = file_tokens(tu, c, &n);
  char *first = n ? take(clang_getTokenSpelling(tu, toks[0])) : xstrdup("");
  char *last = n ? take(clang_getTokenSpelling(tu, toks[n - 1])) : xstrdup("");
  clang_disposeTokens(tu, toks, n);
  bool prefix = !strcmp(first, "++") || !strcmp(first, "--") ||
                (first[0] && !first[1] && strchr("*&-+!~", first[0]));
  bool postfix = !strcmp(last, "++") || !strcmp(last, "--");
  char *op = prefix ? first : postfix ? last : xstrdup("");
  if (op != first)
    free(first);
  if (op != last)
    free(last);
  return op;
}

bool in_span(struct span sp, unsigned at) {
  return at >= sp.begin && at < sp.end;
}

bool spelled_as(const struct walker *w, struct span at, const char *name) {
  const struct source *src = &w->s->files[0].src;
  size_t len = strlen(name);
  return at.end >= at.begin && at.end - at.begin == len && at.end <= src->len &&
         memcmp(src->text + at.begin, name, len) == 0;
}

unsigned decl_key(CXCursor decl) {
  unsigned key;
  clang_getFileLocation(clang_getCursorLocation(decl), NULL, NULL, NULL, &key);
  return key;
}

bool is_local(CXCursor decl) {
  enum CXCursorKind k = clang_getCursorKind(decl);
  if (k == CXCursor_ParmDecl)
    return true;
  if (k != CXCursor_VarDecl)
    return false;
  if (clang_getCursorKind(clang_getCursorSemanticParent(decl)) ==
      CXCursor_TranslationUnit)
    return false;
  return clang_Cursor_getStorageClass(decl) != CX_SC_Extern;
}

bool ends_with_block(CXCursor stmt) {
  switch (clang_getCursorKind(stmt)) {
  case CXCursor_CompoundStmt:
    return true;
  case CXCursor_IfStmt:
  case CXCursor_ForStmt:
  case CXCursor_WhileStmt:
  case CXCursor_SwitchStmt: {
    /* The last child is the statement the construct ends with (the else
     * branch, the loop's or the switch's body). */
    struct kids k = children(stmt);
    bool block = k.n > 0 && ends_with_block(k.v[k.n - 1]);
    free(k.v);
    return block;
  }
  default:
    return false;
  }
}

unsigned statement_end(const struct unit_file *f, unsigned end, bool block) {
  if (block)
    return end;
  const char *s = f->src.text;
  for (unsigned i = end; i < f->src.len; i++) {
    if (s[i] == ';')
      return i + 1;
    if (s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r')
      break;
  }
  return end;
}

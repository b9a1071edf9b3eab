/* ops.c — the operators of task reductions on C arithmetic types: each
 * operator's identity, and combining one array into another, element by
 * element. Pure functions, like region.c: the reduction groups (reduce.c)
 * apply them to the spans of a region.
 */
#include "reduce/reduce.h"

#include <limits.h>
#include <math.h>

/* _Bool's product is its AND, as OpenMP's; GCC would warn of a product in
 * a boolean context. */
#pragma GCC diagnostic ignored "-Wint-in-bool-context"

/* The least and the greatest value of each type: MIN's and MAX's
 * identities. */
#define LEAST_BOOL 0
#define MOST_BOOL 1
#define LEAST_CHAR CHAR_MIN
#define MOST_CHAR CHAR_MAX
#define LEAST_SCHAR SCHAR_MIN
#define MOST_SCHAR SCHAR_MAX
#define LEAST_UCHAR 0
#define MOST_UCHAR UCHAR_MAX
#define LEAST_SHORT SHRT_MIN
#define MOST_SHORT SHRT_MAX
#define LEAST_USHORT 0
#define MOST_USHORT USHRT_MAX
#define LEAST_INT INT_MIN
#define MOST_INT INT_MAX
#define LEAST_UINT 0
#define MOST_UINT UINT_MAX
#define LEAST_LONG LONG_MIN
#define MOST_LONG LONG_MAX
#define LEAST_ULONG 0
#define MOST_ULONG ULONG_MAX
#define LEAST_LLONG LLONG_MIN
#define MOST_LLONG LLONG_MAX
#define LEAST_ULLONG 0
#define MOST_ULLONG ULLONG_MAX
#define LEAST_FLOAT (-INFINITY)
#define MOST_FLOAT INFINITY
#define LEAST_DOUBLE (-INFINITY)
#define MOST_DOUBLE INFINITY
#define LEAST_LDOUBLE (-INFINITY)
#define MOST_LDOUBLE INFINITY

/* The bitwise operators, for integer types only. */
#define BITWISE_CASES_1(T)                                                     \
  case DAG_REDUCE_BAND:                                                        \
    EACH(T, a &b);                                                             \
  case DAG_REDUCE_BOR:                                                         \
    EACH(T, a | b);                                                            \
  case DAG_REDUCE_BXOR:                                                        \
    EACH(T, a ^ b);
#define BITWISE_CASES_0(T)

/* into[i] = into[i] op from[i] for i < n, then return. */
#define EACH(T, expr)                                                          \
  for (size_t i = 0; i < n; i++) {                                             \
    T a = ((T *)into)[i], b = ((const T *)from)[i];                            \
    ((T *)into)[i] = (T)(expr);                                                \
  }                                                                            \
  return;

#define COMBINE_TYPE(id, T, integer)                                           \
  static void combine_##id(enum dag_reduce_op op, void *into,                  \
                           const void *from, size_t n) {                       \
    switch (op) {                                                              \
    case DAG_REDUCE_SUM:                                                       \
      EACH(T, a + b);                                                          \
    case DAG_REDUCE_PROD:                                                      \
      EACH(T, a *b);                                                           \
    case DAG_REDUCE_MIN:                                                       \
      EACH(T, b < a ? b : a);                                                  \
    case DAG_REDUCE_MAX:                                                       \
      EACH(T, b > a ? b : a);                                                  \
    case DAG_REDUCE_LAND:                                                      \
      EACH(T, a &&b);                                                          \
    case DAG_REDUCE_LOR:                                                       \
      EACH(T, a || b);                                                         \
      BITWISE_CASES_##integer(T) default : break;                              \
    }                                                                          \
    DAG_BUG("reduction operator %d on " #T, (int)op);                          \
  }                                                                            \
                                                                               \
  static void identity_##id(enum dag_reduce_op op, void *into, size_t n) {     \
    T v;                                                                       \
    switch (op) {                                                              \
    case DAG_REDUCE_PROD:                                                      \
    case DAG_REDUCE_LAND:                                                      \
      v = (T)1;                                                                \
      break;                                                                   \
    case DAG_REDUCE_MIN:                                                       \
      v = (T)MOST_##id;                                                        \
      break;                                                                   \
    case DAG_REDUCE_MAX:                                                       \
      v = (T)LEAST_##id;                                                       \
      break;                                                                   \
    case DAG_REDUCE_BAND: /* all bits set */                                   \
      v = (T) ~(unsigned long long)0;                                          \
      break;                                                                   \
    default: /* +, |, ^, || */                                                 \
      v = (T)0;                                                                \
    }                                                                          \
    for (size_t i = 0; i < n; i++)                                             \
      ((T *)into)[i] = v;                                                      \
  }

DAG_REDUCE_TYPES(COMBINE_TYPE)

static const struct {
  size_t size;
  bool integer;
  void (*combine)(enum dag_reduce_op, void *, const void *, size_t);
  void (*identity)(enum dag_reduce_op, void *, size_t);
} types[] = {
#define TYPE_ROW(id, T, integer)                                               \
  [DAG_REDUCE_##id] = {sizeof(T), integer, combine_##id, identity_##id},
    DAG_REDUCE_TYPES(TYPE_ROW)
#undef TYPE_ROW
};

/* The number of operators: one per row of DAG_REDUCE_OPS. */
#define OP_COUNT(id, spelling) +1
enum { NOPS = 0 DAG_REDUCE_OPS(OP_COUNT) };
#undef OP_COUNT

#define NTYPES (sizeof types / sizeof types[0])

const char *dag__reduce_check(unsigned op, unsigned type) {
  if (op >= NOPS)
    return "unknown reduction operator";
  if (type == DAG_REDUCE_NO_TYPE || type >= NTYPES)
    return "the reduction's element type is not a C arithmetic type";
  if (!types[type].integer &&
      (op == DAG_REDUCE_BAND || op == DAG_REDUCE_BOR || op == DAG_REDUCE_BXOR))
    return "a bitwise reduction needs an integer type";
  return NULL;
}

size_t dag__reduce_type_size(enum dag_reduce_type type) {
  return types[type].size;
}

void dag__reduce_identity(enum dag_reduce_op op, enum dag_reduce_type type,
                          void *into, size_t bytes) {
  types[type].identity(op, into, bytes / types[type].size);
}

void dag__reduce_combine(enum dag_reduce_op op, enum dag_reduce_type type,
                         void *into, const void *from, size_t bytes) {
  types[type].combine(op, into, from, bytes / types[type].size);
}

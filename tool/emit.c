/* emit.c: the code the rewriter generates (see emit.h).
 *
 * For a task on a statement, N being the task's number in the file:
 *
 *   struct __dag_args_N { captured variables };          before the function
 *   static void __dag_body_N(void *__dag_v);
 *   ...
 *   { struct __dag_args_N __dag_args = {...};          in place of the
 *     struct dag_access __dag_acc[] = {...};              directive and the
 *     static const char *const __dag_items[] = {...};     statement (the
 *     static const struct dag_task_info __dag_info = {...};  items as written,
 *     dag_check(dag_submit(&__dag_info, &__dag_args,        for messages)
 *                          sizeof __dag_args, ...));
 *   }
 *   ...
 *   static void __dag_body_N(void *__dag_v) {              after the function
 *     copies; the statement }
 *
 * A shared variable travels as a pointer, `__dag_sh_<name>` in the body,
 * and the body's references to it are rewritten to `(*__dag_sh_<name>)`;
 * a private one does not travel: the body declares it.
 *
 * A reduction item's access has the mode `DAG_REDUCE(DAG_REDUCE_<OP>,
 * DAG_REDUCE_TYPE_OF(<its first scalar>))`, and its task lists the pointers
 * of its argument struct: the runtime points those that fall in the item's
 * region at the task's private copy.
 *
 * An item in a block modifier, `lower(X)`, is X's access with the mode
 * `DAG_SHAPED(<mode>, DAG_LOWER)`; a whole 2-D array X goes as the runtime
 * takes a block, one span per row.
 *
 * In a file with tasks or task functions, `main` waits for the tasks before
 * it returns:
 *
 *   static inline void __dag_main_wait(void) {...}    before main
 *   for (__dag_main_wait();;)                          before each return
 *   __dag_main_wait();                                 before its last '}' */
#include "emit.h"

#include <stdlib.h>
#include <string.h>

struct emitter {
  const struct sema *s;
  struct edits *e;
};

static const struct directive *directive_of(const struct task *t) {
  return &t->file->dirs[t->directive];
}

static const char *mode_name(enum clause_kind k) {
  switch (k) {
  case CLAUSE_IN:
    return "DAG_IN";
  case CLAUSE_OUT:
    return "DAG_OUT";
  case CLAUSE_COMMUTATIVE:
    return "DAG_COMMUTATIVE";
  default:
    return "DAG_INOUT";
  }
}

static void expr(struct edit *ed, const struct unit_file *f,
                 const struct expr *x) {
  edit_piece(ed, PIECE_EXPR, &f->src, f->clean, x->at);
}

/* The item's base: `(base)`, or the shaped lvalue of `([d0]..)base`. */
static void item_base(struct edit *ed, const struct unit_file *f,
                      const struct item *it) {
  if (it->nshape == 0) {
    edit_text(ed, "(");
    expr(ed, f, &it->base);
    edit_text(ed, ")");
    return;
  }
  edit_text(ed, "(*(__typeof__(*(");
  expr(ed, f, &it->base);
  edit_text(ed, ")) (*)");
  for (unsigned k = 0; k < it->nshape; k++) {
    edit_text(ed, "[");
    expr(ed, f, &it->shape[k]);
    edit_text(ed, "]");
  }
  edit_text(ed, ")(");
  expr(ed, f, &it->base);
  edit_text(ed, "))");
}

/* `base` followed by `n` subscripts `[0]`. */
static void item_zeros(struct edit *ed, const struct unit_file *f,
                       const struct item *it, unsigned n) {
  edit_text(ed, "(");
  item_base(ed, f, it);
  for (unsigned k = 0; k < n; k++)
    edit_text(ed, "[0]");
  edit_text(ed, ")");
}

static void item_len(struct edit *ed, const struct unit_file *f,
                     const struct subscript *s) {
  if (!s->is_section) {
    edit_text(ed, "1");
    return;
  }
  edit_text(ed, "(size_t)(");
  expr(ed, f, &s->len);
  edit_text(ed, ")");
}

/* The item's first element: the whole item `(base)`, or the section's
 * `((base)[lo0]...[lo(n-1)])`, absent lows being 0. */
static void item_first(struct edit *ed, const struct unit_file *f,
                       const struct item *it) {
  if (it->nsubs == 0) {
    item_base(ed, f, it);
    return;
  }
  edit_text(ed, "(");
  item_base(ed, f, it);
  for (unsigned k = 0; k < it->nsubs; k++) {
    edit_text(ed, "[");
    if (it->subs[k].lo.text)
      expr(ed, f, &it->subs[k].lo);
    else
      edit_text(ed, "0");
    edit_text(ed, "]");
  }
  edit_text(ed, ")");
}

/* The mode of an access: for a reduction `DAG_REDUCE(op, type)`, the type
 * given by the scalar that the item's first element holds first; for an
 * item in a block modifier `DAG_SHAPED(mode, DAG_LOWER)` and the like. */
static void access_mode(struct edit *ed, const struct unit_file *f,
                        const struct clause *cl, const struct item *it) {
  if (it->part != DAG_FULL) {
    edit_text(ed, "DAG_SHAPED(%s, %s)", mode_name(cl->kind),
              part_enumerator(it->part));
    return;
  }
  static const char *const ops[] = {
#define REDUCE_OP_ENUMERATOR(id, spelling)                                     \
  [DAG_REDUCE_##id] = "DAG_REDUCE_" #id,
      DAG_REDUCE_OPS(REDUCE_OP_ENUMERATOR)
#undef REDUCE_OP_ENUMERATOR
  };
  if (cl->kind != CLAUSE_REDUCTION) {
    edit_text(ed, "%s", mode_name(cl->kind));
    return;
  }
  edit_text(ed, "DAG_REDUCE(%s, DAG_REDUCE_TYPE_OF(", ops[cl->reduce]);
  item_first(ed, f, it);
  for (unsigned k = 0; k < it->scalar_levels; k++)
    edit_text(ed, "[0]");
  edit_text(ed, "))");
}

/* One `struct dag_access` initializer. */
static void access(struct edit *ed, const struct unit_file *f,
                   const struct clause *cl, const struct item *it) {
  edit_text(ed, "{");
  access_mode(ed, f, cl, it);
  edit_text(ed, ", {(const void *)&");
  item_first(ed, f, it);
  if (it->nsubs == 0 && it->part != DAG_FULL) {
    /* A whole 2-D array, as the runtime takes a block: one row per span. */
    edit_text(ed, ", sizeof ");
    item_zeros(ed, f, it, 1);
    edit_text(ed, ", 1, {{sizeof ");
    item_base(ed, f, it);
    edit_text(ed, " / sizeof ");
    item_zeros(ed, f, it, 1);
    edit_text(ed, ", (ptrdiff_t)sizeof ");
    item_zeros(ed, f, it, 1);
    edit_text(ed, "}}}}");
    return;
  }
  if (it->nsubs == 0) {
    edit_text(ed, ", sizeof ");
    item_base(ed, f, it);
    edit_text(ed, ", 0, {{0, 0}}}}");
    return;
  }
  edit_text(ed, ", ");
  item_len(ed, f, &it->subs[it->nsubs - 1]);
  edit_text(ed, " * sizeof ");
  item_zeros(ed, f, it, it->nsubs);
  edit_text(ed, ", %u, {", it->nsubs - 1);
  for (unsigned k = 0; k + 1 < it->nsubs; k++) {
    edit_text(ed, "%s{", k ? ", " : "");
    item_len(ed, f, &it->subs[k]);
    edit_text(ed, ", (ptrdiff_t)sizeof ");
    item_zeros(ed, f, it, k + 1);
    edit_text(ed, "}");
  }
  edit_text(ed, "%s}}}", it->nsubs == 1 ? "{0, 0}" : "");
}

/* The accesses of a directive's dependency clauses (or of a taskwait's
 * on()); returns how many. */
static unsigned accesses(struct edit *ed, const struct unit_file *f,
                         const struct directive *d) {
  unsigned n = 0;
  for (unsigned c = 0; c < d->nclauses; c++) {
    const struct clause *cl = &d->clauses[c];
    bool deps = clause_is_dependency(cl->kind) ||
                (d->kind == DIRECTIVE_TASKWAIT && cl->kind == CLAUSE_ON);
    for (unsigned i = 0; deps && i < cl->nitems; i++) {
      edit_text(ed,
                n ? ",\n    " : "\nstruct dag_access __dag_acc[] = {\n    ");
      access(ed, f, cl, &cl->items[i]);
      n++;
    }
  }
  if (n)
    edit_text(ed, "};\n");
  return n;
}

/* An item as written, on one line: backslash-newlines and runs of white
 * space become one space. */
static void item_as_written(struct buf *out, const struct unit_file *f,
                            const struct item *it) {
  struct buf text = {0};
  bool space = false;
  for (unsigned k = it->at.begin; k < it->at.end; k++) {
    char c = f->src.text[k];
    if (c == '\\' && k + 1 < it->at.end &&
        (f->src.text[k + 1] == '\n' || f->src.text[k + 1] == '\r'))
      continue;
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      space = text.len > 0;
      continue;
    }
    if (space)
      buf_add(&text, " ", 1);
    space = false;
    buf_add(&text, &c, 1);
  }
  buf_c_string(out, text.s ? text.s : "");
  buf_release(&text);
}

/* The items of the accesses that accesses() wrote, as written, for the
 * runtime's messages about one of them. */
static void access_items(struct edit *ed, const struct unit_file *f,
                         const struct directive *d) {
  edit_text(ed, "static const char *const __dag_items[] = {");
  unsigned n = 0;
  for (unsigned c = 0; c < d->nclauses; c++) {
    const struct clause *cl = &d->clauses[c];
    for (unsigned i = 0; clause_is_dependency(cl->kind) && i < cl->nitems;
         i++) {
      struct buf text = {0};
      item_as_written(&text, f, &cl->items[i]);
      edit_text(ed, "%s%s", n++ ? ", " : "", text.s);
      buf_release(&text);
    }
  }
  edit_text(ed, "};\n");
}

static const struct clause *find_clause(const struct directive *d,
                                        enum clause_kind kind) {
  for (unsigned c = 0; c < d->nclauses; c++)
    if (d->clauses[c].kind == kind)
      return &d->clauses[c];
  return NULL;
}

/* `static const struct dag_task_info __dag_info = {...};` (not static when
 * a clause is evaluated at submission). */
static const char *device_constant(const struct directive *d) {
  static const char *const enumerators[DAG_NDEVICE_KINDS] = {
#define DEVICE_ENUMERATOR(id, name) [DAG_DEVICE_##id] = "DAG_DEVICE_" #id,
      DAG_DEVICE_KINDS(DEVICE_ENUMERATOR)
#undef DEVICE_ENUMERATOR
  };
  const struct clause *dev = find_clause(d, CLAUSE_DEVICE);
  return enumerators[dev ? dev->device : DAG_DEVICE_CPU];
}

static void task_info(struct edit *ed, const struct unit_file *f,
                      const struct directive *d, const char *body,
                      const char *default_label, const char *variants,
                      unsigned nvariants, unsigned naccesses,
                      unsigned npointers, const char *work) {
  const struct clause *priority = find_clause(d, CLAUSE_PRIORITY);
  const struct clause *cond = find_clause(d, CLAUSE_IF);
  const struct clause *label = find_clause(d, CLAUSE_LABEL);
  const struct clause *on = find_clause(d, CLAUSE_ON);
  unsigned line, col;
  source_position(&f->src, d->at.begin, &line, &col);
  edit_text(ed, "%sconst struct dag_task_info __dag_info = {%s, ",
            priority || cond || on ? "" : "static ", body);
  if (label)
    edit_text(ed, "%s", label->arg.text);
  else if (default_label)
    edit_text(ed, "\"%s\"", default_label);
  else
    edit_text(ed, "0");
  struct buf path = {0};
  buf_c_string(&path, f->src.path);
  edit_text(ed, ", %s, %u, ", path.s, line);
  buf_release(&path);
  if (priority) {
    edit_text(ed, "(int)(");
    expr(ed, f, &priority->arg);
    edit_text(ed, "), ");
  } else {
    edit_text(ed, "0, ");
  }
  if (cond) {
    edit_text(ed, "((");
    expr(ed, f, &cond->arg);
    edit_text(ed, ") ? 0u : DAG_TASK_UNDEFERRED)");
  } else {
    edit_text(ed, "0u");
  }
  edit_text(ed, "%s, %s, %s, %u, ", on ? " | DAG_TASK_ON_RANK" : "",
            device_constant(d), variants ? variants : "0", nvariants);
  if (on) {
    edit_text(ed, "(int)(");
    expr(ed, f, &on->arg);
    edit_text(ed, ")");
  } else {
    edit_text(ed, "0");
  }
  edit_text(ed, ", %s, %s, %u, %s};\n", naccesses ? "__dag_items" : "0",
            npointers ? "__dag_pointers" : "0", npointers, work ? work : "0");
}

/* Whether the runtime must know which members of the task's argument block
 * are pointers: to give a body that may run on a device (its own clause,
 * or a variant's) the device addresses, and a reduction's body its private
 * copy. */
static bool lists_pointers(const struct directive *d, unsigned nvariants) {
  const struct clause *dev = find_clause(d, CLAUSE_DEVICE);
  return nvariants > 0 || (dev && dev->device != DAG_DEVICE_CPU) ||
         find_clause(d, CLAUSE_REDUCTION);
}

/* One run of `static const struct dag_pointers __dag_pointers[]`: member
 * `name` of `type`, all pointers. */
static void pointer_run(struct edit *ed, const char *type, const char *name,
                        unsigned *n) {
  edit_text(ed,
            "%s{__builtin_offsetof(%s, %s), sizeof ((%s *)0)->%s / sizeof "
            "(void *)}",
            *n ? ", " : "static const struct dag_pointers __dag_pointers[] = {",
            type, name, type, name);
  ++*n;
}

static unsigned pointer_runs_end(struct edit *ed, unsigned n) {
  if (n)
    edit_text(ed, "};\n");
  return n;
}

/* The pointer members of a statement task's argument struct, which a
 * device body gets as device addresses, and a reduction's body as
 * addresses in its private copy; returns how many. */
static unsigned statement_pointers(struct edit *ed, const struct task *t,
                                   unsigned index) {
  char type[40];
  snprintf(type, sizeof type, "struct __dag_args_%u", index);
  unsigned n = 0;
  for (unsigned i = 0; i < t->nvars; i++) {
    const struct capture_var *v = &t->vars[i];
    if (v->how == CAPTURE_VALUE ? v->pointers : v->how != CAPTURE_PRIVATE)
      pointer_run(ed, type, v->name, &n);
  }
  return pointer_runs_end(ed, n);
}

/* The pointer parameters of task function `fn`, as statement_pointers. */
static unsigned function_pointers(struct edit *ed,
                                  const struct task_function *fn) {
  char type[300];
  snprintf(type, sizeof type, "struct __dag_fargs_%s", fn->name);
  unsigned n = 0;
  for (unsigned i = 0; i < fn->nparams; i++)
    if (fn->params[i].pointer)
      pointer_run(ed, type, fn->params[i].name, &n);
  return pointer_runs_end(ed, n);
}

/* ------------------------------------------------ tasks on statements */

/* How the code at task `context` (-1: outside every task) names `name`. */
static void reference(struct emitter *em, struct edit *ed, int context,
                      const char *name, unsigned key) {
  if (context >= 0) {
    const struct task *p = &em->s->tasks[context];
    for (unsigned v = 0; v < p->nvars; v++)
      if (p->vars[v].key == key && (p->vars[v].how == CAPTURE_SHARED ||
                                    p->vars[v].how == CAPTURE_SHARED_VM)) {
        edit_text(ed, "(*__dag_sh_%s)", name);
        return;
      }
  }
  edit_text(ed, "%s", name);
}

/* Whether any variable of task `t` travels in its argument struct. */
static bool has_arguments(const struct task *t) {
  for (unsigned i = 0; i < t->nvars; i++)
    if (t->vars[i].how != CAPTURE_PRIVATE)
      return true;
  return false;
}

static void member_declarations(struct edit *ed, const struct task *t) {
  for (unsigned i = 0; i < t->nvars; i++) {
    const struct capture_var *v = &t->vars[i];
    switch (v->how) {
    case CAPTURE_VALUE:
      edit_text(ed, "__typeof__(%s) %s;\n", v->type, v->name);
      break;
    case CAPTURE_PRIVATE:
      break;
    case CAPTURE_SHARED:
      edit_text(ed, "__typeof__(%s) *%s;\n", v->type, v->name);
      break;
    case CAPTURE_VALUE_VM:
    case CAPTURE_SHARED_VM:
      edit_text(ed, "void *%s;\n", v->name);
      for (unsigned d = 0; d < v->ndims; d++)
        edit_text(ed, "size_t %s__dag_d%u;\n", v->name, d);
      break;
    }
  }
}

/* `(*__dag_sh_a)[d0][d1]`-style declarator dimensions from the struct. */
static void vm_dims(struct edit *ed, const struct capture_var *v) {
  for (unsigned d = 0; d < v->ndims; d++)
    edit_text(ed, "[__dag_a->%s__dag_d%u]", v->name, d);
}

static void body_declarations(struct edit *ed, const struct task *t) {
  for (unsigned i = 0; i < t->nvars; i++) {
    const struct capture_var *v = &t->vars[i];
    switch (v->how) {
    case CAPTURE_VALUE:
      if (v->is_array)
        edit_text(ed,
                  "__typeof__(%s) %s;\n__builtin_memcpy((void *)&%s, "
                  "&__dag_a->%s, sizeof %s);\n",
                  v->type, v->name, v->name, v->name, v->name);
      else
        edit_text(ed, "__typeof__(%s) %s = __dag_a->%s;\n", v->type, v->name,
                  v->name);
      break;
    case CAPTURE_PRIVATE:
      edit_text(ed, "__typeof__(%s) %s;\n", v->type, v->name);
      break;
    case CAPTURE_SHARED:
      edit_text(ed, "__typeof__(%s) *const __dag_sh_%s = __dag_a->%s;\n",
                v->type, v->name, v->name);
      break;
    case CAPTURE_VALUE_VM:
      edit_text(ed, "__typeof__(%s) (*%s)", v->elem, v->name);
      vm_dims(ed, v);
      edit_text(ed, " = __dag_a->%s;\n", v->name);
      break;
    case CAPTURE_SHARED_VM:
      edit_text(ed, "__typeof__(%s) (*const __dag_sh_%s)", v->elem, v->name);
      vm_dims(ed, v);
      edit_text(ed, " = __dag_a->%s;\n", v->name);
      break;
    }
  }
}

/* Before the function that holds the task: the argument struct and the
 * body's prototype, for the submission. */
static void declare_body(struct emitter *em, unsigned n) {
  const struct task *t = &em->s->tasks[n];
  struct edit *ed = edits_add(
      em->e, (struct span){t->toplevel.begin, t->toplevel.begin}, false);
  edit_piece(ed, PIECE_LINE, &t->file->src, NULL, directive_of(t)->at);
  edit_text(ed, "static void __dag_body_%u(void *__dag_v);\n", n);
}

/* `struct __dag_args_N { captured variables }`, declared where the task is
 * submitted and again in its body, each time in the scope of the types it
 * names: two declarations of one layout. */
static void argument_struct(struct edit *ed, const struct task *t, unsigned n) {
  edit_text(ed, "struct __dag_args_%u {\n", n);
  member_declarations(ed, t);
  edit_text(ed, "}");
}

/* The outlined body, after the function that holds the task, where every
 * declaration the function sees at file scope is visible, the function
 * itself included (a body may call it); the function's own declarations
 * that the body needs come first, as the user wrote them. */
static void outline(struct emitter *em, unsigned n) {
  const struct task *t = &em->s->tasks[n];
  const struct unit_file *f = t->file;
  struct edit *ed =
      edits_add(em->e, (struct span){t->toplevel.end, t->toplevel.end}, false);
  edit_piece(ed, PIECE_LINE, &f->src, NULL, directive_of(t)->at);
  edit_text(ed, "static void __dag_body_%u(void *__dag_v) {\n", n);
  for (unsigned i = 0; i < t->nlocals; i++) {
    edit_piece(ed, PIECE_SOURCE, &f->src, NULL, t->locals[i]);
    edit_text(ed, ";");
  }
  if (t->nlocals)
    edit_piece(ed, PIECE_LINE, &f->src, NULL, directive_of(t)->at);
  if (has_arguments(t)) {
    argument_struct(ed, t, n);
    edit_text(ed, ";\nstruct __dag_args_%u *__dag_a = __dag_v;\n", n);
  } else {
    edit_text(ed, "(void)__dag_v;\n");
  }
  body_declarations(ed, t);
  edit_piece(ed, PIECE_SOURCE, &f->src, NULL, t->body);
  edit_text(ed, "\n}\n");
}

/* `{.x = x, .p = &s, ...}` for the task's argument struct, evaluated where
 * the task is submitted. */
static void argument_values(struct emitter *em, struct edit *ed,
                            const struct task *t) {
  argument_struct(ed, t, (unsigned)(t - em->s->tasks));
  edit_text(ed, " __dag_args = {");
  for (unsigned i = 0; i < t->nvars; i++) {
    const struct capture_var *v = &t->vars[i];
    if ((v->how == CAPTURE_VALUE && v->is_array) || v->how == CAPTURE_PRIVATE)
      continue;
    edit_text(ed, "\n  .%s = %s", v->name,
              v->how == CAPTURE_SHARED      ? "&"
              : v->how == CAPTURE_SHARED_VM ? "(void *)&"
              : v->how == CAPTURE_VALUE_VM  ? "(void *)"
                                            : "");
    reference(em, ed, t->parent, v->name, v->key);
    edit_text(ed, ",");
    /* Each dimension of a variable-length array, as the submitter sees
     * it: sizeof(X) / sizeof(X[0]) with X = *p, (*p)[0], ... */
    for (unsigned d = 0; d < v->ndims; d++) {
      edit_text(ed, "\n  .%s__dag_d%u = sizeof((", v->name, d);
      if (v->how == CAPTURE_VALUE_VM)
        edit_text(ed, "*");
      reference(em, ed, t->parent, v->name, v->key);
      edit_text(ed, ")");
      for (unsigned z = 0; z < d; z++)
        edit_text(ed, "[0]");
      edit_text(ed, ") / sizeof((");
      if (v->how == CAPTURE_VALUE_VM)
        edit_text(ed, "*");
      reference(em, ed, t->parent, v->name, v->key);
      edit_text(ed, ")");
      for (unsigned z = 0; z <= d; z++)
        edit_text(ed, "[0]");
      edit_text(ed, "),");
    }
  }
  edit_text(ed, "};\n");
  for (unsigned i = 0; i < t->nvars; i++) {
    const struct capture_var *v = &t->vars[i];
    if (v->how != CAPTURE_VALUE || !v->is_array)
      continue;
    edit_text(ed, "__builtin_memcpy((void *)&__dag_args.%s, &", v->name);
    reference(em, ed, t->parent, v->name, v->key);
    edit_text(ed, ", sizeof __dag_args.%s);\n", v->name);
  }
}

static void submit_call(struct edit *ed, bool has_args, unsigned naccesses) {
  edit_text(ed, "dag_check(dag_submit(&__dag_info, %s, %s, %s, %uu));\n",
            has_args ? "&__dag_args" : "0",
            has_args ? "sizeof __dag_args" : "0", naccesses ? "__dag_acc" : "0",
            naccesses);
}

static void submit_statement(struct emitter *em, unsigned n) {
  const struct task *t = &em->s->tasks[n];
  const struct unit_file *f = t->file;
  const struct directive *d = directive_of(t);
  /* The submission takes the directive's place and the statement goes to
   * its outlined body; what lies between (a preprocessor line, say) stays. */
  edits_add(em->e, t->body, false)->moved = true;
  struct edit *ed = edits_add(em->e, d->at, false);
  edit_piece(ed, PIECE_LINE, &f->src, NULL, d->at);
  edit_text(ed, "{\n");
  for (unsigned i = 0; i < t->nlocal_names; i++)
    edit_text(ed, t->local_names[i].type ? "(void)(%s *)0;\n" : "(void)&%s;\n",
              t->local_names[i].name);
  /* The submitter's variable that a private one stands for stays used
   * (-Wunused-variable), and is not read. */
  for (unsigned i = 0; i < t->nvars; i++)
    if (t->vars[i].how == CAPTURE_PRIVATE) {
      edit_text(ed, "(void)sizeof ");
      reference(em, ed, t->parent, t->vars[i].name, t->vars[i].key);
      edit_text(ed, ";\n");
    }
  if (has_arguments(t))
    argument_values(em, ed, t);
  unsigned na = accesses(ed, f, d);
  if (na)
    access_items(ed, f, d);
  char body[32];
  snprintf(body, sizeof body, "__dag_body_%u", n);
  unsigned np = has_arguments(t) && lists_pointers(d, 0)
                    ? statement_pointers(ed, t, n)
                    : 0;
  task_info(ed, f, d, body, t->label, NULL, 0, na, np, NULL);
  submit_call(ed, has_arguments(t), na);
  edit_text(ed, "}");
}

static void taskwait(struct emitter *em, const struct task *t) {
  const struct unit_file *f = t->file;
  const struct directive *d = directive_of(t);
  struct edit *ed = edits_add(em->e, t->replace, false);
  edit_piece(ed, PIECE_LINE, &f->src, NULL, d->at);
  edit_text(ed, "{");
  unsigned na = accesses(ed, f, d);
  if (na)
    edit_text(ed, "dag_check(dag_taskwait_on(__dag_acc, %uu));\n", na);
  else if (find_clause(d, CLAUSE_NOFLUSH))
    edit_text(ed, " dag_check(dag_taskwait_noflush()); ");
  else
    edit_text(ed, " dag_check(dag_taskwait()); ");
  edit_text(ed, "}");
}

/* ---------------------------------------------------- task functions */

static void wrapper_parameters(struct edit *ed,
                               const struct task_function *fn) {
  edit_text(ed, "(");
  for (unsigned i = 0; i < fn->nparams; i++)
    edit_text(ed, "%s__typeof__(%s) %s", i ? ", " : "", fn->params[i].type,
              fn->params[i].name);
  edit_text(ed, fn->nparams ? ")" : "void)");
}

/* `static void <body>(void *)`: calls `callee` with the arguments of task
 * function `fn`'s argument struct. */
static void call_body(struct edit *ed, const struct task_function *fn,
                      const char *body, const char *callee) {
  edit_text(ed, "static void %s(void *__dag_v) {\n", body);
  if (fn->nparams)
    edit_text(ed, "struct __dag_fargs_%s *__dag_a = __dag_v;\n  %s(", fn->name,
              callee);
  else
    edit_text(ed, "(void)__dag_v;\n  %s(", callee);
  for (unsigned i = 0; i < fn->nparams; i++)
    edit_text(ed, "%s__dag_a->%s", i ? ", " : "", fn->params[i].name);
  edit_text(ed, ");\n}\n");
}

/* The variants of `fn` (`implements(fn)`): their bodies and their table,
 * `__dag_variants_<fn>`. Returns how many. */
static unsigned variants(struct emitter *em, struct edit *ed, unsigned index) {
  const struct task_function *fn = &em->s->functions[index];
  unsigned n = 0;
  for (unsigned v = 0; v < em->s->nfunctions; v++)
    if (em->s->functions[v].implements == (int)index) {
      char body[600];
      snprintf(body, sizeof body, "__dag_vbody_%s_%s", fn->name,
               em->s->functions[v].name);
      call_body(ed, fn, body, em->s->functions[v].name);
      n++;
    }
  if (n == 0)
    return 0;
  edit_text(ed, "static const struct dag_variant __dag_variants_%s[] = {",
            fn->name);
  for (unsigned v = 0; v < em->s->nfunctions; v++) {
    const struct task_function *var = &em->s->functions[v];
    if (var->implements == (int)index)
      edit_text(ed, "{__dag_vbody_%s_%s, %s}, ", fn->name, var->name,
                device_constant(&var->file->dirs[var->directive]));
  }
  edit_text(ed, "};\n");
  return n;
}

/* `work(expr)`: `static double <name>(const void *)`, expr evaluated with
 * the parameters of task function `fn` from its argument struct. */
static void work_function(struct edit *ed, const struct unit_file *f,
                          const struct task_function *fn,
                          const struct clause *work, const char *name) {
  edit_text(ed, "static double %s(const void *__dag_v) {\n", name);
  if (fn->nparams)
    edit_text(ed, "const struct __dag_fargs_%s *__dag_a = __dag_v;\n",
              fn->name);
  else
    edit_text(ed, "(void)__dag_v;\n");
  for (unsigned i = 0; i < fn->nparams; i++)
    if (fn->params[i].vm)
      edit_text(ed, "void *%s = __dag_a->%s; (void)%s;\n", fn->params[i].name,
                fn->params[i].name, fn->params[i].name);
    else
      edit_text(ed, "__typeof__(%s) %s = __dag_a->%s; (void)%s;\n",
                fn->params[i].type, fn->params[i].name, fn->params[i].name,
                fn->params[i].name);
  edit_text(ed, "return (double)(");
  expr(ed, f, &work->arg);
  edit_text(ed, ");\n}\n");
}

/* The argument struct, the body that calls the function, its variants and
 * the wrapper that submits it: the calls of the function go to it. */
static void function_wrapper(struct emitter *em, unsigned index, unsigned at) {
  const struct task_function *fn = &em->s->functions[index];
  const struct unit_file *f = fn->file;
  const struct directive *d = &f->dirs[fn->directive];
  struct edit *ed = edits_add(em->e, (struct span){at, at}, false);
  edit_piece(ed, PIECE_LINE, &f->src, NULL, d->at);
  const char *name = fn->name;
  if (fn->nparams) {
    edit_text(ed, "struct __dag_fargs_%s {", name);
    for (unsigned i = 0; i < fn->nparams; i++)
      if (fn->params[i].vm)
        edit_text(ed, " void *%s;", fn->params[i].name);
      else
        edit_text(ed, " __typeof__(%s) %s;", fn->params[i].type,
                  fn->params[i].name);
    edit_text(ed, " };\n");
  }
  char body[300], table[300];
  snprintf(body, sizeof body, "__dag_fbody_%s", name);
  snprintf(table, sizeof table, "__dag_variants_%s", name);
  call_body(ed, fn, body, name);
  unsigned nvariants = variants(em, ed, index);
  const struct clause *work = find_clause(d, CLAUSE_WORK);
  char work_fn[300];
  snprintf(work_fn, sizeof work_fn, "__dag_fwork_%s", name);
  if (work)
    work_function(ed, f, fn, work, work_fn);
  edit_text(ed, "static inline void __dag_task_%s", name);
  wrapper_parameters(ed, fn);
  edit_text(ed, " {\n");
  if (fn->nparams) {
    edit_text(ed, "struct __dag_fargs_%s __dag_args = {", name);
    for (unsigned i = 0; i < fn->nparams; i++)
      edit_text(ed, "%s%s%s", i ? ", " : "", fn->params[i].vm ? "(void *)" : "",
                fn->params[i].name);
    edit_text(ed, "};\n");
  }
  unsigned na = accesses(ed, f, d);
  if (na)
    access_items(ed, f, d);
  unsigned np = lists_pointers(d, nvariants) ? function_pointers(ed, fn) : 0;
  task_info(ed, f, d, body, name, nvariants ? table : NULL, nvariants, na, np,
            work ? work_fn : NULL);
  submit_call(ed, fn->nparams > 0, na);
  edit_text(ed, "}\n");
}

/* Where the wrapper of task function `index` goes: after its declaration
 * and every variant's in the main file, or before the first call for a
 * function of a header. */
static unsigned wrapper_position(const struct sema *s, unsigned index) {
  const struct task_function *fn = &s->functions[index];
  unsigned at = fn->in_main ? fn->decl.end : fn->first_use;
  for (unsigned v = 0; v < s->nfunctions; v++)
    if (s->functions[v].implements == (int)index && s->functions[v].in_main &&
        s->functions[v].decl.end > at)
      at = s->functions[v].decl.end;
  return at;
}

static void task_function(struct emitter *em, unsigned index) {
  const struct task_function *fn = &em->s->functions[index];
  if (!fn->in_main && !fn->used)
    return;
  /* A declaration of the wrapper where the directive was (or before the
   * first call), so that calls before the wrapper, such as the function's
   * own recursive calls, reach it. */
  const struct directive *d = &fn->file->dirs[fn->directive];
  bool at_directive = fn->in_main && (!fn->used || fn->first_use > d->at.begin);
  struct edit *ed =
      at_directive
          ? edits_add(em->e, d->at, false)
          : edits_add(em->e, (struct span){fn->first_use, fn->first_use},
                      false);
  edit_text(ed, "static inline void __dag_task_%s", fn->name);
  wrapper_parameters(ed, fn);
  edit_text(ed, ";%s", at_directive ? "" : "\n");
  if (fn->in_main && !at_directive) /* the directive goes all the same */
    edits_add(em->e, d->at, false);
  function_wrapper(em, index, wrapper_position(em->s, index));
}

/* ------------------------------------------------- the ways out of main */

/* The wait before main returns: that of a taskwait, when the runtime runs
 * (dag_worker_id() is -1 before the first task, and after dag_finalize or
 * MPI_Finalize, where dag_taskwait would fail). */
static const char main_wait[] =
    "static inline void __dag_main_wait(void) { if (dag_worker_id() >= 0) "
    "dag_check(dag_taskwait()); }";

/* main waits for the tasks before each return, the return's expression
 * after the wait (`for (wait;;) return e;` is one statement, as `return
 * e;` was), and at the end of its body; a return that a macro spells, by
 * `return` defined as that for the macro's invocation. The `for` goes on a
 * line of its own, so that the return keeps its line and column, unless
 * the return is in a macro's argument, where a #line cannot be. Only in a
 * file with tasks or task functions: one with neither (its directives all
 * in skipped #if groups) is left alone. */
static void main_waits(struct emitter *em) {
  const struct sema *s = em->s;
  const struct main_function *m = &s->main_fn;
  if (!m->present || (s->ntasks == 0 && s->nfunctions == 0))
    return;
  const struct source *src = &s->files[0].src;
  struct span begin = {m->begin, m->begin};
  struct edit *ed = edits_add(em->e, begin, false);
  edit_piece(ed, PIECE_LINE, src, NULL, begin);
  edit_text(ed, "%s\n", main_wait);
  for (unsigned i = 0; i < m->nreturns; i++) {
    const struct main_return *r = &m->returns[i];
    if (!r->macro) {
      ed = edits_add(em->e, r->at, r->in_argument);
      edit_text(ed, "for (__dag_main_wait();;)%s", r->in_argument ? " " : "");
      continue;
    }
    ed = edits_add(em->e, (struct span){r->at.begin, r->at.begin}, false);
    edit_directive(ed, "#pragma push_macro(\"return\")");
    /* clang -pedantic: "keyword is hidden by macro definition". */
    edit_directive(ed, "#ifdef __clang__");
    edit_directive(ed, "#pragma clang diagnostic push");
    edit_directive(ed, "#pragma clang diagnostic ignored \"-Wkeyword-macro\"");
    edit_directive(ed, "#endif");
    edit_directive(ed, "#define return for (__dag_main_wait();;) return");
    edit_directive(ed, "#ifdef __clang__");
    edit_directive(ed, "#pragma clang diagnostic pop");
    edit_directive(ed, "#endif");
    ed = edits_add(em->e, (struct span){r->at.end, r->at.end}, false);
    edit_directive(ed, "#pragma pop_macro(\"return\")");
  }
  if (m->falls_off)
    edit_text(edits_add(em->e, (struct span){m->end, m->end}, true),
              "__dag_main_wait(); ");
}

void emit_edits(const struct sema *s, struct edits *e) {
  struct emitter em = {s, e};
  main_waits(&em);
  /* Directives of the main file that did not become tasks (inactive ones)
   * are left alone: the compiler ignores them as cc would. */
  for (unsigned f = 0; f < s->nfunctions; f++)
    task_function(&em, f);
  for (unsigned n = 0; n < s->ntasks; n++)
    if (s->tasks[n].kind == TASK_STATEMENT) {
      declare_body(&em, n);
      outline(&em, n);
    }
  for (unsigned n = 0; n < s->ntasks; n++) {
    const struct task *t = &s->tasks[n];
    switch (t->kind) {
    case TASK_STATEMENT:
      submit_statement(&em, n);
      break;
    case TASK_TASKWAIT:
      taskwait(&em, t);
      break;
    case TASK_CALL: {
      struct edit *ed = edits_add(e, t->replace, true);
      edit_text(ed, "__dag_task_%s", s->functions[t->function].name);
      break;
    }
    }
  }
  for (unsigned r = 0; r < s->nrefs; r++) {
    const struct shared_ref *ref = &s->refs[r];
    struct edit *ed = edits_add(e, ref->at, true);
    edit_text(ed, "(*__dag_sh_%s)", s->tasks[ref->task].vars[ref->var].name);
  }
}

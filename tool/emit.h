/* emit.h: from the analysis of a file to the edits that make it call the
 * runtime (include/dag.h): outlined task bodies with their argument
 * structs, submission code in place of each directive and statement,
 * wrappers for task functions. */
#ifndef DAG_TOOL_EMIT_H
#define DAG_TOOL_EMIT_H

#include "rewrite.h"
#include "sema.h"

/* Fills `e` (for s->files[0]) with the edits of every task. */
void emit_edits(const struct sema *s, struct edits *e);

#endif

/* planted_upward_call.c — a transport that calls up into the planner: the
 * layer check must find it (tests/layers). Compiled, never linked. */
#include "plan/plan.h"

int planted_upward_call(void) { return dag__plan_taskwait(true); }

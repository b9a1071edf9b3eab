/* A file without dag pragmas is passed through untouched, even with other
 * pragmas and a mention of "#pragma dag task" in a string or comment. */
#pragma once
#pragma GCC diagnostic push
static const char *doc = "#pragma dag task in(x)";
/* #pragma dag task out(y) */
int f(void) { return doc[0]; }
#pragma GCC diagnostic pop

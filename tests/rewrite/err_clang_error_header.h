/* A C error in a header of err_clang_error_header.c. */
static inline int broken(void) { return nope; }

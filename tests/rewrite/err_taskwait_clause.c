/* Clauses of task are errors on taskwait; on() and noflush are its own. */
void f(int *a) {
#pragma dag taskwait in(*a) priority(2)
#pragma dag taskwait on(*a) noflush label("x")
}

/* The task function of function_task_header.c, declared in a header. */
#ifndef FUNCTION_TASK_HEADER_H
#define FUNCTION_TASK_HEADER_H

#pragma dag task inout(v[:n])
void normalize(double *v, int n);

#endif

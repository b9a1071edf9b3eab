/* At file scope: taskwait has no place, and task needs a function
 * declaration after it. */
#pragma dag taskwait

#pragma dag task in(x)
int x;

/* Found through `#include "local.h"` next to task.c, wherever dagcc runs. */
#define LOCAL_TERMS 4

/* guard.c - storage of the recursion guard (see guard.h).  GPL-3.0-or-later. */
#include "guard.h"

__thread int mt_in_tracer __attribute__((tls_model("initial-exec")));

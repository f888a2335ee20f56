/* SPDX-License-Identifier: GPL-3.0-or-later */
/* guard.c - storage of the recursion guard (see guard.h). */
#include "base/guard.h"

__thread int mt_in_tracer __attribute__((tls_model("initial-exec")));

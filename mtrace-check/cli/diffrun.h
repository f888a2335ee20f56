/* SPDX-License-Identifier: GPL-3.0-or-later */
/* diffrun.h - mtrace-check --diff [BINARY] OLD NEW: both logs replayed and
 * judged as for their own reports, then compared (findings/diff.h) and
 * the comparison written by the report's writer (text or --json) and by
 * --html (output/diffout.h).
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_DIFFRUN_H
#define MTC_DIFFRUN_H

#include "options/options.h"

/* Whether the other options go with --diff; 0 after the message. */
int diff_options_ok(const struct options *opt, int nlogs);
/* Runs the comparison; returns the exit status (0, 1: NEW has new leaks
 * of the --fail-on classes, 2: trouble, told). */
int diff_run(struct options *opt, const char *binary, const char *old,
             const char *new);

#endif

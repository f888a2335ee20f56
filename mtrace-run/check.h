/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check.h - mtrace-run's report: mtrace-check run on the logs of the
 * process tree, valgrind's options translated to its own (--valgrind,
 * --xml, --show-leak-kinds, --fail-on, --num-callers, --suppressions,
 * --valgrind-suppressions), its standard output sent where valgrind's report
 * goes (standard error, --log-file, --log-fd).  A --log-file or
 * --xml-file with %p gets one check per process; otherwise one check of
 * every log: each process under its own pid, then their summary.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTR_CHECK_H
#define MTR_CHECK_H

#include "options.h"
#include "rundir.h"

/* Returns mtrace-check's status: 0 no errors, 1 leaks of the error kinds,
 * 2 trouble (told). */
int check_logs(const char *checker, const struct run_options *o,
               const struct run_log *logs, int n);
/* NAME with %p (PID), %q{VAR} and %% replaced; malloc'd, or NULL. */
char *expand_name(const char *name, long pid);

#endif

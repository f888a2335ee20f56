/* SPDX-License-Identifier: GPL-3.0-or-later */
/* ldtrace.h - the load addresses glibc's Perl checker learns by running
 * `env LD_TRACE_LOADED_OBJECTS=2 BINARY` and matching each output line
 * against /^.*=> (.*) .(0x[0123456789abcdef]*).$/ (after chop): a map from
 * the library path to hex() of its load address.  The Perl script then
 * tries ADDR + that base before ADDR itself.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#ifndef MTC_LDTRACE_H
#define MTC_LDTRACE_H

#include "base/maps.h"

#include <sys/types.h>

/* A run of `LD_TRACE_LOADED_OBJECTS=2 PROG` started in the background (as
 * the script starts it before reading the log), collected when needed. */
struct ldtrace_run {
    pid_t pid; /* 0: not running */
    int fd;    /* its standard output */
};

/* Start PROG when it is an ELF file with a program interpreter, where
 * ld.so lists the libraries and exits instead of running it; otherwise
 * nothing is started (the Perl script would get no matching line from a
 * failed or foreign run either).  Call before any thread is created. */
void ldtrace_start(const char *prog, struct ldtrace_run *run);

/* Wait for the run (10 s at most) and fill MAP (path -> heap uint64_t *)
 * from its output.  Does nothing when no run was started. */
void ldtrace_collect(struct ldtrace_run *run, struct strmap *map);

/* End a run whose output is not needed. */
void ldtrace_cancel(struct ldtrace_run *run);

/* Apply one line of ld.so's output (without its newline) to MAP, exactly
 * as the Perl loop does.  Exposed for the unit tests. */
void ldtrace_parse_line(struct slice line, struct strmap *map);

#endif

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rundir.h - the run directory of mtrace-run: every traced process of the
 * tree writes its log there (MALLOC_TRACE=DIR/trace.%p: trace.PID, a
 * fork child's header saying forked-from=PPID; README.md "Log files of
 * forked and exec'd processes"), and the logs are listed back in the
 * order the report gives them: the program's own first, then by pid.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTR_RUNDIR_H
#define MTR_RUNDIR_H

struct run_log {
    char *path;
    long pid;   /* from the "#v" header; -1: none */
    int forked; /* the header says forked-from= */
};

/* A directory for the logs: DIR (created if missing) when given, else a
 * fresh one under $TMPDIR.  Returns its malloc'd path, or NULL (told). */
char *rundir_make(const char *dir);
/* The logs in DIR, not empty ones, ROOT's first; *N gets their number. */
struct run_log *rundir_logs(const char *dir, long root, int *n);
void rundir_free(struct run_log *logs, int n);
/* Remove DIR (a temporary one) and the files in it. */
void rundir_remove(const char *dir);

#endif

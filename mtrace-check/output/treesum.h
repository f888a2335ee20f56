/* SPDX-License-Identifier: GPL-3.0-or-later */
/* treesum.h - several logs checked in one run (a process tree's run
 * directory): what each process's report said, kept small (pid, program,
 * how it ended, sums by class with their loss records, the check's
 * status), and summed over them all.  The text report ends with the
 * combined summary (treesum_text), the run's HTML page (runpage.h) is
 * made from the same rows.  A single log never gets here: its report
 * stays as it was.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_TREESUM_H
#define MTC_TREESUM_H

#include "findings/findings.h"

#include <stdint.h>
#include <stdio.h>

/* The rows of the sums: memcheck's classes, blocks allocated after the
 * last scan, blocks of a log without verdicts, and suppressed blocks. */
enum tree_row {
    TREE_DEFINITE,
    TREE_INDIRECT,
    TREE_POSSIBLE,
    TREE_REACHABLE,
    TREE_UNKNOWN,   /* not classified (allocated after the last scan) */
    TREE_NOTFREED,  /* not freed, no reachability verdict */
    TREE_SUPPRESSED,
    TREE_ROWS
};

struct tree_sum {
    uint64_t bytes, blocks, records;
};

struct tree_proc {
    char *log;
    char *program;        /* "#p", or NULL */
    uint64_t pid, ppid;   /* 0: the log does not say */
    int checked;          /* the log's findings were written */
    int extended;         /* libmtrace's log ("#v") */
    int classified;       /* reported by class */
    char end[48];         /* "exit", "signal 11 (SIGSEGV)", "cut short" */
    struct tree_sum row[TREE_ROWS];
    uint64_t lost_bytes, lost_blocks; /* the leaks (lost or not freed) */
    int failing;          /* its leaks count toward the exit status */
    int status;           /* the check's status: 0, 1, 2 */
};

struct tree {
    struct tree_proc *p;
    size_t n;
    struct tree_sum row[TREE_ROWS]; /* over every process */
    int any_extended;
};

/* Start keeping the logs of a list (mtrace-check given several). */
void treesum_begin(void);
/* Whether a list is being kept. */
int treesum_active(void);
/* The next log of the list, LOG. */
void treesum_log(const char *log);
/* The findings of the current log. */
void treesum_findings(const struct findings *f);
/* The current log's status, as main.c's check_log returned it. */
void treesum_status(int status);
/* What was kept. */
const struct tree *treesum_tree(void);
/* The status of the whole check: 2 when a log could not be checked,
 * else 1 when one had leaks of the --fail-on classes, else 0. */
int treesum_exit_status(const struct tree *t);
/* The words of row R ("definitely lost", ...). */
const char *treesum_words(enum tree_row r);
/* The combined summary after the text reports of the logs (nothing when
 * no log is libmtrace's: glibc's logs keep the Perl script's output). */
void treesum_text(FILE *out, const struct tree *t);

#endif

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* outputs.h - what mtrace-check writes for one log, chosen from the
 * options by a table of writers (outputs.c; writer.h is one writer):
 * the report on standard output (text, --json, or --folded in its
 * place) and the files beside it (--html).  main.c calls these around
 * the replay: the warnings are streamed to the writers as the engine
 * finds them, the findings (findings.h) are built once at the end and
 * handed to each writer.  Also the progress line of long checks
 * (progress.h) and the timeline the pictures need (timeline.h).
 *
 * Copyright (C) 2026 the libmtrace authors. */
#ifndef MTC_OUTPUTS_H
#define MTC_OUTPUTS_H

#include "replay/engine.h"
#include "findings/findings.h"
#include "options/options.h"
#include "output/writer.h"
#include "findings/diff.h"

#include <stdio.h>

enum { OUTPUTS_MAX = 8 };

struct outputs {
    const struct options *opt;
    struct writer w[OUTPUTS_MAX]; /* the report's writer first */
    size_t n;
    struct timeline tl;
    int timeline; /* e->tl is set */
    /* Warnings read before the log showed a trace line (engine_traced):
     * kept here, written by outputs_release, dropped with the log if it
     * is not a trace (glibc's script prints a "Free N was never alloc'd"
     * for any "-" word, which random bytes hold now and then). */
    FILE *held;
    char *held_text;
    size_t held_len;
};

/* Several logs (N > 1) on standard output: around the list and before
 * each log I, as the report's writer frames them. */
void outputs_list_begin(const struct options *opt, const char *binary, int n);
void outputs_list_item(const struct options *opt, const char *log, int i,
                       int n);
void outputs_list_end(const struct options *opt, int n);
/* Log LOG could not be checked (WHY is told on standard error by the
 * caller); IN_LIST: one of several, whose list may hold an entry. */
void outputs_refused(const struct options *opt, const char *log,
                     const char *why, int in_list);

/* Before the replay of LOG (LOG_FD for its size) by E: choose the
 * writers, send E's warnings to them, feed the timeline if one needs it,
 * start the progress line.  REPORT: the report's stream (stdout). */
void outputs_begin(struct outputs *x, const struct options *opt,
                   struct engine *e, FILE *report, int log_fd);
/* After the replay: write the warnings held (KEEP: the log is a trace),
 * or drop them. */
void outputs_release(struct outputs *x, int keep);
/* After the replay, before the findings are built. */
void outputs_replayed(struct outputs *x);
/* The findings of E (CO: how verdicts are reported, NULL: not by class),
 * written by every writer chosen.  *FAILING: the exit status is 1 (leaks
 * of a --fail-on class).  Returns 0, or -1 when an output could not be
 * written (message printed).  Releases what outputs_begin took. */
int outputs_end(struct outputs *x, struct engine *e,
                const struct class_options *co, int *failing);
/* Instead of outputs_end(): the log was refused, nothing is written,
 * everything is released. */
void outputs_drop(struct outputs *x, struct engine *e);

/* --diff (cli/diffrun.h): the comparison D, written by the report's
 * writer on REPORT and by every other writer chosen that has a diff
 * mode (writer.h).  Returns 0, or -1 (told). */
int outputs_diff(const struct options *opt, const struct findings_diff *d,
                 FILE *report);

#endif

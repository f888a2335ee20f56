/* SPDX-License-Identifier: GPL-3.0-or-later */
/* outputs.h - what mtrace-check writes besides its report, from the same
 * replay: the HTML report (--html) and folded stacks (--folded), both
 * drawn from a timeline (timeline.h) the engine feeds; and the progress
 * line of long checks (progress.h).  main.c calls these around the replay.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#ifndef MTC_OUTPUTS_H
#define MTC_OUTPUTS_H

#include "engine.h"
#include "options.h"

#include <stdio.h>

struct outputs {
    const struct options *opt;
    struct timeline tl;
    int timeline; /* e->tl is set */
    FILE *null;   /* the report's stream under --folded */
};

/* Where the text or JSON report goes: standard output, or nowhere when
 * the folded stacks take its place. */
FILE *outputs_report_stream(struct outputs *x, const struct options *opt);

/* Before the replay of LOG_FD (for its size): feed the timeline if a
 * picture was asked for, start the progress line. */
void outputs_begin(struct outputs *x, struct engine *e, int log_fd);
/* After the replay, before the report is written. */
void outputs_replayed(struct outputs *x);
/* After engine_finish(): finish the timeline and write the pictures.
 * Returns 0, or -1 when one could not be written (message printed). */
int outputs_end(struct outputs *x, struct engine *e);
/* Instead of engine_finish() and outputs_end(): the log was refused,
 * nothing is written, everything is released. */
void outputs_drop(struct outputs *x, struct engine *e);

#endif

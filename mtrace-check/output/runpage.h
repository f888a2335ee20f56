/* SPDX-License-Identifier: GPL-3.0-or-later */
/* runpage.h - one HTML page for a whole run: mtrace-check --html FILE
 * given several logs (a process tree's run directory; mtrace-run
 * --html=FILE).  The page holds a table of the processes (pid, parent,
 * program, how each ended, its totals by class), the combined totals,
 * and each process's own report (html.h, unchanged) in a frame of its
 * own, one click away from its row.  Each report is written by html.c to
 * a temporary file as the log is checked and copied into the page at
 * the end; the rows come from treesum.h.  doc/html.md describes the page.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_RUNPAGE_H
#define MTC_RUNPAGE_H

#include "options/options.h"
#include "output/writer.h"

/* Several logs with --html: the run page replaces the one-log page. */
void runpage_begin(void);
/* Whether the run page is being made (the one-log writer stands down). */
int runpage_active(void);
/* The writer of each log's report (a row of outputs.c's table). */
extern const struct writer_ops runpage_writer;
/* After the last log: the page, to O->html.  Returns 0, or -1 (told). */
int runpage_finish(const struct options *o);

#endif

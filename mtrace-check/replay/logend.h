/* SPDX-License-Identifier: GPL-3.0-or-later */
/* logend.h - is the log complete?  libmtrace ends every log it finishes
 * with "#e REASON [key=value ...]" (doc/format.md): exit, muntrace, exec,
 * or signal with sig=N.  An extended log (one with "#v") without a whole
 * "#e" line was cut short: the program was killed, crashed, or the disk
 * filled up, and the blocks still live at the cut are not proven leaks.
 * A log whose image ended in exec leaked nothing: its heap went with it.
 * Classic logs (no "#v") are never judged.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_LOGEND_H
#define MTC_LOGEND_H

#include "base/util.h"

enum end_reason { END_EXIT, END_MUNTRACE, END_EXEC, END_SIGNAL, END_OTHER };

struct log_end {
    int seen; /* a whole "#e" line was read (the last one counts) */
    enum end_reason reason;
    char word[32]; /* REASON as written, cut to fit */
    int sig;       /* sig=N of "signal", 0 when absent */
    uint64_t line; /* where the record is */
};

/* A line whose first field is "#e": LINE/LEN is the whole line, NR its
 * line number; TERMINATED is 0 for a last line without a newline (a log
 * cut inside the record: it does not count).  Returns 0, or -1 for a
 * malformed record (no REASON). */
int logend_record(struct log_end *end, const char *line, size_t len,
                  uint64_t nr, int terminated);

/* Should the blocks still live be reported as leaks?  Not after exec. */
int logend_leaks_count(const struct log_end *end);

/* One line on standard error for a log cut short (NAME: the log). */
void logend_warn(const char *name, const struct log_end *end, int extended);

#endif

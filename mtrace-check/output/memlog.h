/* SPDX-License-Identifier: GPL-3.0-or-later */
/* memlog.h - libmtrace reports (doc/report.md) printed again with file:line
 * for every frame.  mtrace-check takes a report in place of a log.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#ifndef MTC_MEMLOG_H
#define MTC_MEMLOG_H

#include <stdio.h>

/* Is FIRST_LINE the first line of a report? */
int memlog_is_report(const char *first_line);
/* Copies the report IN to OUT with source locations; 0, or -1 on a read
 * error.  sym_init() must have been called. */
int memlog_print(FILE *in, FILE *out);

#endif

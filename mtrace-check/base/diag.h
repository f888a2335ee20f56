/* SPDX-License-Identifier: GPL-3.0-or-later */
/* diag.h - every message mtrace-check writes on standard error goes
 * through here, in one form:
 *
 *     mtrace-check: [FILE:[LINE:] ]MESSAGE
 *
 * FILE is the log (or module) the message is about, LINE the log line it
 * counts as glibc's mtrace(1) does.  Standard output is flushed first, so
 * a message lands after the report text it follows.  Nothing else in the
 * checker writes to stderr.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_DIAG_H
#define MTC_DIAG_H

#include <stdint.h>

/* Program name for messages ("mtrace-check"). */
extern const char *progname;

/* A warning or an error the run goes on after.  FILE may be NULL; LINE 0
 * means no line. */
void diag(const char *file, uint64_t line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* An error that ends the run with status 2 (bad input, no memory). */
void diag_fatal(const char *file, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn));

/* Called around every message when set (progress.c erases its line
 * before and draws it again after). */
extern void (*message_begin)(void), (*message_end)(void);

/* A command-line error: the message, then where to find the usage. */
void diag_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* progress.h - a progress line on standard error for long checks:
 *     mtrace-check: 123 MiB of 456 MiB (27%), 80.1 MiB/s, 4 s left
 * only on a terminal (isatty(2)), only once the check has run for a
 * second, never with --quiet.  A thread of its own wakes five times a
 * second and reads a byte counter the replay keeps (engine.h: bytes), so
 * the replay itself never looks at the clock.  The line is erased when
 * the check ends.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_PROGRESS_H
#define MTC_PROGRESS_H

#include <stdint.h>

/* Start watching *BYTES (read atomically) grow towards TOTAL (0: unknown,
 * a pipe).  Does nothing unless standard error is a terminal and QUIET is
 * 0. */
void progress_start(const uint64_t *bytes, uint64_t total, int quiet);
/* What the check does once the log is read ("resolving stacks"): shown
 * in place of the byte counts.  NULL: back to them. */
void progress_phase(const char *what);
/* Erase the line and stop the thread. */
void progress_stop(void);

/* The line for these figures, as progress shows it (for the tests). */
void progress_format(char *buf, unsigned size, uint64_t done, uint64_t total,
                     double seconds, const char *phase);

#endif

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* timestamp.h - the "#t" time record of the log (doc/format.md, "Time").
 *
 * A "#t NS" line tells a reader the CLOCK_MONOTONIC time, in nanoseconds,
 * at that point of the log.  The log's header carries one (the start of
 * collection); after that the threads' buffers write one when they hand
 * their lines to the shared log, at most every MTF_TIME_STEP_NS
 * (threadlog.c): the clock is read once per hand-over, never per event.
 */
#ifndef MT_TIMESTAMP_H
#define MT_TIMESTAMP_H
#include <stddef.h>
#include <stdint.h>

/* "#t " + 20 digits + "\n" */
#define TIMESTAMP_LINE_MAX 32

/* CLOCK_MONOTONIC in nanoseconds (the vDSO: no lock, no allocation,
 * async-signal-safe). */
uint64_t timestamp_now(void);

/* Writes the "#t NS\n" line into OUT (TIMESTAMP_LINE_MAX bytes); returns
 * its length. */
size_t timestamp_line(char *out, uint64_t ns);

#endif

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rss.h - the process's resident memory for the "#t" records
 * (doc/format.md, "Time"): read from /proc/self/statm by raw system calls
 * (no stdio, no malloc; safe while the world is stopped and in signal
 * handlers), about 7 us a read, so the log samples it at most every
 * MTF_RSS_STEP_NS (threadlog.c) and at every flush of all the buffers.
 */
#ifndef MT_RSS_H
#define MT_RSS_H
#include <stddef.h>

/* " rss-anon=BYTES rss-file=BYTES" */
#define RSS_FIELDS_MAX 64

/* Writes the fields into OUT (RSS_FIELDS_MAX bytes); returns their
 * length, 0 when /proc/self/statm cannot be read. */
size_t rss_fields(char *out);

#endif

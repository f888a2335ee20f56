/* SPDX-License-Identifier: GPL-3.0-or-later */
/* growth.h - memory that is never lost yet keeps growing: the allocation
 * stacks whose still reachable bytes rose at each of the last 3 or more
 * scans of a log (MEMLEAK_CONFIG=scan_every, report points), and which
 * definitely lost loss records are new since the scan before the last.
 *
 * A scan "rises" for a stack when the stack holds more still reachable
 * bytes than at the scan before (nothing before the first: collection
 * had just started) and nothing it held then was released since (every
 * byte reachable then is still live and reachable): a site that
 * allocates and frees steadily turns its blocks over and never rises
 * twice in a row, and a cache that fills and then stays flat stops
 * rising.  The scan at exit is left out (a program that ends stops
 * growing; its teardown frees).  Only still reachable bytes count: lost
 * memory is the leak classes' business.
 *
 * Identity: a stack is named by its loss record's fingerprint
 * (fingerprint.h), the same across the scans of a run and across runs.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_GROWTH_H
#define MTC_GROWTH_H

#include "findings/fingerprint.h"
#include "replay/scanseries.h"
#include "symbolize/stackview.h"

#include <stddef.h>
#include <stdint.h>

#define GROWTH_MIN_SCANS 3

struct growth {
    int32_t stack;   /* index into the log's stacks, -1: none recorded */
    uint64_t sid;    /* its "#s" id, when stack >= 0 */
    const struct view_frames *frames;
    uint64_t first_bytes, last_bytes; /* still reachable, at the run's ends */
    size_t first_scan, last_scan;     /* indexes into the series' scans */
    unsigned scans;                   /* scans in the run, each a rise */
    int has_rate;                     /* both ends have a time */
    double seconds;                   /* from the first scan to the last */
    double bytes_per_second;
    char fingerprint[FP_LEN];
};

struct findings;
/* Fills F's growth list (largest rate first, then bytes) and the
 * new_since_previous marks of its definitely lost loss records from the
 * engine's scan series. */
void growth_build(struct findings *f);
void growth_free(struct findings *f);
/* Scans of the series the analysis reads (the exit scan left out). */
size_t growth_scan_count(const struct scan_series *s);

#endif

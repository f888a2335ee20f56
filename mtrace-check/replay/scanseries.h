/* SPDX-License-Identifier: GPL-3.0-or-later */
/* scanseries.h - what each scan of a log saw, per allocation stack: the
 * still reachable bytes, the part of them already live at the scan
 * before (nothing of it released since), the definitely lost bytes; and
 * each scan's time and cost ("#C scan", "#c", "#C cost" records,
 * doc/format.md).  The verdicts (verdict.h) keep only the last scan; the
 * growth analysis (findings/growth.h) and the "new since the previous
 * scan" marks need them all.
 *
 * It reads the engine's table of live blocks at the "#C scan" record, so
 * it needs the table as it stood at that line: the plain replay has it,
 * and the parallel one replays a segment that holds a scan line by line
 * (speculate.c).  The "#c" records of a scan follow it with no event in
 * between (the world was stopped), and each names a block live there.
 * Memory: one row per stack holding reachable or lost bytes, per scan.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_SCANSERIES_H
#define MTC_SCANSERIES_H

#include "read/fields.h"
#include "replay/table.h"

#include <stdint.h>

/* One stack at one scan (stacks with nothing reachable or lost have none). */
struct series_row {
    int32_t stack;     /* index into the log's stacks, -1: none recorded */
    uint64_t reach;    /* still reachable bytes                          */
    uint64_t kept;     /* ... of blocks live at the scan before          */
    uint64_t definite; /* definitely lost bytes                          */
};

struct series_scan {
    uint64_t seq, line;
    char trigger[16];
    int has_time;
    uint64_t t_ns;          /* "t=", else the latest "#t"; absolute ns */
    int has_cost;           /* a "#C cost" record came for it          */
    uint64_t us, stop_us, hold_us, stall_us;
    struct series_row *rows; /* by stack, ascending */
    size_t nrows;
};

struct scan_series {
    struct series_scan *scans;
    size_t nscans, cap;
    uint64_t last_t_ns; /* the largest "#t" so far */
    int has_t;
    /* The scan being read: dense by stack index + 1 until the next scan
     * or series_finish. */
    int open;
    uint64_t *reach, *kept, *definite;
    size_t dense_n;
    uint64_t prev_line; /* line of the scan before the open one, 0: none */
};

void series_init(struct scan_series *s);
void series_destroy(struct scan_series *s);
/* A "#C scan" record at LINE (fields F): TABLE is the engine's live
 * blocks at that line, NSTACKS the log's stacks so far. */
void series_scan(struct scan_series *s, const struct slice *f, size_t nf,
                 uint64_t line, struct alloc_table *table, size_t nstacks);
/* A "#c PTR CLASS" record of the open scan. */
void series_verdict(struct scan_series *s, const struct slice *f, size_t nf,
                    struct alloc_table *table);
/* A "#C cost" record. */
void series_cost(struct scan_series *s, const struct slice *f, size_t nf);
/* Any "#C" or "#c" LINE of LEN bytes at line NR: one of the three above. */
void series_record(struct scan_series *s, const char *line, size_t len,
                   uint64_t nr, struct alloc_table *table, size_t nstacks);
/* A "#t NS" record. */
void series_time(struct scan_series *s, const struct slice *f, size_t nf);
/* At the end of the log: closes the open scan. */
void series_finish(struct scan_series *s);

/* Bytes of stack STACK at scan SC, as its row says (0 without one). */
const struct series_row *series_row(const struct series_scan *sc,
                                    int32_t stack);

#endif

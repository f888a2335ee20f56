/* SPDX-License-Identifier: GPL-3.0-or-later */
/* timeline.h - what the pictures need beyond the leak table (the HTML
 * report, the folded stacks): per allocation stack, what it allocated in
 * all, what it holds at the end and what it held at the peak; live bytes
 * over time; and, for memray's temporal view, when the blocks of each
 * stack were allocated and freed.
 *
 * The engine feeds it as it replays the log (engine.h: e->tl), block by
 * block as they enter and leave its table, so it counts exactly the blocks
 * the text report counts.  Memory follows the number of stacks, not the
 * length of the log:
 *   - time is cut into at most TL_BUCKETS buckets of 2^shift lines each;
 *     when the log outgrows them, neighbours merge and the width doubles;
 *   - the temporal view keeps, per stack and per pair of buckets (the one
 *     a block was allocated in, the one it was freed in or TL_NEVER), the
 *     bytes and blocks: the query "allocated in [lo, hi] and still live at
 *     the end of hi" is then a sum over these intervals (memray's);
 *   - the peak snapshot is kept lazily: a stack's value at the latest
 *     peak is saved the first time the stack changes after it, so a new
 *     peak costs nothing per stack.
 * Time comes from the log's "#t" records (doc/format.md): a bucket's end
 * is placed by interpolating, by line number, between the records around
 * it.  A log without them has no time, only lines.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_TIMELINE_H
#define MTC_TIMELINE_H

#include "base/maps.h"
#include "replay/table.h"

enum {
    TL_BUCKETS = 1024, /* a power of two */
    TL_NEVER = 0xfff,  /* free bucket of a block still live at the end */
};

struct tl_stack {
    uint64_t alloc_bytes, allocs;     /* every allocation */
    uint64_t live_bytes, live_blocks; /* now; at the end: the leaks */
    uint64_t peak_bytes, peak_blocks; /* at the peak, once saved */
    uint64_t epoch;                   /* peak epoch of its last change */
    /* A sampled log: the same scaled, each block by its weight
     * (mtrace-sample.h), bytes rounded per block as the report rounds. */
    uint64_t est_alloc_bytes, est_live_bytes;
    double est_allocs, est_live_blocks;
};

struct tl_bucket {
    uint64_t line_end; /* last line of the bucket */
    uint64_t live_end; /* live bytes at its end */
    uint64_t live_max; /* the most within it */
    uint64_t t_end;    /* time of its end, ns since the first "#t" */
    /* Resident memory ("#t ... rss-anon= rss-file="): the largest sample
     * within it, the last one before it counted as its start's. */
    uint64_t rss_anon, rss_file;
};

struct tl_interval {
    uint32_t stack;        /* stack index + 1; 0: blocks without a stack */
    uint16_t alloc, freed; /* buckets; freed TL_NEVER: live at the end */
    uint64_t bytes, blocks;
};

struct timeline {
    /* The log's sampling rate (ext_store.sample_rate, read as the log
     * goes), for the estimates; NULL or 0: none. */
    const uint64_t *sample_rate;
    struct tl_stack *stacks; /* by stack index + 1 */
    size_t nstacks, cap_stacks;

    uint64_t allocs, alloc_bytes, frees, freed_bytes;
    uint64_t live_bytes, live_blocks;
    uint64_t peak_bytes, peak_blocks, peak_line, peak_t;
    uint64_t epoch, peak_epoch;

    /* Time: the "#t" records, relative to the first. */
    int has_time;
    uint64_t t_origin; /* the first "#t", absolute ns */
    uint64_t t_last;   /* the largest so far, relative */
    uint64_t t_last_line;
    size_t first_untimed; /* buckets from here wait for the next "#t" */
    int peak_untimed;

    struct tl_bucket buckets[TL_BUCKETS];
    unsigned shift;
    size_t cur; /* the open bucket */
    uint64_t last_line;

    struct tl_interval *iv;
    size_t niv, cap_iv;
    struct u64map iv_index; /* key -> index + 1 */

    int has_rss;                    /* a "#t" carried resident memory */
    uint64_t rss_anon, rss_file;    /* the last sample */
};

void tl_init(struct timeline *tl);
void tl_destroy(struct timeline *tl);

/* Block B entered the engine's table at LINE. */
void tl_alloc(struct timeline *tl, const struct block *b, uint64_t line);
/* Block B leaves it at LINE (a free, or realloc's "<"). */
void tl_free(struct timeline *tl, const struct block *b, uint64_t line);
/* A "#t NS" record at LINE (F: its fields); malformed ones are ignored. */
void tl_time(struct timeline *tl, const struct slice *f, size_t nf,
             uint64_t line);
/* The end of the log at LINE: closes the last bucket and adds the blocks
 * still live in T to the temporal intervals. */
void tl_finish(struct timeline *tl, struct alloc_table *t, uint64_t line);

/* The bucket count after tl_finish. */
size_t tl_nbuckets(const struct timeline *tl);

#endif

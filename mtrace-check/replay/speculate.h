/* SPDX-License-Identifier: GPL-3.0-or-later */
/* speculate.h - replaying a segment of the log (feeder.h) without the
 * state before it, so that several segments replay at once on several
 * threads, and applying each result to the engine in log order.
 *
 * The Perl checker's state is per address (allocated or not), so a
 * segment is replayed against a table of its own.  The first event on an
 * address tells what the state before the segment must have been for the
 * script to stay silent there: free for "+" and ">", allocated for "-"
 * and "<".  The segment is replayed on that assumption; what it finds on
 * its own (a second "+" of an address it allocated) is kept, with its
 * line in the segment.  spec_apply, in log order, checks every assumption
 * against the engine's table.  When all hold, which is the case unless
 * the log has a warning across segments, the segment's last state of
 * each address replaces the engine's, its records are read and its
 * warnings printed; when one fails, the segment is replayed again line by
 * line on the engine itself.  Either way the engine ends exactly as a
 * replay of every line on one thread would leave it.
 *
 * Stack references ("s<ID>") are resolved when the segment is applied:
 * against the stack records of the segment that precede the event, else
 * against the engine's records from before the segment; events before a
 * first "#v" in the segment count only if the log was extended already.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_SPECULATE_H
#define MTC_SPECULATE_H

#include "replay/engine.h"
#include "read/feeder.h"

struct spec_warning {
    enum warn_kind kind;
    uint64_t line; /* in the segment, from 1 */
    struct slice addr;
    uint64_t size;
    struct slice was, where; /* WHERE fields as written, in the segment */
};

struct spec_record {
    size_t off, len; /* the line, in the segment */
    uint64_t line;
    int terminated; /* it ends with a newline */
    int too_long;   /* not a record: a line over FEED_LINE_MAX, skipped */
};

/* The stack a group of events refers to, as known in the segment. */
struct spec_ref {
    uint64_t sid;
    int64_t def;        /* ordinal of this segment's "#s" record, -1: older */
    int before_version; /* before the segment's first "#v" */
    uint64_t uses;      /* blocks that took it */
};

struct spec_segment {
    struct segment seg; /* the bytes */
    uint64_t nlines;
    struct alloc_table table; /* every address the segment touches */
    struct spec_warning *warnings;
    size_t nwarnings, cap_warnings;
    struct spec_record *records;
    size_t nrecords, cap_records;
    struct spec_ref *refs;
    size_t nrefs, cap_refs;
    struct u64map defs;   /* sid -> ordinal + 1 of its latest "#s" here */
    struct u64map ref_of; /* sid -> index + 1 of its latest spec_ref */
    uint64_t ndefs;
    int version_seen;
    int is_trace; /* a line only a trace has (engine_traced) */
    /* The spec_ref of recent stack ids (sid + 1, 0: empty slot): events
     * name a few hot stacks over and over. */
    struct {
        uint64_t key;
        int32_t ref;
    } ref_cache[64];
    /* It holds a "#C scan" record: applied line by line on the engine,
     * whose table must then stand as it did at that line (scanseries.h). */
    int has_scan;
};

void spec_init(struct spec_segment *s);
void spec_destroy(struct spec_segment *s);

/* Replay S->seg on its own (any thread). */
void spec_run(struct spec_segment *s);

/* Apply a replayed segment to E; segments must come in log order.  NAME
 * is the log's name for messages.  Returns 1 when the segment's own
 * replay was used, 0 when it had to be replayed on E. */
int spec_apply(struct spec_segment *s, struct engine *e, const char *name);

/* Replay SEG's lines on E directly (one thread, in order). */
void replay_segment(struct engine *e, const struct segment *seg,
                    const char *name);

#endif

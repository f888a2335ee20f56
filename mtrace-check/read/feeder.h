/* SPDX-License-Identifier: GPL-3.0-or-later */
/* feeder.h - the log cut into segments of whole lines.  Each segment holds
 * about a target number of bytes, ending after a newline (or where the
 * input ends).  Segments are independent, so several threads may replay
 * them at once (replay.h), and memory is the segments in flight, never
 * the size of the log:
 *   - a plain regular file is mapped, without reading it in: a segment is
 *     a view of the mapping, faulted in by whoever replays it, and the
 *     pages of applied segments are dropped (feeder_release);
 *   - anything else (a pipe, standard input, a device, a compressed log)
 *     is read into the segment's own buffer; the bytes of a line cut by a
 *     read are carried into the next segment.
 *
 * A line longer than FEED_LINE_MAX bytes is never held whole: the feeder
 * hands out a marker segment in its place (it still counts as one line,
 * so later line numbers stay right) and skips its bytes up to the next
 * newline.  A log made of one endless line (/dev/zero) is read in constant
 * memory.  (A long line that one read brought in whole, with its newline,
 * may be handed out as it is: the replay skips every line over the limit
 * in the same way, so the report does not depend on how the bytes came.)
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_FEEDER_H
#define MTC_FEEDER_H

#include "read/source.h"

#include <stdint.h>

/* The longest line read (4 MiB, newline not counted); doc/mtrace-check.1. */
enum { FEED_LINE_MAX = 4 << 20 };

struct segment {
    const char *buf; /* the lines: a view of the mapping, or mem */
    size_t len;
    char *mem; /* the segment's own buffer, when the log is read */
    size_t cap;
    int mapped;       /* buf is a view of the mapping */
    int unterminated; /* its last line has no newline (the input ended) */
    int long_line;    /* a marker: one line longer than FEED_LINE_MAX */
};

struct feeder {
    struct source *src;
    size_t target; /* bytes per segment */
    /* The mapping, while its bytes last: */
    const char *map;
    size_t map_len, map_pos; /* mapped bytes, where the next segment starts */
    size_t released;         /* bytes at the front given back */
    int map_left;            /* used up: reading on from its end */
    /* Reading: */
    char *carry; /* the start of the next segment's first line */
    size_t carry_len, carry_cap;
    int marker_next; /* a long line was met: its marker comes next */
    int discarding;  /* inside a long line: skip bytes up to a newline */
    int done;        /* the input has ended */
    int failed;      /* a read failed (src->error says why) */
};

/* Start reading SRC (mapping it when it is a plain regular file). */
void feeder_init(struct feeder *f, struct source *src, size_t target);
void feeder_destroy(struct feeder *f);

/* The next segment into SEG (its buffer is reused): 1, 0 at the end of
 * the log, -1 after a read error. */
int feeder_next(struct feeder *f, struct segment *seg);

/* Fault a mapped segment in at once (cheaper than page by page). */
void feeder_prefault(const struct segment *seg);

/* SEG has been replayed and applied, and so has every segment before it:
 * the memory behind it may go. */
void feeder_release(struct feeder *f, const struct segment *seg);

void segment_free(struct segment *seg);

#endif

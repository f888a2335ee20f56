/* SPDX-License-Identifier: GPL-3.0-or-later */
/* engine.h - replays a log line by line with exactly the bookkeeping of
 * glibc's Perl checker (which blocks are live, which events are warned
 * about, with which line numbers and location strings), and collects the
 * extension records on the side.  What it found is read by findings.h.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#ifndef MTC_ENGINE_H
#define MTC_ENGINE_H

#include "replay/event.h"
#include "symbolize/location.h"
#include "replay/logend.h"
#include "replay/resources.h"
#include "replay/rss.h"
#include "read/records.h"
#include "replay/warning.h"
#include "replay/strpool.h"
#include "replay/table.h"
#include "replay/timeline.h"
#include "replay/verdict.h"
#include "replay/preview.h"
#include "replay/scanseries.h"
#include "replay/xblocks.h"

#include <string.h>

struct engine {
    uint64_t nr; /* lines seen, as Perl's $nr */
    struct alloc_table table;
    struct strpool wheres;
    struct locator loc;
    struct ext_store ext;
    struct warning_sink warn; /* where warnings go (warning.h) */
    uint64_t warnings;
    struct log_end end;       /* the "#e" record */
    int is_trace;             /* a line only a trace has (engine_traced) */
    int line_unterminated;    /* the line being read has no newline */
    struct timeline *tl;      /* fed when set (timeline.h: --html, --folded) */
    uint64_t bytes;           /* of the log replayed, read by progress.h */
    struct verdicts verdicts; /* "#C" and "#c" records        */
    struct previews previews; /* "#w" records (preview.h)     */
    struct scan_series series; /* every scan, per stack (scanseries.h) */
    struct xblocks xb;        /* other blocks: "#b", "#x", "#P", "#k" */
    struct res_table res;     /* "#r" records (resources.h)   */
    struct rss_stats rss;     /* "#t ... rss-anon=" (rss.h)   */
};

void engine_init(struct engine *e, const char *binary);

void engine_line(struct engine *e, const char *line, size_t len);
/* The same for a line already split into its first ENGINE_FIELDS fields. */
void engine_split_line(struct engine *e, const char *line, size_t len,
                       const struct slice *f, size_t nf);
/* ... and whose address field ("@ WHERE op ADDR" or "op ADDR") is already
 * hashed with hash_bytes (hash of "" when the line has no such field). */
void engine_hashed_line(struct engine *e, const char *line, size_t len,
                        const struct slice *f, size_t nf, uint64_t addr_hash);
/* A line whose first field starts with '#' (an extension record). */
void engine_record(struct engine *e, const char *line, size_t len,
                   const struct slice *f, size_t nf);
/* Report a warning found at line NR: WAS and WHERE are WHERE fields as
 * the log has them, turned into caller strings here, in the order the
 * script evaluates them (location() fills a cache shared by both). */
void engine_warn(struct engine *e, enum warn_kind kind, uint64_t nr,
                 struct slice addr, uint64_t size, struct slice was,
                 struct slice where);
/* A line too long to read (feeder.h): it counts, and NAME:LINE is told. */
void engine_long_line(struct engine *e, const char *name);
/* Perl's location() of block B's WHERE. */
struct slice engine_caller(struct engine *e, const struct block *b);
void engine_destroy(struct engine *e);

#endif

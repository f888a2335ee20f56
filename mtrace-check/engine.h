/* engine.h - replays a log line by line with exactly the bookkeeping of
 * glibc's Perl checker (which blocks are live, which events are warned
 * about, with which line numbers and location strings), and collects the
 * extension records on the side.  At the end it reports the live blocks
 * as the Perl script does, then groups them by allocation stack.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_ENGINE_H
#define MTC_ENGINE_H

#include "location.h"
#include "records.h"
#include "report.h"
#include "strpool.h"
#include "table.h"
#include "timeline.h"
#include "verdict.h"

struct class_options;

struct engine {
    uint64_t nr; /* lines seen, as Perl's $nr */
    struct alloc_table table;
    struct strpool wheres;
    struct locator loc;
    struct ext_store ext;
    struct report *rep;
    uint64_t warnings;
    struct timeline *tl; /* fed when set (timeline.h: --html, --folded) */
    uint64_t bytes;      /* of the log replayed, read by progress.h */
    struct verdicts verdicts;          /* "#C" and "#c" records        */
    const struct class_options *copts; /* how to report them (main.c)  */
};

void engine_init(struct engine *e, struct report *rep, const char *binary);
enum { ENGINE_FIELDS = 6 }; /* "@ WHERE op ptr size s<ID>" */

void engine_line(struct engine *e, const char *line, size_t len);
/* The same for a line already split into its first ENGINE_FIELDS fields. */
void engine_split_line(struct engine *e, const char *line, size_t len,
                       const struct slice *f, size_t nf);
/* ... and whose address field ("@ WHERE op ADDR" or "op ADDR") is already
 * hashed with hash_bytes (hash of "" when the line has no such field). */
void engine_hashed_line(struct engine *e, const char *line, size_t len,
                        const struct slice *f, size_t nf, uint64_t addr_hash);
/* Report the leaks; returns 1 if any block is still allocated, else 0.
 * For a log with reachability verdicts: 1 if a leak of a class in
 * COPTS->fail_on was found (classreport.h). */
int engine_finish(struct engine *e);
void engine_destroy(struct engine *e);

#endif

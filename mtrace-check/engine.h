/* SPDX-License-Identifier: GPL-3.0-or-later */
/* engine.h - replays a log line by line with exactly the bookkeeping of
 * glibc's Perl checker (which blocks are live, which events are warned
 * about, with which line numbers and location strings), and collects the
 * extension records on the side.  At the end it reports the live blocks
 * as the Perl script does, then groups them by allocation stack.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#ifndef MTC_ENGINE_H
#define MTC_ENGINE_H

#include "location.h"
#include "logend.h"
#include "records.h"
#include "report.h"
#include "strpool.h"
#include "table.h"
#include "timeline.h"
#include "verdict.h"

#include <string.h>

struct class_options;

struct engine {
    uint64_t nr; /* lines seen, as Perl's $nr */
    struct alloc_table table;
    struct strpool wheres;
    struct locator loc;
    struct ext_store ext;
    struct report *rep;
    uint64_t warnings;
    struct log_end end;       /* the "#e" record */
    int is_trace;             /* a line only a trace has (engine_traced) */
    int line_unterminated;    /* the line being read has no newline */
    struct timeline *tl;      /* fed when set (timeline.h: --html, --folded) */
    uint64_t bytes;           /* of the log replayed, read by progress.h */
    struct verdicts verdicts; /* "#C" and "#c" records        */
    const struct class_options *copts; /* how to report them (main.c)  */
    /* After engine_finish: the leaks by class (classreport.h) when the
     * log was reported by class, else NULL; the pictures read it. */
    struct class_view *classes;
};

void engine_init(struct engine *e, struct report *rep, const char *binary);
enum { ENGINE_FIELDS = 6 }; /* "@ WHERE op ptr size s<ID>" */

/* The fields of one event line, named as in the script. */
struct event {
    struct slice where; /* $where: "" without "@" */
    struct slice op;    /* $cols[$n] */
    struct slice addr;  /* $allocaddr ("" when missing) */
    struct slice size;  /* $cols[$n + 2] */
    struct slice extra; /* the field after the op's own fields */
    int has_extra;
};

/* Split an event line into the script's fields; returns 0 if it has no op.
 * Inline: it runs once per line. */
static inline int engine_read_event(const struct slice *f, size_t nf,
                                    struct event *ev)
{
    const struct slice empty = { "", 0 };
    size_t n = 0;

    ev->where = empty;
    if (nf > 0 && f[0].n == 1 && f[0].p[0] == '@') {
        ev->where = nf > 1 ? f[1] : empty;
        n = 2;
    }
    if (nf <= n || f[n].n != 1)
        return 0;
    ev->op = f[n];
    ev->addr = nf > n + 1 ? f[n + 1] : empty;
    ev->size = nf > n + 2 ? f[n + 2] : empty;
    /* The stack field follows "+ PTR SIZE", "> PTR SIZE", "- PTR", "< PTR". */
    size_t extra = (ev->op.p[0] == '-' || ev->op.p[0] == '<') ? n + 2 : n + 3;
    ev->has_extra = nf > extra;
    ev->extra = ev->has_extra ? f[extra] : empty;
    return 1;
}

/* "0x" and 1 to 16 hex digits, nothing else: "%p" of a block, "%#lx" of
 * a size ("0" for size 0 when ZERO_OK). */
static inline int engine_hex_word(struct slice s, int zero_ok)
{
    if (zero_ok && s.n == 1 && s.p[0] == '0')
        return 1;
    if (s.n < 3 || s.n > 18 || s.p[0] != '0' || s.p[1] != 'x')
        return 0;
    for (size_t i = 2; i < s.n; i++) {
        char c = s.p[i];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
              (c >= 'A' && c <= 'F')))
            return 0;
    }
    return 1;
}

/* Is this line one that only an mtrace log has: "= Start", or an event
 * written as glibc writes it ("- %p", "+ %p %#lx")?  glibc's checker
 * reads anything and calls an empty file, random bytes, a text file or
 * the program itself "No memory leaks."; a file without such a line (nor
 * a "#v" record) is refused instead (main.c).  Whole fields are checked:
 * in 100 KB of random bytes a line "- 0x0" followed by garbage turns up
 * often enough to matter (a CI run met one). */
static inline int engine_traced(const struct event *ev)
{
    switch (ev->op.p[0]) {
    case '=':
        return ev->addr.n == 5 && memcmp(ev->addr.p, "Start", 5) == 0;
    case '-':
    case '<':
        return engine_hex_word(ev->addr, 0);
    case '+':
    case '>':
    case '!':
        return engine_hex_word(ev->addr, 0) && engine_hex_word(ev->size, 1);
    }
    return 0;
}

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
/* Report the leaks; returns 1 if any block is still allocated, else 0.
 * For a log with reachability verdicts: 1 if a leak of a class in
 * COPTS->fail_on was found (classreport.h). */
int engine_finish(struct engine *e);
void engine_destroy(struct engine *e);

#endif

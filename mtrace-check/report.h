/* SPDX-License-Identifier: GPL-3.0-or-later */
/* report.h - everything mtrace-check prints on standard output, in one of
 * two shapes:
 *   - text: byte for byte what glibc's Perl checker prints (warnings as
 *     they happen, then the leak table or "No memory leaks."), followed for
 *     extended logs by the leaks grouped by allocation stack;
 *   - JSON: one object, schema in doc/json.md and mtrace-check(1).
 * Strings are byte slices and are written as they are (text) or escaped
 * (JSON); NUL bytes in a log survive both.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_REPORT_H
#define MTC_REPORT_H

#include "logend.h"
#include "stackview.h"

#include <stdio.h>

enum warn_kind {
    WARN_ALLOC_DUPLICATE,      /* "+ ADDR Alloc N duplicate: WAS WHERE"    */
    WARN_FREE_NEVER_ALLOCATED, /* "- ADDR Free N was never alloc'd WHERE"  */
    WARN_REALLOC_NEVER_ALLOCATED,
    WARN_REALLOC_DUPLICATE, /* "+ ADDR Realloc N duplicate: SIZE WAS WHERE" */
};

struct warning {
    enum warn_kind kind;
    uint64_t line;
    struct slice addr;   /* the field as written in the log */
    uint64_t addr_value; /* Perl's hex() of it */
    uint64_t size;       /* realloc duplicate: size already recorded */
    struct slice was;    /* location() of the first allocation */
    struct slice where;  /* location() of this event, or raw WHERE */
};

struct leak {
    const char *verdict; /* class name (a log with verdicts), else NULL */
    const char *suppressed_by; /* with a verdict: the pattern, or NULL */
    struct slice addr;
    uint64_t addr_value;
    uint64_t size;
    uint64_t line;
    struct slice caller;              /* location() of its WHERE */
    const struct view_frames *frames; /* NULL: no stack recorded */
};

struct leak_group {
    uint64_t bytes;         /* in a sampled log: estimated */
    uint64_t blocks;        /* in a sampled log: estimated */
    uint64_t recorded;      /* blocks the log holds */
    double weighted_blocks; /* the estimate before rounding */
    int32_t stack;          /* -1: blocks without a recorded stack */
    uint64_t sid;
    const struct view_frames *frames;
};

struct class_sums; /* classreport.h: JSON "classes" in the totals */

struct totals {
    const struct class_sums *classes; /* NULL: the log has no verdicts */
    uint64_t lines;
    uint64_t warnings;
    uint64_t leaked_bytes;
    uint64_t leaked_blocks;
    uint64_t bad_records;
    uint64_t dangling_refs;
    int extended;
    const struct log_end *end; /* "#e", for "complete" and "end" */
    uint64_t held_blocks;      /* blocks live at the end, listed or not */
    uint64_t held_bytes;
};

struct report {
    FILE *out;
    int json;
    int nwarnings, nleaks;
    /* A sampled log (doc/format.md): its blocks are samples, not a list
     * of leaks; groups carry estimates.  0: not sampled. */
    uint64_t sample_rate;
    /* The log carries reachability verdicts: the text report shows them
     * (classreport.h) instead of the Perl checker's table and groups. */
    int verdicts;
    /* JSON: the object's head, printed with its first member, so that a
     * file that turns out not to be a trace prints nothing (main.c). */
    const char *log, *binary;
    int begun;
    /* Warnings read before the log showed a trace line (engine_traced):
     * kept here, printed by report_release, dropped with the log if it is
     * not a trace (glibc's script prints a "Free N was never alloc'd" for
     * any "-" word, which random bytes hold now and then). */
    FILE *held;
    char *held_text;
    size_t held_len;
};

void report_begin(struct report *r, FILE *out, int json, const char *log,
                  const char *binary);
/* TRACE: the log has shown a trace line; until then warnings are held. */
void report_warning(struct report *r, const struct warning *w, int trace);
/* Print the warnings held (the log is a trace), or drop them (KEEP 0). */
void report_release(struct report *r, int keep);
void report_leaks_begin(struct report *r);
void report_leak(struct report *r, const struct leak *l);
void report_leaks_end(struct report *r); /* "No memory leaks." if none */
void report_groups(struct report *r, const struct leak_group *g, size_t n);
void report_end(struct report *r, const struct totals *t);

/* One frame line of the text report ("    #K FUNC at FILE:LINE (...)"),
 * and a frame list as a JSON array. */
void report_text_frame(FILE *out, size_t k, const struct view_frame *v);
void report_json_frames(FILE *out, const struct view_frames *f);

#endif

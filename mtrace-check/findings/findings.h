/* SPDX-License-Identifier: GPL-3.0-or-later */
/* findings.h - what a check found, as data: the model between the replay
 * (engine.h) and the writers (output/).  The replay knows the log; the
 * writers know their formats; this file is all they share.
 *
 * A check produces, for one log:
 *   - warnings: found while the log is replayed and streamed to the
 *     writers as they happen (warning.h; the text report prints them in
 *     the Perl checker's order, between nothing else), counted here;
 *   - the leak table: the blocks still live at the end, in the Perl
 *     script's order (address text), each a struct leak made on demand by
 *     findings_leak() (its caller string is Perl's location(), computed
 *     only for the writers that print it, in the script's order);
 *   - groups: those blocks by allocation stack, largest first (extended
 *     logs; a sampled log's figures are estimates);
 *   - loss records: the unit every leak format reports (valgrind's loss
 *     record, LeakSanitizer's leak, SARIF's result, a JUnit failure, a
 *     pprof sample).  A log with reachability verdicts ("#C"/"#c") has one
 *     per class and allocation stack, in memcheck's order; a log without
 *     them has one per group, CLASS_UNKNOWN and `classified` 0.  Each
 *     carries the class, bytes and blocks (direct; `indirect` the bytes
 *     the block's pointers keep alive), the allocation stack's frames
 *     (stackview.h: function, file, line, module, offset or address,
 *     inlined), the suppression that took it, its fingerprint
 *     (fingerprint.h), whether the --baseline knows it, whether it
 *     fails the run;
 *   - classes: the totals by class (and suppressed), the last scan, the
 *     suppressions with what each took;
 *   - totals and end state: lines, warnings, leaked bytes and blocks (by
 *     --fail-on with verdicts), bad records, dangling stack references,
 *     the "#e" record, what was held at the end;
 *   - the timeline (timeline.h): per stack and over time, for the
 *     pictures; NULL unless a writer asked for it (writer.h).
 *
 * Pointers into the model stay valid until findings_destroy(), and the
 * engine it was built from must outlive it.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_FINDINGS_H
#define MTC_FINDINGS_H

#include "replay/engine.h"
#include "findings/baseline.h"
#include "findings/fingerprint.h"
#include "findings/growth.h"
#include "findings/resfind.h"
#include "symbolize/stackview.h"
#include "symbolize/viewcache.h"
#include "findings/suppress.h"
#include "replay/verdict.h"
#include "replay/warning.h"

/* How a log with verdicts is reported (options.h gives them). */
struct class_options {
    int show_reachable;
    int fail_on; /* mask of (1 << enum leak_class) */
    struct suppressions *supp;
    const struct baseline *baseline; /* --baseline, or NULL */
};

struct class_sum {
    uint64_t bytes, blocks;
};

/* Sums by class; suppressed blocks count apart from their class. */
struct class_sums {
    struct class_sum sum[CLASS_COUNT], suppressed;
};

/* One row of the Perl script's leak table. */
struct leak {
    const char *verdict;       /* class name (a log with verdicts), else NULL */
    const char *suppressed_by; /* with a verdict: the pattern, or NULL */
    struct slice addr;         /* as the log wrote it */
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

struct loss_record {
    enum leak_class cls;
    int classified;    /* the log has verdicts: cls is one */
    int32_t stack;     /* index into the log's stacks, -1: none recorded */
    uint64_t sid;      /* the log's stack id ("#s"), when stack >= 0 */
    uint64_t bytes, blocks; /* direct (sampled log: estimates) */
    uint64_t indirect;      /* bytes kept alive through these blocks */
    int suppressed;         /* index into supp->s, -1: none */
    const char *suppressed_by;        /* its pattern, or NULL */
    const struct view_frames *frames; /* NULL: no stack recorded */
    char fingerprint[FP_LEN]; /* stable across runs and rebuilds
                                 (fingerprint.h) */
    int baseline; /* the fingerprint is in the --baseline file */
    int failing;  /* counts toward the exit status (--fail-on; a log
                     without verdicts: every leak) */
    /* Definitely lost: what one of its blocks held at the scan ("#w"),
     * or NULL; the C++ class of that object (its vtable), or NULL
     * (findings/blockinfo.h). */
    const struct block_preview *preview;
    const char *type;
    int new_since_previous; /* definitely lost, and its stack had no
                               definitely lost block at the scan before
                               the last (findings.has_previous_scan) */
    enum block_kind kind; /* malloc's, a pool's, a mapping (xblocks.h) */
};

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

struct class_view; /* classes.h */

struct findings {
    const char *log, *binary; /* binary NULL when not given */
    const char *program;      /* "#p", or NULL */
    int extended;             /* "#v": libmtrace's extended log */
    uint64_t sample_rate;     /* 0: not sampled */
    int judged;               /* extended: the end state is told */
    int classified;           /* reported by class (verdicts) */
    int has_verdicts;         /* the log carries a scan ("#C scan") */

    size_t nleaks;                 /* the leak table (findings_leak) */
    struct leak_group *groups;     /* largest first */
    size_t ngroups;
    struct loss_record *records;   /* memcheck's order */
    size_t nrecords;

    /* With verdicts (classified): */
    struct class_sums sums;
    const struct verdicts *verdicts; /* the scans */
    const struct suppressions *supp; /* every pattern, with what it took */
    const struct baseline *baseline; /* --baseline, or NULL */
    int show_reachable;

    struct totals totals;
    const struct log_end *end;
    const struct timeline *tl; /* the pictures' data, or NULL */
    struct ext_store *stacks;  /* the log's stacks (view_stack) */
    int failing;               /* exit status 1 (--fail-on) */

    /* Private to findings.c and classes.c. */
    struct engine *e;
    struct block **blocks;
    struct u64map by_stack;
    struct view_cache *vcache; /* every stack's frames (viewcache.h) */
    struct class_view *cv;

    /* Growth over the scans (growth.h): */
    const struct scan_series *series; /* every scan of the log */
    size_t nseries;        /* scans the analysis read (exit left out) */
    struct growth *growth; /* stacks still growing, fastest first */
    size_t ngrowth;
    int has_previous_scan; /* definite records say new_since_previous */
    struct view_frames *growth_views; /* private to growth.c */
    /* Resources not released, and the warnings about "#r" records
     * (resfind.h): listed ones fail the run with --fail-on's definite. */
    struct res_findings resources;
    /* The resident memory the "#t" records sampled (replay/rss.h);
     * samples 0: none. */
    const struct rss_stats *rss;
};

/* Everything the replayed engine E holds, as findings of LOG (BINARY may
 * be NULL); CO: how verdicts are reported (NULL: the defaults); TL: the
 * finished timeline when the pictures were asked for, else NULL. */
void findings_build(struct findings *f, struct engine *e, const char *log,
                    const char *binary, const struct class_options *co,
                    const struct timeline *tl);
void findings_destroy(struct findings *f);

/* Row I of the leak table.  WITH_CALLER: compute its caller string
 * (Perl's location(), which may run addr2line; call in row order). */
void findings_leak(const struct findings *f, size_t i, int with_caller,
                   struct leak *out);

/* Whether class C is a leak: definitely, indirectly or possibly lost (the
 * loss records of valgrind's LEAK SUMMARY).  The pictures call these, and
 * only these, leaks. */
int class_is_leak(enum leak_class c);
/* The key of class C in the JSON totals: "definitely_lost", ... */
const char *class_key(enum leak_class c);
/* The bytes of leaks (class_is_leak, not suppressed) per stack index + 1,
 * for N such indexes (0: blocks without a stack); free() it. */
uint64_t *findings_lost_bytes(const struct findings *f, size_t n);

#endif

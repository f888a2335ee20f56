/* SPDX-License-Identifier: GPL-3.0-or-later */
/* classreport.h - the leaks of a log that carries reachability verdicts
 * (verdict.h), reported by class as valgrind's memcheck does: loss
 * records (blocks of one class and one allocation stack), definitely lost
 * first, then indirectly and possibly lost, then blocks allocated after
 * the last scan; still reachable memory as one line unless asked for; the
 * suppressions that matched (LeakSanitizer's table); and memcheck's
 * LEAK SUMMARY.  --json gets the same as data (doc/json.md).
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_CLASSREPORT_H
#define MTC_CLASSREPORT_H

#include "baseline.h"
#include "engine.h"
#include "fingerprint.h"
#include "suppress.h"
#include "verdict.h"

#include <stdio.h>

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

/* ",\"classes\":{...}" for the JSON totals. */
void class_sums_json(FILE *out, const struct class_sums *s);
/* The key of class C in those totals: "definitely_lost", ... */
const char *class_key(enum leak_class c);

struct class_view;

/* Classes for BLOCKS[0..N) (the live blocks, in the order the leak table
 * lists them) and their loss records. */
struct class_view *classview_build(struct engine *e, struct block **blocks,
                                   size_t n, const struct class_options *o);
void classview_free(struct class_view *cv);
/* The class of BLOCKS[I]. */
enum leak_class classview_class(const struct class_view *cv, size_t i);
/* The pattern of the suppression that took BLOCKS[I], or NULL. */
const char *classview_suppressed_by(const struct class_view *cv, size_t i);
/* The blocks of the --fail-on classes, suppressed ones left out: what
 * the exit status counts, and JSON's leaked_bytes and leaked_blocks. */
struct class_sum classview_failing(const struct class_view *cv);
/* The text report, or the JSON members "scan", "suppressions",
 * "loss_records" (opened after the "groups" array). */
void classview_text(const struct class_view *cv, FILE *out);
void classview_json(const struct class_view *cv, FILE *out);
const struct class_sums *classview_sums(const struct class_view *cv);
/* The loss records, for the pictures (html.h): one per class and
 * allocation stack, in the text report's order. */
struct loss_info {
    enum leak_class cls;
    int suppressed; /* a suppression took it: counted apart */
    int32_t stack;  /* index into the log's stacks, -1: none recorded */
    uint64_t bytes, blocks;
    uint64_t indirect; /* bytes lost through it (definitely lost)     */
    const struct view_frames *frames; /* NULL: no stack recorded      */
    const char *fingerprint;          /* fingerprint.h                */
    int baseline; /* its fingerprint is in the --baseline file        */
    int failing;  /* counts toward the exit status (--fail-on)        */
    const char *suppressed_by; /* the pattern, when suppressed        */
};
size_t classview_nrecords(const struct class_view *cv);
void classview_record(const struct class_view *cv, size_t i,
                      struct loss_info *out);
/* Whether class C is a leak: definitely, indirectly or possibly lost (the
 * loss records of valgrind's LEAK SUMMARY).  The pictures call these, and
 * only these, leaks. */
int class_is_leak(enum leak_class c);
/* The bytes of leaks (class_is_leak, not suppressed) per stack index + 1,
 * for N such indexes (0: blocks without a stack); free() it. */
uint64_t *classview_lost_bytes(const struct class_view *cv, size_t n);
/* Whether the leaks found make the run fail (--fail-on; loss records in
 * the baseline do not). */
int classview_fails(const struct class_view *cv);

#endif

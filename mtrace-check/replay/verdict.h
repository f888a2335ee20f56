/* SPDX-License-Identifier: GPL-3.0-or-later */
/* verdict.h - the reachability verdicts a libmtrace log carries ("#C" and
 * "#c" records, doc/format.md): which live block the in-process scan
 * found still reachable, possibly lost, indirectly or definitely lost.
 *
 * A "#C scan" record stands where the world was stopped: every block
 * live there is still reachable unless a "#c" record follows for it.
 * Verdicts are kept by address; at the end, a live block allocated
 * before the last scan is the block that scan saw at its address (it
 * was never freed after), so the rule does not depend on the order the
 * lines were replayed in (replay.h applies records and events of a
 * segment apart); a block allocated after it is not classified.  A later
 * scan replaces an earlier one.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_VERDICT_H
#define MTC_VERDICT_H

#include "base/maps.h"
#include "replay/table.h"

enum leak_class {
    CLASS_UNKNOWN,   /* no scan saw the block                   */
    CLASS_REACHABLE, /* still reachable                         */
    CLASS_POSSIBLE,  /* possibly lost                           */
    CLASS_INDIRECT,  /* indirectly lost                         */
    CLASS_DEFINITE,  /* definitely lost                         */
    CLASS_COUNT
};

struct scan_info {
    char trigger[16];
    uint64_t threads, stopped, unstopped, blocks, scanned, us;
};

struct verdicts {
    uint64_t scans;     /* "#C scan" records read                  */
    uint64_t scan_line; /* line of the last one                    */
    struct scan_info last;
    struct u64map by_addr; /* address -> struct verdict_entry *  */
    char **suppressions;   /* "#C suppression" patterns, distinct   */
    size_t nsuppressions;
    uint64_t bad_records;
};

void verdicts_init(struct verdicts *v);
void verdicts_destroy(struct verdicts *v);

/* A "#C" or "#c" line (LINE is the whole line, NR its number). */
void verdicts_record(struct verdicts *v, const char *line, size_t len,
                     uint64_t nr);
/* The class of a verdict letter (MTF_VERDICT_*: d, i, p, r), or
 * CLASS_UNKNOWN for anything else. */
enum leak_class verdict_class_of_letter(struct slice s);
static inline int verdicts_is_record(struct slice first)
{
    return first.n == 2 && first.p[0] == '#' &&
           (first.p[1] == 'c' || first.p[1] == 'C');
}

/* The class of live block B; *INDIRECT gets the bytes lost through it
 * (definitely lost blocks). */
enum leak_class verdicts_class(const struct verdicts *v, const struct block *b,
                               uint64_t *indirect);

const char *class_name(enum leak_class c); /* "definitely-lost", ... */
/* "definitely lost", ... as valgrind writes them. */
const char *class_words(enum leak_class c);
/* "definite,indirect" -> a mask of (1 << class); -1 when malformed. */
int class_mask_parse(const char *list);

#endif

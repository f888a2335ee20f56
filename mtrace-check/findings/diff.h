/* SPDX-License-Identifier: GPL-3.0-or-later */
/* diff.h - two runs compared (mtrace-check --diff OLD NEW): which loss
 * records are new in NEW, which are gone, which grew.
 *
 * Records are matched by class and fingerprint (fingerprint.h: function
 * and file names, never addresses), so two runs of one program match
 * whatever ASLR did to their addresses, and a rebuild matches too.  Only
 * the records a report lists as leaks take part: a lost class or one of
 * the --fail-on classes, not suppressed (a log without verdicts: every
 * record, as the text report lists every block).  A record grew when it
 * holds more bytes or more blocks in NEW.  The exit status of the run is
 * 1 when a new record fails the run (its class is a --fail-on one and no
 * --baseline knows it: loss_record.failing of NEW).
 *
 * The writers (output/diffout.h) print the lists; the model points into
 * both findings, which must outlive it.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_DIFF_H
#define MTC_DIFF_H

#include "findings/findings.h"

/* One record of the comparison: OLD or NEW is NULL when it is absent
 * from that log. */
struct diff_entry {
    const struct loss_record *old, *new;
};

struct findings_diff {
    const struct findings *old, *new;
    struct diff_entry *added, *gone, *grown; /* in each log's record order */
    size_t nadded, ngone, ngrown;
    struct diff_entry *same; /* matched, not grown (maybe shrunk) */
    size_t nsame;
    int failing; /* a new record fails the run (exit status 1) */
};

/* Compares OLD with NEW. */
void diff_build(struct findings_diff *d, const struct findings *old,
                const struct findings *new);
void diff_destroy(struct findings_diff *d);

/* Whether record R of F takes part in a comparison. */
int diff_counts(const struct findings *f, const struct loss_record *r);

#endif

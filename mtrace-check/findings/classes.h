/* SPDX-License-Identifier: GPL-3.0-or-later */
/* classes.h - the leaks of a log that carries reachability verdicts
 * (verdict.h), sorted as valgrind's memcheck reports them: loss records
 * (blocks of one class and one allocation stack), definitely lost first,
 * then indirectly and possibly lost, then blocks allocated after the last
 * scan, then still reachable ones; suppressions applied (suppress.h) and
 * the sums by class.  findings.c puts them in the model; the writers
 * (output/) print them.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_CLASSES_H
#define MTC_CLASSES_H

#include "findings/findings.h"

struct class_view {
    struct engine *e;
    const struct class_options *o;
    uint8_t *cls; /* per block */
    int *supp_of; /* per block: its suppression's index, -1: none */
    struct loss_record *rec;
    size_t nrec;
    struct view_cache *vcache; /* the stacks' frames (findings') */
    struct class_sums sums;
};

/* Classes for BLOCKS[0..N) (the live blocks, in the order the leak table
 * lists them) and their loss records, whose frames come from VC. */
struct class_view *classview_build(struct engine *e, struct block **blocks,
                                   size_t n, const struct class_options *o,
                                   struct view_cache *vc);
void classview_free(struct class_view *cv);
/* The class of BLOCKS[I]. */
enum leak_class classview_class(const struct class_view *cv, size_t i);
/* The pattern of the suppression that took BLOCKS[I], or NULL. */
const char *classview_suppressed_by(const struct class_view *cv, size_t i);
/* The blocks of the --fail-on classes, suppressed ones left out: what
 * the exit status counts, and JSON's leaked_bytes and leaked_blocks. */
struct class_sum classview_failing(const struct class_view *cv);
const struct class_sums *classview_sums(const struct class_view *cv);
struct loss_record *classview_records(const struct class_view *cv, size_t *n);
/* Whether the leaks found make the run fail (--fail-on). */
int classview_fails(const struct class_view *cv);

#endif

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* leakreport.h - the reachability verdicts in a report (doc/report.md):
 * the scan's figures and the totals by class in the header, and the lost
 * blocks grouped by class and allocation stack, definitely lost first,
 * with the suppressions that matched. */
#ifndef MT_LEAKREPORT_H
#define MT_LEAKREPORT_H
#include "scan/scan.h"
#include "base/writer.h"

struct frame;

struct leak_report {
    const struct scan_result *scan;
    struct leak_group *groups; /* lost blocks by (class, stack)         */
    size_t ngroups, cap;
    struct class_sum sum[VERDICT_COUNT], suppressed;
    struct class_sum *by_pattern; /* per suppression                  */
};

/* Groups the scan's lost blocks and applies the suppressions (done
 * after the world runs again: it may read symbol tables). */
void leakreport_build(struct leak_report *lr, const struct scan_result *scan);
void leakreport_free(struct leak_report *lr);
/* "reach ..." and the scan's header lines. */
void leakreport_header(struct writer *w, const struct leak_report *lr);
/* The "leaks" section; PUT_FRAME writes one frame line's text. */
void leakreport_body(struct writer *w, const struct leak_report *lr,
                     void (*put_frame)(struct writer *, const struct frame *));

#endif

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
    /* The stacks with definitely lost blocks at the scan before this
     * one (a bit per stack id), or NULL when there was none: a definitely
     * lost group of another stack is marked "new" (doc/report.md). */
    const uint8_t *previous_definite;
    size_t previous_bits;
};

/* A bit per stack id: the stacks with definitely lost blocks in SCAN's
 * verdicts (pages_map'd, *BITS set to its size in bits; NULL when the
 * scan failed or out of memory).  Free with leakreport_free_bits. */
uint8_t *leakreport_definite_bits(const struct scan_result *scan,
                                  size_t *bits);
void leakreport_free_bits(uint8_t *map, size_t bits);

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

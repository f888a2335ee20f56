/* SPDX-License-Identifier: GPL-3.0-or-later */
/* radix.h - a stable sort of 128-bit keys, eight bits a pass, skipping
 * the passes where every key has the same byte.
 *
 * The checker sorts tens of thousands of records by a key it can reduce
 * to 128 bits (the leak table's addresses, the fingerprints' hashes);
 * qsort's comparator calls cost more than the comparisons.  Keys that tie
 * here are left in their order for the caller to finish.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_RADIX_H
#define MTC_RADIX_H

#include <stddef.h>
#include <stdint.h>

struct radix_item {
    uint64_t hi, lo; /* the key: hi first */
    size_t ref;      /* the caller's */
};

/* Sort A[0..N) by (hi, lo), stably, using TMP (room for N items); returns
 * the array that holds the result, A or TMP. */
struct radix_item *radix_sort(struct radix_item *a, struct radix_item *tmp,
                              size_t n);

#endif

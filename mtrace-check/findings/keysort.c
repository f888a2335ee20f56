/* SPDX-License-Identifier: GPL-3.0-or-later */
/* keysort.c - see keysort.h.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "findings/keysort.h"
#include "base/radix.h"

#include <stdlib.h>
#include <string.h>

int keysort_cmp(const struct block *a, const struct block *b)
{
    struct slice x = block_key(a), y = block_key(b);
    size_t n = x.n < y.n ? x.n : y.n;
    int c = memcmp(x.p, y.p, n);
    if (c)
        return c;
    return (x.n > y.n) - (x.n < y.n);
}

static int by_key(const void *a, const void *b)
{
    return keysort_cmp(*(struct block *const *)a, *(struct block *const *)b);
}

/* The first 16 bytes of B's key, big-endian words, 0-padded. */
static struct radix_item keyed_of(struct block *b, size_t ref)
{
    struct slice s = block_key(b);
    unsigned char bytes[16] = { 0 };
    memcpy(bytes, s.p, s.n < 16 ? s.n : 16);
    struct radix_item k = { 0, 0, ref };
    for (int i = 0; i < 8; i++) {
        k.hi = k.hi << 8 | bytes[i];
        k.lo = k.lo << 8 | bytes[8 + i];
    }
    return k;
}

/* Runs alike in their first 16 bytes, in full order. */
static void finish_ties(struct block **b, const struct radix_item *k,
                        size_t n)
{
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && k[j].hi == k[i].hi && k[j].lo == k[i].lo)
            j++;
        if (j - i > 1)
            qsort(b + i, j - i, sizeof *b, by_key);
        i = j;
    }
}

void keysort_blocks(struct block **b, size_t n)
{
    struct radix_item *k = xmalloc((n + 1) * sizeof *k);
    struct radix_item *tmp = xmalloc((n + 1) * sizeof *tmp);
    struct block **was = xmalloc((n + 1) * sizeof *was);
    for (size_t i = 0; i < n; i++) {
        k[i] = keyed_of(b[i], i);
        was[i] = b[i];
    }
    const struct radix_item *sorted = radix_sort(k, tmp, n);
    for (size_t i = 0; i < n; i++)
        b[i] = was[sorted[i].ref];
    finish_ties(b, sorted, n);
    free(was);
    free(k);
    free(tmp);
}

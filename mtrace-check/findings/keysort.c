/* SPDX-License-Identifier: GPL-3.0-or-later */
/* keysort.c - see keysort.h.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "findings/keysort.h"

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

struct keyed {
    uint64_t w[2]; /* bytes 0-7 and 8-15 of the key, big-endian, 0-padded */
    struct block *b;
};

static struct keyed keyed_of(struct block *b)
{
    struct slice s = block_key(b);
    unsigned char bytes[16] = { 0 };
    memcpy(bytes, s.p, s.n < 16 ? s.n : 16);
    struct keyed k = { { 0, 0 }, b };
    for (int i = 0; i < 16; i++)
        k.w[i / 8] = k.w[i / 8] << 8 | bytes[i];
    return k;
}

/* One stable pass of the radix sort on byte SHIFT/8 of word W, from SRC
 * to DST; 0 when every key has the same byte there (nothing moved). */
static int pass(const struct keyed *src, struct keyed *dst, size_t n, int w,
                int shift)
{
    size_t count[256] = { 0 };
    for (size_t i = 0; i < n; i++)
        count[src[i].w[w] >> shift & 0xff]++;
    size_t at = 0;
    for (int d = 0; d < 256; d++) {
        if (count[d] == n)
            return 0;
        size_t c = count[d];
        count[d] = at;
        at += c;
    }
    for (size_t i = 0; i < n; i++)
        dst[count[src[i].w[w] >> shift & 0xff]++] = src[i];
    return 1;
}

/* Runs alike in their first 16 bytes, in full order. */
static void finish_ties(struct block **b, const struct keyed *k, size_t n)
{
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && k[j].w[0] == k[i].w[0] && k[j].w[1] == k[i].w[1])
            j++;
        if (j - i > 1)
            qsort(b + i, j - i, sizeof *b, by_key);
        i = j;
    }
}

void keysort_blocks(struct block **b, size_t n)
{
    struct keyed *k = xmalloc((n + 1) * sizeof *k);
    struct keyed *tmp = xmalloc((n + 1) * sizeof *tmp);
    for (size_t i = 0; i < n; i++)
        k[i] = keyed_of(b[i]);
    for (int w = 1; w >= 0; w--)
        for (int shift = 0; shift < 64; shift += 8)
            if (pass(k, tmp, n, w, shift)) {
                struct keyed *t = k;
                k = tmp;
                tmp = t;
            }
    for (size_t i = 0; i < n; i++)
        b[i] = k[i].b;
    finish_ties(b, k, n);
    free(k);
    free(tmp);
}

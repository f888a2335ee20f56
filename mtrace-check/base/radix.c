/* SPDX-License-Identifier: GPL-3.0-or-later */
/* radix.c - see radix.h.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "base/radix.h"

static uint64_t word(const struct radix_item *it, int w)
{
    return w ? it->hi : it->lo;
}

/* One stable pass on byte SHIFT/8 of word W (0: lo, 1: hi), from SRC to
 * DST; 0 when every key has the same byte there (nothing moved). */
static int pass(const struct radix_item *src, struct radix_item *dst,
                size_t n, int w, int shift)
{
    size_t count[256] = { 0 };
    for (size_t i = 0; i < n; i++)
        count[word(&src[i], w) >> shift & 0xff]++;
    size_t at = 0;
    for (int d = 0; d < 256; d++) {
        if (count[d] == n)
            return 0;
        size_t c = count[d];
        count[d] = at;
        at += c;
    }
    for (size_t i = 0; i < n; i++)
        dst[count[word(&src[i], w) >> shift & 0xff]++] = src[i];
    return 1;
}

struct radix_item *radix_sort(struct radix_item *a, struct radix_item *tmp,
                              size_t n)
{
    for (int w = 0; w < 2; w++)
        for (int shift = 0; shift < 64; shift += 8)
            if (n > 1 && pass(a, tmp, n, w, shift)) {
                struct radix_item *t = a;
                a = tmp;
                tmp = t;
            }
    return a;
}

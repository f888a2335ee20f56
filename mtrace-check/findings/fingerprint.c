/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fingerprint.c - see fingerprint.h.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "findings/fingerprint.h"
#include "findings/fp_hash.h"
#include "findings/findings.h"
#include "base/radix.h"
#include "base/util.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fp_frame_is_runtime(const struct view_frame *f)
{
    static const char *const runtime[] = {
        "libc.so",      "libc-",      "ld-linux",      "ld64.so",
        "libstdc++.so", "libgcc_s.so", "libm.so",      "libpthread.so",
        "libdl.so",     "libmtrace.so",
    };
    const char *m = path_base(f->module);
    if (m == NULL)
        return 0;
    for (size_t i = 0; i < sizeof runtime / sizeof runtime[0]; i++)
        if (m[0] == runtime[i][0] &&
            strncmp(m, runtime[i], strlen(runtime[i])) == 0)
            return 1;
    return 0;
}

/* An inline frame of memleak.h's (memleak_pool_alloc, the client API's
 * wrappers): in the program's code, but not the place to show. */
static int api_inline(const struct view_frame *f)
{
    return f->inlined && f->file && strcmp(path_base(f->file), "memleak.h") == 0;
}

const struct view_frame *fp_own_frame(const struct view_frames *f)
{
    if (f == NULL || f->n == 0)
        return NULL;
    for (size_t i = 0; i < f->n; i++)
        if (!fp_frame_is_runtime(&f->v[i]) && f->v[i].file && f->v[i].line &&
            !api_inline(&f->v[i]))
            return &f->v[i];
    for (size_t i = 0; i < f->n; i++)
        if (!fp_frame_is_runtime(&f->v[i]))
            return &f->v[i];
    return &f->v[0];
}

/* One item prepared for the sort: its hash (fp_hash.h), and which of its
 * frames count (the own ones, or all: fp_counted.h). */
struct keyed {
    uint64_t h;
    const struct fp_item *it;
    const uint8_t *counted; /* per frame, 1: counted; NULL: no frames */
};

/* The next counted frame of A at or after I. */
static size_t next_counted(const struct keyed *a, size_t i)
{
    size_t n = a->it->frames ? a->it->frames->n : 0;
    while (i < n && !a->counted[i])
        i++;
    return i;
}

/* The counted frames' lines, then their offsets: the order of two stacks
 * that share a hash. */
static int by_place(const struct keyed *a, const struct keyed *b)
{
    const struct view_frames *fa = a->it->frames, *fb = b->it->frames;
    size_t na = fa ? fa->n : 0, nb = fb ? fb->n : 0;
    for (int pass = 0; pass < 2; pass++) {
        size_t i = 0, k = 0;
        for (;;) {
            i = next_counted(a, i);
            k = next_counted(b, k);
            int end_a = i >= na, end_b = k >= nb;
            if (end_a || end_b) {
                if (end_a != end_b)
                    return end_a ? -1 : 1;
                break;
            }
            uint64_t x = pass ? fa->v[i].off : fa->v[i].line;
            uint64_t y = pass ? fb->v[k].off : fb->v[k].line;
            if (x != y)
                return x < y ? -1 : 1;
            i++, k++;
        }
    }
    return 0;
}

static int by_hash_then_place(const void *pa, const void *pb)
{
    const struct keyed *a = pa, *b = pb;
    if (a->h != b->h)
        return a->h < b->h ? -1 : 1;
    int c = by_place(a, b);
    if (c)
        return c;
    return (a->it->stack > b->it->stack) - (a->it->stack < b->it->stack);
}

/* K by by_hash_then_place: by hash in a radix sort (radix.h), then each
 * run of one hash by the comparison. */
static void sort_keyed(struct keyed *k, size_t n)
{
    struct radix_item *r = xmalloc((n + 1) * sizeof *r);
    struct radix_item *tmp = xmalloc((n + 1) * sizeof *tmp);
    struct keyed *was = xmalloc((n + 1) * sizeof *was);
    for (size_t i = 0; i < n; i++) {
        r[i] = (struct radix_item){ k[i].h, 0, i };
        was[i] = k[i];
    }
    const struct radix_item *sorted = radix_sort(r, tmp, n);
    for (size_t i = 0; i < n; i++)
        k[i] = was[sorted[i].ref];
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && k[j].h == k[i].h)
            j++;
        if (j - i > 1)
            qsort(k + i, j - i, sizeof *k, by_hash_then_place);
        i = j;
    }
    free(was);
    free(r);
    free(tmp);
}

/* "%016" PRIx64, then ".%u" unless ORDINAL is 1, as snprintf would
 * write them (a few hundred thousand records make snprintf show). */
static void format_fp(char *out, uint64_t h, unsigned ordinal)
{
    static const char digits[] = "0123456789abcdef";
    for (int i = 15; i >= 0; i--, h >>= 4)
        out[i] = digits[h & 15];
    out[16] = '\0';
    if (ordinal != 1)
        snprintf(out + 16, FP_LEN - 16, ".%u", ordinal);
}

void fingerprint_assign(struct fp_item *items, size_t n)
{
    struct keyed *k = xcalloc(n + 1, sizeof *k);
    uint64_t *h = xcalloc(n + 1, sizeof *h);
    struct fp_counted c;
    fp_counted_init(&c, items, n);
    fp_hash_items(items, &c, n, h);
    for (size_t i = 0; i < n; i++) {
        k[i].it = &items[i];
        k[i].counted = fp_counted_of(&c, i);
        k[i].h = h[i];
    }
    free(h);
    sort_keyed(k, n);
    unsigned ordinal = 0;
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || k[i].h != k[i - 1].h)
            ordinal = 1;
        else if (k[i].it->stack != k[i - 1].it->stack)
            ordinal++;
        struct fp_item *it = (struct fp_item *)k[i].it;
        format_fp(it->fp, k[i].h, ordinal);
    }
    fp_counted_destroy(&c);
    free(k);
}

void fingerprint_records(struct loss_record *r, size_t n)
{
    struct fp_item *it = xcalloc(n + 1, sizeof *it);
    for (size_t i = 0; i < n; i++) {
        it[i].frames = r[i].frames;
        it[i].stack = r[i].stack;
    }
    fingerprint_assign(it, n);
    for (size_t i = 0; i < n; i++)
        memcpy(r[i].fingerprint, it[i].fp, FP_LEN);
    free(it);
}

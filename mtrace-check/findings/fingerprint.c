/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fingerprint.c - see fingerprint.h.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "findings/fingerprint.h"
#include "findings/findings.h"
#include "base/util.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *base_name(const char *path)
{
    const char *slash = path ? strrchr(path, '/') : NULL;
    return slash ? slash + 1 : path;
}

int fp_frame_is_runtime(const struct view_frame *f)
{
    static const char *const runtime[] = {
        "libc.so",      "libc-",      "ld-linux",      "ld64.so",
        "libstdc++.so", "libgcc_s.so", "libm.so",      "libpthread.so",
        "libdl.so",     "libmtrace.so",
    };
    const char *m = base_name(f->module);
    if (m == NULL)
        return 0;
    for (size_t i = 0; i < sizeof runtime / sizeof runtime[0]; i++)
        if (strncmp(m, runtime[i], strlen(runtime[i])) == 0)
            return 1;
    return 0;
}

/* Whether the stack has a frame of the program's own. */
static int has_own(const struct view_frames *f)
{
    for (size_t i = 0; f && i < f->n; i++)
        if (!fp_frame_is_runtime(&f->v[i]))
            return 1;
    return 0;
}

/* The frames that make the fingerprint: the own ones, or all. */
static int counted(const struct view_frame *v, int own)
{
    return !own || !fp_frame_is_runtime(v);
}

/* An inline frame of memleak.h's (memleak_pool_alloc, the client API's
 * wrappers): in the program's code, but not the place to show. */
static int api_inline(const struct view_frame *f)
{
    return f->inlined && f->file && strcmp(base_name(f->file), "memleak.h") == 0;
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

/* FNV-1a, 64 bits: a fixed function of the bytes, the same on every
 * machine and in every version (the fingerprints are kept in files). */
static uint64_t fnv(uint64_t h, const char *s)
{
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 0x100000001b3ull;
    }
    h ^= 0xff; /* the end of a string: "ab" "c" differs from "a" "bc" */
    return h * 0x100000001b3ull;
}

static uint64_t stack_hash(const struct view_frames *f)
{
    uint64_t h = 0xcbf29ce484222325ull;
    int own = has_own(f);
    for (size_t i = 0; f && i < f->n; i++) {
        const struct view_frame *v = &f->v[i];
        if (!counted(v, own))
            continue;
        h = fnv(h, v->function ? v->function : "??");
        /* Not the module: the program's file name may change (a test
         * binary built under another name) and the leak stays. */
        h = fnv(h, v->file ? base_name(v->file) : "");
    }
    return h;
}

struct keyed {
    uint64_t h;
    const struct fp_item *it;
};

/* The counted frames' lines, then their offsets: the order of two stacks
 * that share a hash. */
static int by_place(const struct view_frames *a, const struct view_frames *b)
{
    int own_a = has_own(a), own_b = has_own(b);
    for (int pass = 0; pass < 2; pass++) {
        size_t i = 0, k = 0;
        for (;;) {
            while (a && i < a->n && !counted(&a->v[i], own_a))
                i++;
            while (b && k < b->n && !counted(&b->v[k], own_b))
                k++;
            int end_a = !a || i >= a->n, end_b = !b || k >= b->n;
            if (end_a || end_b) {
                if (end_a != end_b)
                    return end_a ? -1 : 1;
                break;
            }
            uint64_t x = pass ? a->v[i].off : a->v[i].line;
            uint64_t y = pass ? b->v[k].off : b->v[k].line;
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
    int c = by_place(a->it->frames, b->it->frames);
    if (c)
        return c;
    return (a->it->stack > b->it->stack) - (a->it->stack < b->it->stack);
}

void fingerprint_assign(struct fp_item *items, size_t n)
{
    struct keyed *k = xcalloc(n + 1, sizeof *k);
    for (size_t i = 0; i < n; i++) {
        k[i].h = stack_hash(items[i].frames);
        k[i].it = &items[i];
    }
    qsort(k, n, sizeof *k, by_hash_then_place);
    unsigned ordinal = 0;
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || k[i].h != k[i - 1].h)
            ordinal = 1;
        else if (k[i].it->stack != k[i - 1].it->stack)
            ordinal++;
        struct fp_item *it = (struct fp_item *)k[i].it;
        if (ordinal == 1)
            snprintf(it->fp, sizeof it->fp, "%016" PRIx64, k[i].h);
        else
            snprintf(it->fp, sizeof it->fp, "%016" PRIx64 ".%u", k[i].h,
                     ordinal);
    }
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

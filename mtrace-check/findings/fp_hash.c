/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fp_hash.c - see fp_hash.h.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "findings/fp_hash.h"
#include "base/util.h"

#include <pthread.h>
#include <string.h>

/* Below this many records one thread does it all: a thread costs more
 * than it saves. */
enum { SPLIT_MIN = 4096 };

/* FNV-1a, 64 bits, over the bytes of S and then 0xff: "ab" "c" differs
 * from "a" "bc". */
static uint64_t fnv(uint64_t h, const char *s)
{
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 0x100000001b3ull;
    }
    h ^= 0xff;
    return h * 0x100000001b3ull;
}

static uint64_t stack_hash(const struct view_frames *f, const uint8_t *counted)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; f && i < f->n; i++) {
        const struct view_frame *v = &f->v[i];
        if (!counted[i])
            continue;
        h = fnv(h, v->function ? v->function : "??");
        /* Not the module: the program's file name may change (a test
         * binary built under another name) and the leak stays. */
        h = fnv(h, v->file ? path_base(v->file) : "");
    }
    return h;
}

/* One range of the records, for a thread. */
struct part {
    const struct fp_item *items;
    struct fp_counted *c;
    size_t from, to;
    uint64_t *out;
};

static void *hash_part(void *arg)
{
    struct part *p = arg;
    fp_counted_fill(p->c, p->items, p->from, p->to);
    for (size_t i = p->from; i < p->to; i++)
        p->out[i] = stack_hash(p->items[i].frames, fp_counted_of(p->c, i));
    return NULL;
}

void fp_hash_items(const struct fp_item *items, struct fp_counted *c,
                   size_t n, uint64_t *out)
{
    size_t half = n >= SPLIT_MIN ? n / 2 : n;
    struct part lo = { items, c, 0, half, out };
    struct part hi = { items, c, half, n, out };
    pthread_t t;
    int started = half < n && pthread_create(&t, NULL, hash_part, &hi) == 0;
    hash_part(&lo);
    if (started)
        pthread_join(t, NULL);
    else
        hash_part(&hi);
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* viewcache.c - see viewcache.h.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "symbolize/viewcache.h"
#include "base/prefault.h"

#include <stdlib.h>
#include <string.h>

/* One distinct recorded frame: its views are pool.v[first .. first + n).
 * n is never 0 for a frame seen (view_frame_ref appends at least one):
 * 0 marks a free slot. */
struct frame_run {
    uint64_t off;
    int32_t module;
    uint32_t n;
    size_t first;
};

/* The stacks' views are cut from chunks, freed together. */
struct chunk {
    struct chunk *next;
    size_t used, size;
    struct view_frame v[];
};

/* Chunks double from the first to the last size: a small log's views
 * take little, a large one's come in chunks worth prefaulting whole
 * (prefault.h; a chunk is allocated when its frames are about to be
 * written, and only the last may stay part empty). */
enum { FIRST_CHUNK = 1024, LAST_CHUNK = 32768 };

struct view_cache {
    struct ext_store *x;
    struct frame_run *runs; /* open addressing, by (module, off) */
    size_t nslots, nruns;
    struct view_frames pool; /* every distinct frame's views */
    struct view_frames *views; /* per stack */
    uint8_t *viewed;
    size_t nstacks;
    struct chunk *chunks;
    struct frame_run *scratch; /* a stack's runs, by frame (copies: the
                                  table may grow while a stack is read) */
    size_t cap_scratch;
};

struct view_cache *viewcache_new(struct ext_store *x)
{
    struct view_cache *c = xcalloc(1, sizeof *c);
    c->x = x;
    c->nslots = 1024;
    c->runs = xcalloc(c->nslots, sizeof *c->runs);
    c->nstacks = x->nstacks;
    c->views = xcalloc(c->nstacks + 1, sizeof *c->views);
    c->viewed = xcalloc(c->nstacks + 1, 1);
    return c;
}

static size_t slot_of(const struct view_cache *c, int32_t module, uint64_t off)
{
    uint64_t k = off ^ (uint64_t)(uint32_t)module * 0x9e3779b97f4a7c15ULL;
    size_t mask = c->nslots - 1;
    size_t i = hash_u64(k) & mask;
    while (c->runs[i].n &&
           (c->runs[i].off != off || c->runs[i].module != module))
        i = (i + 1) & mask;
    return i;
}

static void grow(struct view_cache *c)
{
    struct frame_run *old = c->runs;
    size_t oldn = c->nslots;
    c->nslots *= 2;
    c->runs = xcalloc(c->nslots, sizeof *c->runs);
    for (size_t i = 0; i < oldn; i++)
        if (old[i].n)
            c->runs[slot_of(c, old[i].module, old[i].off)] = old[i];
    free(old);
}

/* The run of REF's views, made on its first sight. */
static const struct frame_run *run_of(struct view_cache *c,
                                      const struct frame_ref *ref)
{
    size_t i = slot_of(c, ref->module, ref->off);
    if (c->runs[i].n)
        return &c->runs[i];
    if ((c->nruns + 1) * 10 > c->nslots * 7) {
        grow(c);
        i = slot_of(c, ref->module, ref->off);
    }
    struct frame_run *r = &c->runs[i];
    r->off = ref->off;
    r->module = ref->module;
    r->first = c->pool.n;
    view_frame_ref(c->x, ref, &c->pool);
    r->n = (uint32_t)(c->pool.n - r->first);
    c->nruns++;
    return r;
}

static struct view_frame *cut(struct view_cache *c, size_t n)
{
    struct chunk *k = c->chunks;
    if (k == NULL || k->size - k->used < n) {
        size_t size = k == NULL             ? FIRST_CHUNK
                      : k->size < LAST_CHUNK ? k->size * 2
                                             : LAST_CHUNK;
        if (size < n)
            size = n;
        k = xmalloc(sizeof *k + size * sizeof k->v[0]);
        prefault_write(k->v, size * sizeof k->v[0]);
        k->next = c->chunks;
        k->used = 0;
        k->size = size;
        c->chunks = k;
    }
    k->used += n;
    return k->v + k->used - n;
}

static void build(struct view_cache *c, int32_t st)
{
    const struct stack *s = &c->x->stacks[st];
    if (s->nframes > c->cap_scratch) {
        c->cap_scratch = s->nframes;
        c->scratch = xrealloc(c->scratch, c->cap_scratch * sizeof *c->scratch);
    }
    size_t total = 0;
    for (uint32_t i = 0; i < s->nframes; i++) {
        const struct frame_run *r = run_of(c, &s->frames[i]);
        c->scratch[i] = *r;
        total += r->n;
    }
    struct view_frames *out = &c->views[st];
    out->v = total ? cut(c, total) : NULL;
    out->n = out->cap = total;
    /* Runs are mostly one frame: copied by assignment, not memcpy. */
    struct view_frame *to = out->v;
    for (uint32_t i = 0; i < s->nframes; i++) {
        const struct view_frame *from = c->pool.v + c->scratch[i].first;
        for (uint32_t k = 0; k < c->scratch[i].n; k++)
            *to++ = from[k];
    }
}

const struct view_frames *viewcache_stack(struct view_cache *c, int32_t st)
{
    if (st < 0 || (size_t)st >= c->nstacks)
        return NULL;
    if (!c->viewed[st]) {
        c->viewed[st] = 1;
        build(c, st);
    }
    return &c->views[st];
}

void viewcache_free(struct view_cache *c)
{
    if (c == NULL)
        return;
    while (c->chunks) {
        struct chunk *next = c->chunks->next;
        free(c->chunks);
        c->chunks = next;
    }
    free(c->runs);
    free(c->pool.v);
    free(c->views);
    free(c->viewed);
    free(c->scratch);
    free(c);
}

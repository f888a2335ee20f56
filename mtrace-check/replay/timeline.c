/* SPDX-License-Identifier: GPL-3.0-or-later */
/* timeline.c - live bytes over time, the peak snapshot, per-stack totals
 * and the temporal intervals (see timeline.h).
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "replay/timeline.h"
#include "read/fields.h"
#include "replay/rss.h"
#include "mtrace-format.h"
#include "mtrace-sample.h"

#include <stdlib.h>
#include <string.h>

void tl_init(struct timeline *tl)
{
    memset(tl, 0, sizeof *tl);
    u64map_init(&tl->iv_index);
}

void tl_destroy(struct timeline *tl)
{
    free(tl->stacks);
    free(tl->iv);
    u64map_destroy(&tl->iv_index);
    memset(tl, 0, sizeof *tl);
}

static struct tl_stack *stack_of(struct timeline *tl, int32_t stack)
{
    size_t i = (size_t)(stack + 1);
    if (i >= tl->nstacks) {
        if (i >= tl->cap_stacks) {
            size_t cap = tl->cap_stacks ? tl->cap_stacks * 2 : 256;
            while (cap <= i)
                cap *= 2;
            tl->stacks = xrealloc(tl->stacks, cap * sizeof *tl->stacks);
            tl->cap_stacks = cap;
        }
        memset(tl->stacks + tl->nstacks, 0,
               (i + 1 - tl->nstacks) * sizeof *tl->stacks);
        tl->nstacks = i + 1;
    }
    return &tl->stacks[i];
}

/* ---- the temporal intervals ------------------------------------------ */

static uint64_t iv_key(uint32_t stack, unsigned alloc, unsigned freed)
{
    return (uint64_t)stack << 24 | (uint64_t)alloc << 12 | freed;
}

static void iv_add(struct timeline *tl, uint32_t stack, unsigned alloc,
                   unsigned freed, uint64_t bytes, uint64_t blocks)
{
    void **slot = u64map_put(&tl->iv_index, iv_key(stack, alloc, freed));
    if (*slot == NULL) {
        if (tl->niv == tl->cap_iv) {
            tl->cap_iv = tl->cap_iv ? tl->cap_iv * 2 : 1024;
            tl->iv = xrealloc(tl->iv, tl->cap_iv * sizeof *tl->iv);
        }
        tl->iv[tl->niv] = (struct tl_interval){ stack, (uint16_t)alloc,
                                                (uint16_t)freed, 0, 0 };
        *slot = (void *)(uintptr_t)++tl->niv;
    }
    struct tl_interval *v = &tl->iv[(uintptr_t)*slot - 1];
    v->bytes += bytes;
    v->blocks += blocks;
}

/* Buckets halved: every interval moves to the merged buckets, and those
 * that now coincide are added up. */
static void iv_merge(struct timeline *tl)
{
    struct tl_interval *old = tl->iv;
    size_t n = tl->niv;

    tl->iv = NULL;
    tl->niv = tl->cap_iv = 0;
    u64map_destroy(&tl->iv_index);
    u64map_init(&tl->iv_index);
    for (size_t i = 0; i < n; i++) {
        unsigned a = old[i].alloc >> 1;
        unsigned f = old[i].freed == TL_NEVER ? TL_NEVER : old[i].freed >> 1u;
        /* Freed in the bucket it was allocated in: live at the end of no
         * bucket, so in no answer. */
        if (f != a)
            iv_add(tl, old[i].stack, a, f, old[i].bytes, old[i].blocks);
    }
    free(old);
}

/* ---- buckets ---------------------------------------------------------- */

static uint64_t interpolate(uint64_t l0, uint64_t t0, uint64_t l1, uint64_t t1,
                            uint64_t line)
{
    if (line >= l1 || l1 <= l0)
        return t1;
    if (line <= l0)
        return t0;
    return t0 + (uint64_t)((double)(t1 - t0) * (double)(line - l0) /
                           (double)(l1 - l0));
}

/* Halve the number of buckets: neighbours merge, the width doubles. */
static void merge_buckets(struct timeline *tl)
{
    for (size_t i = 0; i < TL_BUCKETS / 2; i++) {
        struct tl_bucket *a = &tl->buckets[2 * i], *b = &tl->buckets[2 * i + 1];
        struct tl_bucket m = *b;
        if (a->live_max > m.live_max)
            m.live_max = a->live_max;
        if (a->rss_anon + a->rss_file > m.rss_anon + m.rss_file) {
            m.rss_anon = a->rss_anon;
            m.rss_file = a->rss_file;
        }
        tl->buckets[i] = m;
    }
    memset(tl->buckets + TL_BUCKETS / 2, 0,
           TL_BUCKETS / 2 * sizeof *tl->buckets);
    tl->cur >>= 1;
    tl->first_untimed >>= 1;
    tl->shift++;
    iv_merge(tl);
}

/* Close the buckets before LINE's; it becomes the open one. */
static void advance(struct timeline *tl, uint64_t line)
{
    tl->last_line = line;
    while ((line >> tl->shift) >= TL_BUCKETS)
        merge_buckets(tl);
    size_t k = (size_t)(line >> tl->shift);
    if (k == tl->cur)
        return;
    for (size_t j = tl->cur; j < k; j++) {
        struct tl_bucket *b = &tl->buckets[j];
        b->line_end = ((uint64_t)(j + 1) << tl->shift) - 1;
        b->live_end = tl->live_bytes;
        if (j > tl->cur || b->live_max < tl->live_bytes)
            b->live_max = tl->live_bytes;
    }
    for (size_t j = tl->cur + 1; j <= k; j++) { /* the last sample goes on */
        tl->buckets[j].rss_anon = tl->rss_anon;
        tl->buckets[j].rss_file = tl->rss_file;
    }
    tl->cur = k;
    tl->buckets[k].live_max = tl->live_bytes;
}

/* A "#t" with resident memory: the open bucket holds the most sampled. */
static void note_rss(struct timeline *tl, const struct slice *f, size_t nf)
{
    uint64_t anon, file;
    if (rss_parse(f, nf, &anon, &file))
        return;
    struct tl_bucket *b = &tl->buckets[tl->cur];
    if (!tl->has_rss || anon + file > b->rss_anon + b->rss_file) {
        b->rss_anon = anon;
        b->rss_file = file;
    }
    tl->has_rss = 1;
    tl->rss_anon = anon;
    tl->rss_file = file;
}

static void note_live(struct timeline *tl)
{
    struct tl_bucket *b = &tl->buckets[tl->cur];
    if (tl->live_bytes > b->live_max)
        b->live_max = tl->live_bytes;
}

/* ---- the peak snapshot ------------------------------------------------ */

/* Before stack S changes: if it has not changed since the latest peak,
 * its value now is its value at the peak. */
static void save_peak_value(struct timeline *tl, struct tl_stack *s)
{
    if (s->epoch < tl->peak_epoch) {
        s->peak_bytes = s->live_bytes;
        s->peak_blocks = s->live_blocks;
    }
    s->epoch = tl->epoch;
}

static void check_peak(struct timeline *tl, uint64_t line)
{
    if (tl->live_bytes <= tl->peak_bytes)
        return;
    tl->peak_bytes = tl->live_bytes;
    tl->peak_blocks = tl->live_blocks;
    tl->peak_line = line;
    tl->peak_untimed = 1;
    tl->peak_epoch = ++tl->epoch;
}

/* ---- events ----------------------------------------------------------- */

/* A sampled block's bytes as an estimate, rounded per block as the
 * findings' groups round them. */
static uint64_t est_bytes(uint64_t size, double p)
{
    return (uint64_t)((double)size / p + 0.5);
}

void tl_alloc(struct timeline *tl, const struct block *b, uint64_t line)
{
    struct tl_stack *s = stack_of(tl, b->stack);
    advance(tl, line);
    save_peak_value(tl, s);
    s->allocs++;
    s->alloc_bytes += b->size;
    if (tl->sample_rate && *tl->sample_rate) {
        double p = mtf_sample_probability(b->size, *tl->sample_rate);
        s->est_allocs += 1 / p;
        s->est_alloc_bytes += est_bytes(b->size, p);
        s->est_live_blocks += 1 / p;
        s->est_live_bytes += est_bytes(b->size, p);
    }
    s->live_bytes += b->size;
    s->live_blocks++;
    tl->allocs++;
    tl->alloc_bytes += b->size;
    tl->live_bytes += b->size;
    tl->live_blocks++;
    note_live(tl);
    check_peak(tl, line);
}

void tl_free(struct timeline *tl, const struct block *b, uint64_t line)
{
    struct tl_stack *s = stack_of(tl, b->stack);
    advance(tl, line);
    save_peak_value(tl, s);
    s->live_bytes -= b->size;
    s->live_blocks--;
    if (tl->sample_rate && *tl->sample_rate) {
        double p = mtf_sample_probability(b->size, *tl->sample_rate);
        s->est_live_blocks -= 1 / p;
        s->est_live_bytes -= est_bytes(b->size, p);
    }
    tl->frees++;
    tl->freed_bytes += b->size;
    tl->live_bytes -= b->size;
    tl->live_blocks--;
    unsigned a = (unsigned)(b->line >> tl->shift);
    if (a != tl->cur)
        iv_add(tl, (uint32_t)(b->stack + 1), a, (unsigned)tl->cur, b->size, 1);
}

/* The buckets closed since the last "#t", and the peak if it came since,
 * lie between that record and this one. */
static void place_in_time(struct timeline *tl, uint64_t line, uint64_t t)
{
    uint64_t l0 = tl->t_last_line, t0 = tl->t_last;
    for (size_t j = tl->first_untimed; j < tl->cur; j++)
        tl->buckets[j].t_end = interpolate(l0, t0, line, t,
                                           tl->buckets[j].line_end);
    tl->first_untimed = tl->cur;
    if (tl->peak_untimed)
        tl->peak_t = interpolate(l0, t0, line, t, tl->peak_line);
    tl->peak_untimed = 0;
}

void tl_time(struct timeline *tl, const struct slice *f, size_t nf,
             uint64_t line)
{
    uint64_t ns = 0;
    if (nf < 2 || parse_dec_u64(f[1], &ns))
        return;
    advance(tl, line);
    note_rss(tl, f, nf);
    if (!tl->has_time) {
        tl->has_time = 1;
        tl->t_origin = ns;
    }
    uint64_t t = ns > tl->t_origin ? ns - tl->t_origin : 0;
    if (t < tl->t_last)
        t = tl->t_last; /* threads stamp independently: keep the largest */
    place_in_time(tl, line, t);
    tl->t_last = t;
    tl->t_last_line = line;
}

void tl_finish(struct timeline *tl, struct alloc_table *t, uint64_t line)
{
    size_t n;
    struct block **blocks = table_collect(t, &n);

    advance(tl, line);
    struct tl_bucket *last = &tl->buckets[tl->cur];
    last->line_end = line;
    last->live_end = tl->live_bytes;
    note_live(tl);
    tl->cur++; /* closed */
    if (tl->has_time)
        place_in_time(tl, tl->t_last_line, tl->t_last);
    tl->cur--;
    for (size_t i = 0; i < tl->nstacks; i++)
        save_peak_value(tl, &tl->stacks[i]);
    for (size_t i = 0; i < n; i++)
        iv_add(tl, (uint32_t)(blocks[i]->stack + 1),
               (unsigned)(blocks[i]->line >> tl->shift), TL_NEVER,
               blocks[i]->size, 1);
    free(blocks);
}

size_t tl_nbuckets(const struct timeline *tl)
{
    return tl->cur + 1;
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* classes.c - see classes.h.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "findings/classes.h"
#include "findings/blockinfo.h"

#include <stdlib.h>
#include <string.h>


static uint64_t add_sat(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* Loss records: one per (class, stack). */
static void group(struct class_view *cv, struct block **blocks, size_t n,
                  const uint64_t *indirect, size_t *rec_of)
{
    struct u64map index;
    u64map_init(&index);
    cv->rec = xcalloc(n + 1, sizeof *cv->rec);
    for (size_t i = 0; i < n; i++) {
        const struct block *b = blocks[i];
        uint64_t key = (uint64_t)(uint32_t)(b->stack + 1) << 16 | cv->cls[i];
        void **slot = u64map_put(&index, key);
        if (*slot == NULL) {
            struct loss_record *r = &cv->rec[cv->nrec];
            r->cls = cv->cls[i];
            r->classified = 1;
            r->stack = b->stack;
            r->sid = b->stack >= 0 ? cv->e->ext.stacks[b->stack].sid : 0;
            r->suppressed = -1;
            *slot = (void *)(uintptr_t)++cv->nrec;
        }
        rec_of[i] = (uintptr_t)*slot - 1;
        struct loss_record *r = &cv->rec[rec_of[i]];
        r->bytes = add_sat(r->bytes, b->size);
        r->blocks++;
        r->indirect = add_sat(r->indirect, indirect[i]);
    }
    u64map_destroy(&index);
}

/* The loss record of the blocks of KIND, class CLS and stack ST. */
static struct loss_record *record_of(struct class_view *cv,
                                     struct u64map *index, int32_t st,
                                     enum block_kind kind, enum leak_class cls)
{
    uint64_t key = (uint64_t)(uint32_t)(st + 1) << 16 | (uint64_t)kind << 8 |
                   cls;
    void **slot = u64map_put(index, key);
    if (*slot == NULL) {
        struct loss_record *r = &cv->rec[cv->nrec];
        r->cls = cls;
        r->classified = 1;
        r->stack = st;
        r->sid = st >= 0 ? cv->e->ext.stacks[st].sid : 0;
        r->suppressed = -1;
        r->kind = kind;
        *slot = (void *)(uintptr_t)++cv->nrec;
    }
    return &cv->rec[(uintptr_t)*slot - 1];
}

/* The pools' blocks and the mappings (xblocks.h) join the loss records
 * by kind, class and stack; no leak-table row is theirs. */
static void group_others(struct class_view *cv)
{
    const struct xblocks *x = &cv->e->xb;
    if (x->live == 0 || !logend_leaks_count(&cv->e->end))
        return;
    struct u64map index;
    u64map_init(&index);
    cv->rec = xrealloc(cv->rec, (cv->nrec + x->live + 1) * sizeof *cv->rec);
    memset(cv->rec + cv->nrec, 0, (x->live + 1) * sizeof *cv->rec);
    for (size_t i = 0; i < x->n; i++) {
        const struct xblock *b = &x->b[i];
        if (!b->live)
            continue;
        uint64_t indirect;
        enum leak_class cls = xblocks_class(x, &cv->e->verdicts, b, &indirect);
        struct loss_record *r = record_of(cv, &index, b->stack, b->kind, cls);
        r->bytes = add_sat(r->bytes, b->size);
        r->blocks++;
        r->indirect = add_sat(r->indirect, indirect);
    }
    u64map_destroy(&index);
}

static void apply_suppressions(struct class_view *cv)
{
    for (size_t i = 0; i < cv->nrec; i++) {
        struct loss_record *r = &cv->rec[i];
        r->frames = viewcache_stack(cv->vcache, r->stack);
        if (r->cls == CLASS_REACHABLE || !cv->o->supp)
            continue;
        r->suppressed = supp_match_class(cv->o->supp, r->frames, (int)r->cls);
        if (r->suppressed < 0)
            continue;
        struct suppression *s = &cv->o->supp->s[r->suppressed];
        r->suppressed_by = s->pattern;
        s->blocks += r->blocks;
        s->bytes = add_sat(s->bytes, r->bytes);
    }
    for (size_t i = 0; i < cv->nrec; i++) {
        const struct loss_record *r = &cv->rec[i];
        struct class_sum *s = r->suppressed >= 0 ? &cv->sums.suppressed
                                                 : &cv->sums.sum[r->cls];
        s->bytes = add_sat(s->bytes, r->bytes);
        s->blocks += r->blocks;
    }
}

static int rank(enum leak_class c)
{
    static const int ranks[CLASS_COUNT] = {
        [CLASS_DEFINITE] = 0, [CLASS_INDIRECT] = 1,  [CLASS_POSSIBLE] = 2,
        [CLASS_UNKNOWN] = 3,  [CLASS_REACHABLE] = 4,
    };
    return ranks[c];
}

static int by_rank_then_size(const void *pa, const void *pb)
{
    const struct loss_record *a = pa, *b = pb;
    if (rank(a->cls) != rank(b->cls))
        return rank(a->cls) - rank(b->cls);
    uint64_t ta = add_sat(a->bytes, a->indirect);
    uint64_t tb = add_sat(b->bytes, b->indirect);
    if (ta != tb)
        return ta > tb ? -1 : 1;
    if ((a->stack < 0) != (b->stack < 0))
        return a->stack < 0 ? 1 : -1;
    if (a->sid != b->sid)
        return a->sid > b->sid ? 1 : -1;
    return (a->kind > b->kind) - (a->kind < b->kind);
}

struct class_view *classview_build(struct engine *e, struct block **blocks,
                                   size_t n, const struct class_options *o,
                                   struct view_cache *vc)
{
    struct class_view *cv = xcalloc(1, sizeof *cv);
    cv->e = e;
    cv->o = o;
    cv->vcache = vc;
    cv->cls = xcalloc(n + 1, 1);
    uint64_t *indirect = xcalloc(n + 1, sizeof *indirect);
    for (size_t i = 0; i < n; i++)
        cv->cls[i] = (uint8_t)verdicts_class(&e->verdicts, blocks[i],
                                             &indirect[i]);
    size_t *rec_of = xcalloc(n + 1, sizeof *rec_of);
    group(cv, blocks, n, indirect, rec_of);
    blockinfo_attach(e, cv->rec, blocks, n, rec_of);
    free(indirect);
    group_others(cv);
    apply_suppressions(cv);
    /* Before the records are sorted: each block's, for leaks[] in JSON. */
    cv->supp_of = xcalloc(n + 1, sizeof *cv->supp_of);
    for (size_t i = 0; i < n; i++)
        cv->supp_of[i] = cv->rec[rec_of[i]].suppressed;
    free(rec_of);
    qsort(cv->rec, cv->nrec, sizeof *cv->rec, by_rank_then_size);
    fingerprint_records(cv->rec, cv->nrec);
    for (size_t i = 0; i < cv->nrec; i++) {
        struct loss_record *r = &cv->rec[i];
        r->baseline = baseline_has(o->baseline, r->fingerprint);
        r->failing = (o->fail_on >> r->cls & 1) && r->suppressed < 0 &&
                     !r->baseline;
    }
    return cv;
}

void classview_free(struct class_view *cv)
{
    if (cv == NULL)
        return;
    free(cv->rec);
    free(cv->cls);
    free(cv->supp_of);
    free(cv);
}

enum leak_class classview_class(const struct class_view *cv, size_t i)
{
    return cv->cls[i];
}

const char *classview_suppressed_by(const struct class_view *cv, size_t i)
{
    int k = cv->supp_of[i];
    return k >= 0 ? cv->o->supp->s[k].pattern : NULL;
}

struct class_sum classview_failing(const struct class_view *cv)
{
    struct class_sum f = { 0, 0 };
    for (size_t i = 0; i < cv->nrec; i++)
        if (cv->rec[i].failing) {
            f.bytes = add_sat(f.bytes, cv->rec[i].bytes);
            f.blocks += cv->rec[i].blocks;
        }
    return f;
}

const struct class_sums *classview_sums(const struct class_view *cv)
{
    return &cv->sums;
}

struct loss_record *classview_records(const struct class_view *cv, size_t *n)
{
    *n = cv->nrec;
    return cv->rec;
}

int classview_fails(const struct class_view *cv)
{
    for (size_t i = 0; i < cv->nrec; i++)
        if (cv->rec[i].failing)
            return 1;
    return 0;
}

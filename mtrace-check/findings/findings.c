/* SPDX-License-Identifier: GPL-3.0-or-later */
/* findings.c - the model of what a check found, built from the replayed
 * engine (see findings.h).  Nothing here writes: the writers (output/)
 * read the model.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "findings/findings.h"
#include "findings/classes.h"
#include "findings/keysort.h"
#include "mtrace-sample.h"

#include <stdlib.h>
#include <string.h>

static uint64_t add_sat(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static void group_block(struct findings *f, struct ext_store *x,
                        const struct block *b)
{
    void **slot = u64map_put(&f->by_stack, (uint64_t)(b->stack + 1));
    if (!*slot) {
        struct leak_group *lg = &f->groups[f->ngroups];
        memset(lg, 0, sizeof *lg);
        lg->stack = b->stack;
        if (b->stack >= 0) {
            lg->sid = x->stacks[b->stack].sid;
            lg->frames = viewcache_stack(f->vcache, b->stack);
        }
        *slot = (void *)(uintptr_t)(++f->ngroups);
    }
    struct leak_group *lg = &f->groups[(uintptr_t)*slot - 1];
    lg->recorded++;
    if (x->sample_rate == 0) {
        lg->bytes = add_sat(lg->bytes, b->size);
        lg->blocks++;
        return;
    }
    /* A sampled log: each block stands for 1/p of its size. */
    double p = mtf_sample_probability(b->size, x->sample_rate);
    lg->weighted_blocks += 1 / p;
    lg->bytes = add_sat(lg->bytes, (uint64_t)((double)b->size / p + 0.5));
    lg->blocks = (uint64_t)(lg->weighted_blocks + 0.5);
}

/* Largest total first; ties by block count, then by stack id, with the
 * blocks without a stack last, so the order never depends on hashing. */
static int by_weight(const void *pa, const void *pb)
{
    const struct leak_group *a = pa, *b = pb;
    if (a->bytes != b->bytes)
        return a->bytes > b->bytes ? -1 : 1;
    if (a->blocks != b->blocks)
        return a->blocks > b->blocks ? -1 : 1;
    if ((a->stack < 0) != (b->stack < 0))
        return a->stack < 0 ? 1 : -1;
    return (a->sid > b->sid) - (a->sid < b->sid);
}

/* Group the listed blocks by allocation stack (extended logs only). */
static void group_leaks(struct findings *f, struct engine *e)
{
    f->groups = xcalloc(f->nleaks + 1, sizeof *f->groups);
    u64map_init(&f->by_stack);
    if (e->ext.extended)
        for (size_t i = 0; i < f->nleaks; i++)
            group_block(f, &e->ext, f->blocks[i]);
}

/* A log without verdicts: one loss record per group. */
static void records_of_groups(struct findings *f)
{
    f->records = xcalloc(f->ngroups + 1, sizeof *f->records);
    f->nrecords = f->ngroups;
    for (size_t i = 0; i < f->ngroups; i++) {
        const struct leak_group *g = &f->groups[i];
        struct loss_record *r = &f->records[i];
        r->cls = CLASS_UNKNOWN;
        r->stack = g->stack;
        r->sid = g->sid;
        r->bytes = g->bytes;
        r->blocks = g->blocks;
        r->suppressed = -1;
        r->frames = g->frames;
        r->failing = 1; /* every block not freed is a leak */
    }
    fingerprint_records(f->records, f->nrecords);
}

static void classify(struct findings *f, struct engine *e,
                     const struct class_options *co)
{
    for (size_t i = 0; i < e->verdicts.nsuppressions; i++)
        supp_add(co->supp, e->verdicts.suppressions[i]);
    f->cv = classview_build(e, f->blocks, f->nleaks, co, f->vcache);
    f->classified = 1;
    f->records = classview_records(f->cv, &f->nrecords);
    f->sums = *classview_sums(f->cv);
    f->verdicts = &e->verdicts;
    f->supp = co->supp;
    f->baseline = co->baseline;
    f->show_reachable = co->show_reachable;
}

static void fill_totals(struct findings *f, struct engine *e, size_t held)
{
    struct totals *t = &f->totals;
    t->lines = e->nr;
    t->warnings = e->warnings;
    for (size_t i = 0; i < f->nleaks; i++)
        t->leaked_bytes = add_sat(t->leaked_bytes, f->blocks[i]->size);
    t->leaked_blocks = f->nleaks;
    if (f->cv) {
        /* What the exit status counts, not every block live at the end
         * (still reachable ones are no leak). */
        struct class_sum s = classview_failing(f->cv);
        t->classes = &f->sums;
        t->leaked_bytes = s.bytes;
        t->leaked_blocks = s.blocks;
    }
    t->bad_records = e->ext.bad_records + e->verdicts.bad_records +
                     e->previews.bad_records + e->xb.bad_records;
    t->dangling_refs = e->ext.dangling_refs;
    t->extended = e->ext.extended;
    t->end = &e->end;
    t->held_blocks = held;
    /* An image that ended in exec leaked nothing: count what it held,
     * list nothing (logend.h). */
    for (size_t i = 0; i < held; i++)
        t->held_bytes = add_sat(t->held_bytes, f->blocks[i]->size);
}

void findings_build(struct findings *f, struct engine *e, const char *log,
                    const char *binary, const struct class_options *co,
                    const struct timeline *tl)
{
    size_t n;

    memset(f, 0, sizeof *f);
    f->e = e;
    f->log = log;
    f->binary = binary;
    f->program = e->ext.program;
    f->extended = e->ext.extended;
    f->sample_rate = e->ext.sample_rate;
    f->judged = e->ext.extended;
    f->end = &e->end;
    f->tl = tl;
    f->has_verdicts = e->verdicts.scans > 0;
    f->stacks = &e->ext;
    f->blocks = table_collect(&e->table, &n);
    f->nleaks = f->judged && !logend_leaks_count(&e->end) ? 0 : n;
    keysort_blocks(f->blocks, f->nleaks); /* Perl's sort of the keys */
    f->vcache = viewcache_new(&e->ext);
    group_leaks(f, e);
    /* A log with reachability verdicts is reported by class. */
    if (e->verdicts.scans && f->judged && co &&
        (f->nleaks || (e->xb.live && logend_leaks_count(&e->end))))
        classify(f, e, co);
    /* Groups carry pointers to their views, so sorting them is safe. */
    qsort(f->groups, f->ngroups, sizeof *f->groups, by_weight);
    if (!f->cv)
        records_of_groups(f);
    fill_totals(f, e, n);
    f->failing = f->cv ? classview_fails(f->cv) : f->nleaks > 0;
    growth_build(f);
    resfind_build(&f->resources, e);
    f->rss = &e->rss;
    if (f->resources.held &&
        (co == NULL || co->fail_on & (1 << CLASS_DEFINITE)))
        f->failing = 1;
}

void findings_destroy(struct findings *f)
{
    growth_free(f);
    resfind_destroy(&f->resources);
    free(f->groups);
    u64map_destroy(&f->by_stack);
    if (f->cv)
        classview_free(f->cv); /* and its records */
    else
        free(f->records);
    viewcache_free(f->vcache);
    free(f->blocks);
    memset(f, 0, sizeof *f);
}

void findings_leak(const struct findings *f, size_t i, int with_caller,
                   struct leak *out)
{
    const struct block *b = f->blocks[i];
    struct leak l = { f->cv ? class_name(classview_class(f->cv, i)) : NULL,
                      f->cv ? classview_suppressed_by(f->cv, i) : NULL,
                      block_key(b),
                      perl_hex(block_key(b)),
                      b->size,
                      b->line,
                      with_caller ? engine_caller(f->e, b)
                                  : (struct slice){ "", 0 },
                      NULL };
    if (b->stack >= 0)
        l.frames = viewcache_stack(f->vcache, b->stack);
    *out = l;
}

int class_is_leak(enum leak_class c)
{
    return c == CLASS_DEFINITE || c == CLASS_INDIRECT || c == CLASS_POSSIBLE;
}

const char *class_key(enum leak_class c)
{
    static const char *const keys[CLASS_COUNT] = { "unknown", "still_reachable",
                                                   "possibly_lost",
                                                   "indirectly_lost",
                                                   "definitely_lost" };
    return keys[c];
}

uint64_t *findings_lost_bytes(const struct findings *f, size_t n)
{
    uint64_t *w = xcalloc(n + 1, sizeof *w);
    for (size_t i = 0; f->classified && i < f->nrecords; i++) {
        const struct loss_record *r = &f->records[i];
        size_t k = (size_t)(r->stack + 1);
        if (k < n && r->suppressed < 0 && class_is_leak(r->cls))
            w[k] = add_sat(w[k], r->bytes);
    }
    return w;
}

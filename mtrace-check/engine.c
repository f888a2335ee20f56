/* SPDX-License-Identifier: GPL-3.0-or-later */
/* engine.c - the Perl checker's main loop, and the final reports (see
 * engine.h).  Comments quote the script where the behaviour is surprising.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "engine.h"
#include "classreport.h"
#include "diag.h"
#include "feeder.h"
#include "fields.h"
#include "mtrace-format.h"
#include "sampling.h"

#include <stdlib.h>
#include <string.h>

void engine_init(struct engine *e, struct report *rep, const char *binary)
{
    memset(e, 0, sizeof *e);
    table_init(&e->table);
    pool_init(&e->wheres);
    locator_init(&e->loc, binary);
    ext_init(&e->ext);
    verdicts_init(&e->verdicts);
    e->rep = rep;
}

void engine_destroy(struct engine *e)
{
    table_destroy(&e->table);
    pool_destroy(&e->wheres);
    locator_destroy(&e->loc);
    ext_destroy(&e->ext);
    verdicts_destroy(&e->verdicts);
    classview_free(e->classes);
}

void engine_warn(struct engine *e, enum warn_kind kind, uint64_t nr,
                 struct slice addr, uint64_t size, struct slice was,
                 struct slice where)
{
    struct warning w = { kind, nr, addr, perl_hex(addr), size, was, where };

    switch (kind) {
    case WARN_ALLOC_DUPLICATE:
        /* The script prints this event's $where raw, not location()'d. */
        w.was = locate(&e->loc, was);
        break;
    case WARN_FREE_NEVER_ALLOCATED:
    case WARN_REALLOC_NEVER_ALLOCATED:
        w.where = locate(&e->loc, where);
        break;
    case WARN_REALLOC_DUPLICATE: /* left to right */
        w.was = locate(&e->loc, was);
        w.where = locate(&e->loc, where);
        break;
    }
    report_warning(e->rep, &w, e->is_trace || e->ext.extended);
    e->warnings++;
}

void engine_long_line(struct engine *e, const char *name)
{
    e->nr++;
    diag(name, e->nr,
         "line longer than %d bytes skipped (glibc's mtrace would read it)",
         FEED_LINE_MAX);
}

static void add_block(struct engine *e, const struct event *ev, uint64_t hash,
                      int with_stack)
{
    struct block *b = table_insert(&e->table, ev->addr, hash);
    b->size = perl_hex(ev->size);
    b->line = e->nr;
    b->where = pool_ref(&e->wheres, ev->where);
    if (with_stack && ev->has_extra)
        b->stack = ext_stack_ref(&e->ext, ev->extra);
    if (e->tl)
        tl_alloc(e->tl, b, e->nr);
}

static void drop_block(struct engine *e, struct block *b)
{
    if (e->tl)
        tl_free(e->tl, b, e->nr);
    pool_unref(&e->wheres, b->where);
    table_remove(&e->table, b);
}

static struct slice where_of(struct engine *e, const struct block *b)
{
    return pool_get(&e->wheres, b->where);
}

/* "+": "if (defined $allocated{$allocaddr}) { warn } elsif ($allocaddr =~
 * /^0x/) { record }" - only "+" checks for the 0x prefix. */
static void on_alloc(struct engine *e, const struct event *ev, uint64_t hash)
{
    struct block *b = table_find(&e->table, ev->addr, hash);
    if (b) {
        engine_warn(e, WARN_ALLOC_DUPLICATE, e->nr, ev->addr, 0, where_of(e, b),
                    ev->where);
    } else if (ev->addr.n >= 2 && ev->addr.p[0] == '0' &&
               ev->addr.p[1] == 'x') {
        add_block(e, ev, hash, 1);
    }
}

/* "-" and "<": forget the block, or warn with location($where). */
static void on_release(struct engine *e, const struct event *ev, uint64_t hash,
                       enum warn_kind kind)
{
    struct block *b = table_find(&e->table, ev->addr, hash);
    if (b) {
        drop_block(e, b);
        return;
    }
    engine_warn(e, kind, e->nr, ev->addr, 0, (struct slice){ "", 0 },
                ev->where);
}

/* ">": a duplicate warns with both locations. */
static void on_realloc_new(struct engine *e, const struct event *ev,
                           uint64_t hash)
{
    struct block *b = table_find(&e->table, ev->addr, hash);
    if (!b) {
        add_block(e, ev, hash, 1);
        return;
    }
    engine_warn(e, WARN_REALLOC_DUPLICATE, e->nr, ev->addr, b->size,
                where_of(e, b), ev->where);
}

/* An unknown op to the script: ignored there, read here. */
void engine_record(struct engine *e, const char *line, size_t len,
                   const struct slice *f, size_t nf)
{
    if (slice_eq(f[0], MTF_REC_END)) {
        if (logend_record(&e->end, line, len, e->nr, !e->line_unterminated))
            e->ext.bad_records++;
        return;
    }
    if (verdicts_is_record(f[0])) {
        verdicts_record(&e->verdicts, line, len, e->nr);
        return;
    }
    ext_record(&e->ext, line, len, f, nf);
    if (e->tl && slice_eq(f[0], MTF_REC_TIME))
        tl_time(e->tl, f, nf, e->nr);
}

void engine_line(struct engine *e, const char *line, size_t len)
{
    struct slice f[ENGINE_FIELDS];
    size_t nf = split_fields(line, len, f, ENGINE_FIELDS);

    engine_split_line(e, line, len, f, nf);
}

void engine_split_line(struct engine *e, const char *line, size_t len,
                       const struct slice *f, size_t nf)
{
    size_t at = nf > 0 && f[0].n == 1 && f[0].p[0] == '@' ? 3 : 1;
    uint64_t hash = at < nf ? hash_bytes(f[at].p, f[at].n) : hash_bytes("", 0);

    engine_hashed_line(e, line, len, f, nf, hash);
}

void engine_hashed_line(struct engine *e, const char *line, size_t len,
                        const struct slice *f, size_t nf, uint64_t hash)
{
    struct event ev;

    e->nr++; /* "++$nr" counts every line, records included */
    /* A plain store on x86: another thread may read it (progress.h). */
    __atomic_store_n(&e->bytes, e->bytes + len + 1, __ATOMIC_RELAXED);
    if (nf > 0 && f[0].p[0] == '#') {
        engine_record(e, line, len, f, nf);
        return;
    }
    if (!engine_read_event(f, nf, &ev))
        return;
    if (!e->is_trace)
        e->is_trace = engine_traced(&ev);
    char op = ev.op.p[0];
    if (op != '+' && op != '-' && op != '<' && op != '>')
        return; /* "=" marks, "!" failed reallocs, unknown ops */
    if (!e->ext.extended)
        ev.has_extra = 0;
    switch (op) {
    case '+':
        on_alloc(e, &ev, hash);
        break;
    case '-':
        on_release(e, &ev, hash, WARN_FREE_NEVER_ALLOCATED);
        break;
    case '<':
        on_release(e, &ev, hash, WARN_REALLOC_NEVER_ALLOCATED);
        break;
    case '>':
        on_realloc_new(e, &ev, hash);
        break;
    }
}

/* Perl's default sort: byte-wise string comparison. */
static int by_key(const void *a, const void *b)
{
    struct slice x = block_key(*(struct block *const *)a);
    struct slice y = block_key(*(struct block *const *)b);
    size_t n = x.n < y.n ? x.n : y.n;
    int c = memcmp(x.p, y.p, n);
    if (c)
        return c;
    return (x.n > y.n) - (x.n < y.n);
}

struct group_build {
    struct leak_group *groups;
    size_t n;
    struct u64map by_stack;    /* stack index + 1 -> group index + 1 */
    struct view_frames *views; /* per group */
};

static uint64_t add_sat(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static void group_block(struct group_build *g, struct ext_store *x,
                        const struct block *b)
{
    void **slot = u64map_put(&g->by_stack, (uint64_t)(b->stack + 1));
    if (!*slot) {
        struct leak_group *lg = &g->groups[g->n];
        memset(lg, 0, sizeof *lg);
        lg->stack = b->stack;
        if (b->stack >= 0) {
            lg->sid = x->stacks[b->stack].sid;
            view_stack(x, &x->stacks[b->stack], &g->views[g->n]);
            lg->frames = &g->views[g->n];
        }
        *slot = (void *)(uintptr_t)(++g->n);
    }
    struct leak_group *lg = &g->groups[(uintptr_t)*slot - 1];
    lg->recorded++;
    if (x->sample_rate == 0) {
        lg->bytes = add_sat(lg->bytes, b->size);
        lg->blocks++;
        return;
    }
    /* A sampled log: each block stands for 1/p of its size. */
    double p = sample_probability(b->size, x->sample_rate);
    lg->weighted_blocks += 1 / p;
    lg->bytes = add_sat(lg->bytes, sample_bytes(b->size, p));
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

static void free_views(struct group_build *g, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(g->views[i].v);
    free(g->views);
    free(g->groups);
    u64map_destroy(&g->by_stack);
}

/* Group the live blocks by allocation stack (extended logs only). */
static void group_leaks(struct engine *e, struct group_build *g,
                        struct block **blocks, size_t n)
{
    g->groups = xcalloc(n + 1, sizeof *g->groups);
    g->views = xcalloc(n + 1, sizeof *g->views);
    u64map_init(&g->by_stack);
    if (e->ext.extended)
        for (size_t i = 0; i < n; i++)
            group_block(g, &e->ext, blocks[i]);
}

/* The Perl script's table: blocks in address-text order, each with the
 * caller location() gives (evaluated in this order, like the script). */
static uint64_t report_leak_table(struct engine *e, struct group_build *g,
                                  struct block **blocks, size_t n,
                                  const struct class_view *cv)
{
    uint64_t bytes = 0;

    report_leaks_begin(e->rep);
    for (size_t i = 0; i < n; i++) {
        const struct block *b = blocks[i];
        struct leak l = { cv ? class_name(classview_class(cv, i)) : NULL,
                          cv ? classview_suppressed_by(cv, i) : NULL,
                          block_key(b), perl_hex(block_key(b)), b->size,
                          b->line,
                          /* Perl's location() only for the table it prints */
                          cv && !e->rep->json ? (struct slice){ "", 0 }
                                              : locate(&e->loc, where_of(e, b)),
                          NULL };
        if (b->stack >= 0) {
            void **slot = u64map_get(&g->by_stack, (uint64_t)(b->stack + 1));
            l.frames = g->groups[(uintptr_t)*slot - 1].frames;
        }
        report_leak(e->rep, &l);
        bytes = add_sat(bytes, b->size);
    }
    report_leaks_end(e->rep);
    return bytes;
}

/* An image that ended in exec leaked nothing: count what it held, list
 * nothing (logend.h). */
static uint64_t held_bytes(struct block **blocks, size_t n)
{
    uint64_t bytes = 0;
    for (size_t i = 0; i < n; i++)
        bytes = add_sat(bytes, blocks[i]->size);
    return bytes;
}

int engine_finish(struct engine *e)
{
    size_t n;
    struct block **blocks = table_collect(&e->table, &n);
    struct group_build g = { 0 };
    struct totals t = { 0 };
    int judged = e->ext.extended;
    size_t listed = judged && !logend_leaks_count(&e->end) ? 0 : n;

    qsort(blocks, listed, sizeof *blocks, by_key);
    group_leaks(e, &g, blocks, listed);
    e->rep->sample_rate = e->ext.sample_rate;
    /* A log with reachability verdicts is reported by class. */
    struct class_view *cv = NULL;
    if (e->verdicts.scans && judged && e->copts && listed) {
        for (size_t i = 0; i < e->verdicts.nsuppressions; i++)
            supp_add(e->copts->supp, e->verdicts.suppressions[i]);
        cv = classview_build(e, blocks, listed, e->copts);
        e->rep->verdicts = 1;
    }
    t.leaked_bytes = report_leak_table(e, &g, blocks, listed, cv);
    /* Groups carry pointers to their views, so sorting them is safe. */
    qsort(g.groups, g.n, sizeof *g.groups, by_weight);
    report_groups(e->rep, g.groups, g.n);
    int failing = listed > 0;
    if (cv) {
        if (e->rep->json)
            classview_json(cv, e->rep->out);
        else
            classview_text(cv, e->rep->out);
        t.classes = classview_sums(cv);
        failing = classview_fails(cv);
    }

    t.lines = e->nr;
    t.warnings = e->warnings;
    t.leaked_blocks = listed;
    if (cv) {
        /* What the exit status counts, not every block live at the end
         * (still reachable ones are no leak). */
        struct class_sum f = classview_failing(cv);
        t.leaked_bytes = f.bytes;
        t.leaked_blocks = f.blocks;
    }
    t.bad_records = e->ext.bad_records + e->verdicts.bad_records;
    t.dangling_refs = e->ext.dangling_refs;
    t.extended = e->ext.extended;
    t.end = &e->end;
    t.held_blocks = n;
    t.held_bytes = held_bytes(blocks, n);
    if (judged && !e->rep->json)
        logend_text(e->rep->out, &e->end, t.held_blocks, t.held_bytes);
    report_end(e->rep, &t);
    e->classes = cv; /* the pictures' too (outputs.h); engine_destroy frees */
    free_views(&g, listed + 1);
    free(blocks);
    return failing;
}

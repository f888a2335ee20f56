/* SPDX-License-Identifier: GPL-3.0-or-later */
/* engine.c - the Perl checker's main loop (see
 * engine.h).  Comments quote the script where the behaviour is surprising.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "replay/engine.h"
#include "replay/livetotals.h"
#include "base/diag.h"
#include "read/feeder.h"
#include "read/fields.h"
#include "mtrace-format.h"

#include <stdlib.h>
#include <string.h>

void engine_init(struct engine *e, const char *binary)
{
    memset(e, 0, sizeof *e);
    table_init(&e->table);
    pool_init(&e->wheres);
    locator_init(&e->loc, binary);
    ext_init(&e->ext);
    verdicts_init(&e->verdicts);
    res_init(&e->res);
    previews_init(&e->previews);
    series_init(&e->series);
    xblocks_init(&e->xb);
}

void engine_destroy(struct engine *e)
{
    table_destroy(&e->table);
    pool_destroy(&e->wheres);
    locator_destroy(&e->loc);
    ext_destroy(&e->ext);
    verdicts_destroy(&e->verdicts);
    res_destroy(&e->res);
    previews_destroy(&e->previews);
    series_destroy(&e->series);
    xblocks_destroy(&e->xb);
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
    if (e->warn.emit)
        e->warn.emit(e->warn.ctx, &w, e->is_trace || e->ext.extended);
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
    if (slice_eq(f[0], MTF_REC_RESOURCE)) {
        if (e->ext.extended)
            res_record(&e->res, &e->ext, f, nf, e->nr);
        return;
    }
    if (livetotals_is_record(f, nf)) { /* a live log's (livetotals.h) */
        if (livetotals_apply(e->tl, line, len))
            e->ext.bad_records++;
        return;
    }
    if (verdicts_is_record(f[0])) {
        verdicts_record(&e->verdicts, line, len, e->nr);
        series_record(&e->series, line, len, e->nr, &e->table,
                      e->ext.nstacks);
        return;
    }
    if (previews_is_record(f[0])) {
        previews_record(&e->previews, f, nf, e->verdicts.scan_line);
        return;
    }
    if (xblocks_is_record(f[0])) {
        xblocks_record(&e->xb, &e->ext, &e->verdicts, line, len, e->nr);
        return;
    }
    ext_record(&e->ext, line, len, f, nf);
    if (slice_eq(f[0], MTF_REC_TIME))
        rss_record(&e->rss, f, nf);
    if (e->tl && slice_eq(f[0], MTF_REC_TIME))
        tl_time(e->tl, f, nf, e->nr);
    if (slice_eq(f[0], MTF_REC_TIME))
        series_time(&e->series, f, nf);
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
    /* mtf_op_is_event(), spelt out: GCC compiles the chain of tests more
     * tightly here (5 instructions a line fewer, callgrind). */
    if (op != MTF_OP_ALLOC && op != MTF_OP_FREE && op != MTF_OP_RE_OLD &&
        op != MTF_OP_RE_NEW)
        return; /* "=" marks, "!" failed reallocs, unknown ops */
    if (!e->ext.extended)
        ev.has_extra = 0;
    switch (op) {
    case MTF_OP_ALLOC:
        on_alloc(e, &ev, hash);
        break;
    case MTF_OP_FREE:
        on_release(e, &ev, hash, WARN_FREE_NEVER_ALLOCATED);
        break;
    case MTF_OP_RE_OLD:
        on_release(e, &ev, hash, WARN_REALLOC_NEVER_ALLOCATED);
        break;
    case MTF_OP_RE_NEW:
        on_realloc_new(e, &ev, hash);
        break;
    }
}

struct slice engine_caller(struct engine *e, const struct block *b)
{
    return locate(&e->loc, where_of(e, b));
}

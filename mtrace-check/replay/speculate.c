/* SPDX-License-Identifier: GPL-3.0-or-later */
/* speculate.c - replaying segments on their own and applying them in
 * order (see speculate.h).
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "replay/speculate.h"
#include "read/fields.h"
#include "mtrace-format.h"
#include "read/wsmask.h"

#include <stdlib.h>
#include <string.h>

/* struct block.spec in a segment's table. */
enum {
    SPEC_LIVE = 1,    /* allocated at this point of the segment */
    SPEC_WAS_LIVE = 2 /* assumed allocated before the segment */
};

void spec_init(struct spec_segment *s)
{
    memset(s, 0, sizeof *s);
    table_init(&s->table);
    u64map_init(&s->defs);
    u64map_init(&s->ref_of);
}

void spec_destroy(struct spec_segment *s)
{
    table_destroy(&s->table);
    u64map_destroy(&s->defs);
    u64map_destroy(&s->ref_of);
    free(s->warnings);
    free(s->records);
    free(s->refs);
    segment_free(&s->seg);
}

static void reset(struct spec_segment *s)
{
    table_clear(&s->table);
    if (s->defs.count) {
        u64map_destroy(&s->defs);
        u64map_init(&s->defs);
    }
    if (s->ref_of.count) {
        u64map_destroy(&s->ref_of);
        u64map_init(&s->ref_of);
    }
    s->nlines = s->nwarnings = s->nrecords = s->nrefs = s->ndefs = 0;
    s->version_seen = 0;
    s->is_trace = 0;
    s->has_scan = 0;
    memset(s->ref_cache, 0, sizeof s->ref_cache);
}

#define PUSH(arr, n, cap)                                                      \
    ((n) == (cap) ? ((cap) = (cap) ? (cap)*2 : 16,                             \
                     (arr) = xrealloc((arr), (cap) * sizeof *(arr)))           \
                  : (arr),                                                     \
     &(arr)[(n)++])

/* ---- the segment's own replay ------------------------------------------ */

/* A block's WHERE is kept as its offset in the segment plus one (0: the
 * event had none); the field ends at the first whitespace. */
static struct slice where_of(const struct spec_segment *s,
                             const struct block *b)
{
    if (b->where == 0)
        return (struct slice){ "", 0 };
    const char *p = s->seg.buf + b->where - 1, *end = s->seg.buf + s->seg.len;
    const char *q = p;
    while (q < end && !perl_is_space((unsigned char)*q))
        q++;
    return (struct slice){ p, (size_t)(q - p) };
}

static uint32_t where_ref(const struct spec_segment *s, struct slice where)
{
    return where.n ? (uint32_t)(where.p - s->seg.buf) + 1 : 0;
}

static void add_warning(struct spec_segment *s, enum warn_kind kind,
                        uint64_t nr, const struct event *ev, uint64_t size,
                        struct slice was)
{
    struct spec_warning *w = PUSH(s->warnings, s->nwarnings, s->cap_warnings);
    *w = (struct spec_warning){ kind, nr, ev->addr, size, was, ev->where };
}

/* The stack an event names, as ext_stack_ref would find it once the
 * segment is applied: a spec_ref index, or -1 when the field is no
 * stack reference. */
static int32_t stack_ref(struct spec_segment *s, struct slice field)
{
    uint64_t sid;

    if (field.n < 2 || field.p[0] != MTF_STACK_FIELD_PREFIX ||
        parse_dec_u64((struct slice){ field.p + 1, field.n - 1 }, &sid))
        return -1;
    size_t slot_i = (size_t)(sid % 64);
    if (s->ref_cache[slot_i].key == sid + 1) {
        int32_t cached = s->ref_cache[slot_i].ref;
        s->refs[cached].uses++;
        return cached;
    }
    void **def = u64map_get(&s->defs, sid);
    int64_t ordinal = def ? (int64_t)(uintptr_t)*def - 1 : -1;
    void **slot = u64map_put(&s->ref_of, sid);
    int32_t i = *slot ? (int32_t)((uintptr_t)*slot - 1) : -1;
    if (i < 0 || s->refs[i].def != ordinal ||
        s->refs[i].before_version != !s->version_seen) {
        struct spec_ref *r = PUSH(s->refs, s->nrefs, s->cap_refs);
        *r = (struct spec_ref){ sid, ordinal, !s->version_seen, 0 };
        i = (int32_t)(s->nrefs - 1);
        *slot = (void *)(uintptr_t)(i + 1);
    }
    s->refs[i].uses++;
    s->ref_cache[slot_i].key = sid + 1;
    s->ref_cache[slot_i].ref = i;
    return i;
}

static void make_live(struct spec_segment *s, struct block *b,
                      const struct event *ev, uint64_t nr)
{
    b->spec |= SPEC_LIVE;
    b->size = perl_hex(ev->size);
    b->line = nr;
    b->where = where_ref(s, ev->where);
    b->stack = ev->has_extra ? stack_ref(s, ev->extra) : -1;
}

/* An address met for the first time: remember what the state before the
 * segment must have been. */
static struct block *first_touch(struct spec_segment *s, const struct event *ev,
                                 uint64_t hash, int was_live)
{
    struct block *b = table_insert(&s->table, ev->addr, hash);
    b->spec = was_live ? SPEC_WAS_LIVE : 0;
    return b;
}

static int has_0x(struct slice a)
{
    return a.n >= 2 && a.p[0] == '0' && a.p[1] == 'x';
}

/* engine.c's on_alloc, on_release and on_realloc_new, on the segment. */
static inline __attribute__((always_inline)) void spec_event(
    struct spec_segment *s, const struct event *ev, uint64_t nr)
{
    uint64_t hash = hash_bytes(ev->addr.p, ev->addr.n);
    struct block *b = table_find(&s->table, ev->addr, hash);
    int live = b && (b->spec & SPEC_LIVE);

    switch (ev->op.p[0]) {
    case MTF_OP_ALLOC:
        if (live)
            add_warning(s, WARN_ALLOC_DUPLICATE, nr, ev, 0, where_of(s, b));
        else if (!b)
            b = first_touch(s, ev, hash, 0);
        if (!live && has_0x(ev->addr))
            make_live(s, b, ev, nr);
        break;
    case MTF_OP_FREE:
    case MTF_OP_RE_OLD:
        if (live)
            b->spec &= (uint8_t)~SPEC_LIVE;
        else if (b)
            add_warning(s,
                        ev->op.p[0] == MTF_OP_FREE ? WARN_FREE_NEVER_ALLOCATED
                                           : WARN_REALLOC_NEVER_ALLOCATED,
                        nr, ev, 0, (struct slice){ "", 0 });
        else
            first_touch(s, ev, hash, 1);
        break;
    case MTF_OP_RE_NEW:
        if (live) {
            add_warning(s, WARN_REALLOC_DUPLICATE, nr, ev, b->size,
                        where_of(s, b));
            break;
        }
        if (!b)
            b = first_touch(s, ev, hash, 0);
        make_live(s, b, ev, nr);
        break;
    }
}

/* Kept for spec_apply; "#v" and "#s" also change how later events of the
 * segment name their stacks. */
static void spec_record(struct spec_segment *s, const char *line, size_t len,
                        const struct slice *f, size_t nf, uint64_t nr,
                        int terminated)
{
    struct spec_record *r = PUSH(s->records, s->nrecords, s->cap_records);
    uint64_t sid;

    *r = (struct spec_record){ (size_t)(line - s->seg.buf), len, nr, terminated,
                               0 };
    if (nf >= 2 && slice_eq(f[0], MTF_REC_SCAN) &&
        slice_eq(f[1], MTF_SCAN_KEYWORD))
        s->has_scan = 1;
    if (slice_eq(f[0], MTF_REC_VERSION)) {
        s->version_seen = 1;
        memset(s->ref_cache, 0, sizeof s->ref_cache);
    } else if (slice_eq(f[0], MTF_REC_STACK) && nf >= 2 &&
               parse_dec_u64(f[1], &sid) == 0) {
        *u64map_put(&s->defs, sid) = (void *)(uintptr_t)(++s->ndefs);
        memset(s->ref_cache, 0, sizeof s->ref_cache);
    }
}

/* "=" marks, "!" failed reallocs and unknown ops change nothing. */
static int is_event_op(char op)
{
    return mtf_op_is_event(op);
}

typedef void masks_fn(const unsigned char *p, uint64_t *ws, uint64_t *nl);

/* The next field from the start and end bitmaps of a short line. */
static inline __attribute__((always_inline)) int pop_field(const char *line,
                                                           uint64_t *starts,
                                                           uint64_t *ends,
                                                           struct slice *f)
{
    if (!*starts)
        return 0;
    unsigned a = (unsigned)__builtin_ctzll(*starts);
    unsigned b = (unsigned)__builtin_ctzll(*ends);
    *f = (struct slice){ line + a, b - a };
    *starts &= *starts - 1;
    *ends &= *ends - 1;
    return 1;
}

/* engine_read_event for a line whose fields are the bits of STARTS and
 * ENDS, taken one by one as needed instead of split first. */
static inline __attribute__((always_inline)) int quick_event(const char *line,
                                                             uint64_t starts,
                                                             uint64_t ends,
                                                             struct event *ev)
{
    const struct slice empty = { "", 0 };
    struct slice f0;

    if (!pop_field(line, &starts, &ends, &f0))
        return 0;
    ev->where = empty;
    ev->op = f0;
    if (f0.n == 1 && f0.p[0] == '@' &&
        (!pop_field(line, &starts, &ends, &ev->where) ||
         !pop_field(line, &starts, &ends, &ev->op)))
        return 0;
    if (ev->op.n != 1)
        return 0;
    ev->addr = ev->size = ev->extra = empty;
    ev->has_extra = 0;
    if (!pop_field(line, &starts, &ends, &ev->addr) ||
        !pop_field(line, &starts, &ends, &ev->size))
        return 1;
    /* The stack field follows "+ PTR SIZE", "> PTR SIZE", "- PTR", "< PTR". */
    if (mtf_op_releases(ev->op.p[0])) {
        ev->extra = ev->size;
        ev->has_extra = 1;
    } else {
        ev->has_extra = pop_field(line, &starts, &ends, &ev->extra);
    }
    return 1;
}

/* A line that is no short event: split it in full. */
static void slow_line(struct spec_segment *s, const char *p, const char *end,
                      const char **nl, uint64_t nr)
{
    struct slice f[ENGINE_FIELDS];
    struct event ev;
    size_t nf = split_line(p, end, f, ENGINE_FIELDS, nl);
    size_t len = (size_t)((*nl ? *nl : end) - p);

    if (len > FEED_LINE_MAX) /* told in order by spec_apply */
        *PUSH(s->records, s->nrecords,
              s->cap_records) = (struct spec_record){ (size_t)(p - s->seg.buf),
                                                      len, nr, 1, 1 };
    else if (nf > 0 && f[0].p[0] == '#')
        spec_record(s, p, len, f, nf, nr, *nl != NULL);
    else if (engine_read_event(f, nf, &ev)) {
        if (!s->is_trace)
            s->is_trace = engine_traced(&ev);
        if (is_event_op(ev.op.p[0]))
            spec_event(s, &ev, nr);
    }
}

/* The lines of the segment.  A short line (its newline within 64
 * readable bytes) is read from whitespace masks computed by MASKS,
 * inlined into one loop per instruction set; records and longer lines
 * take slow_line. */
static inline __attribute__((always_inline)) void run_lines(
    struct spec_segment *s, masks_fn *masks)
{
    const char *p = s->seg.buf, *end = p + s->seg.len;
    struct event ev;
    uint64_t nr = 0;

    while (p < end) {
        const char *nl = NULL;
        nr++;
        if (end - p >= 64) {
            uint64_t ws, nlm;
            masks((const unsigned char *)p, &ws, &nlm);
            if (nlm) {
                unsigned limit = (unsigned)__builtin_ctzll(nlm);
                uint64_t text = ~ws & wsmask_low_bits(limit);
                uint64_t starts = text & ~(text << 1);
                uint64_t ends = ~text & (text << 1);
                nl = p + limit;
                if (!starts || p[__builtin_ctzll(starts)] != '#') {
                    if (quick_event(p, starts, ends, &ev)) {
                        if (!s->is_trace)
                            s->is_trace = engine_traced(&ev);
                        if (is_event_op(ev.op.p[0]))
                            spec_event(s, &ev, nr);
                    }
                    p = nl + 1;
                    continue;
                }
            }
        }
        slow_line(s, p, end, &nl, nr);
        p = nl ? nl + 1 : end;
    }
    s->nlines = nr;
}

static void run_sse2(struct spec_segment *s)
{
    run_lines(s, whitespace_masks64);
}

#ifdef MTC_WSMASK_AVX2
static __attribute__((target("avx2"))) void run_avx2(struct spec_segment *s)
{
    run_lines(s, whitespace_masks64_avx2);
}
#endif

void spec_run(struct spec_segment *s)
{
    reset(s);
#ifdef MTC_WSMASK_AVX2
    if (have_avx2) {
        run_avx2(s);
        return;
    }
#endif
    run_sse2(s);
}

/* ---- applying it to the engine, in log order -------------------------- */

void replay_segment(struct engine *e, const struct segment *seg,
                    const char *name)
{
    const char *p = seg->buf, *end = p + seg->len;
    struct slice f[ENGINE_FIELDS];

    if (seg->long_line) {
        engine_long_line(e, name);
        return;
    }
    while (p < end) {
        const char *nl;
        size_t nf = split_line(p, end, f, ENGINE_FIELDS, &nl);
        size_t len = (size_t)((nl ? nl : end) - p);
        e->line_unterminated = nl == NULL;
        if (len > FEED_LINE_MAX)
            engine_long_line(e, name);
        else
            engine_split_line(e, p, len, f, nf);
        p = nl ? nl + 1 : end;
    }
    e->line_unterminated = 0;
}

/* Did every address have the state the segment assumed? */
static int assumptions_hold(const struct spec_segment *s, struct engine *e)
{
    for (size_t i = 0; i < s->table.count; i++) {
        const struct block *b = &s->table.blocks[i];
        int there = table_find(&e->table, block_key(b), b->hash) != NULL;
        if (there != !!(b->spec & SPEC_WAS_LIVE))
            return 0;
    }
    return 1;
}

/* Stack references to records older than the segment, resolved before
 * its own records are read (they could define the same id again). */
static void resolve_older(const struct spec_segment *s, struct engine *e,
                          int32_t *res)
{
    for (size_t i = 0; i < s->nrefs; i++) {
        const struct spec_ref *r = &s->refs[i];
        res[i] = -1;
        if (r->def >= 0 || (r->before_version && !e->ext.extended))
            continue;
        void **slot = u64map_get(&e->ext.sid_index, r->sid);
        if (slot)
            res[i] = (int32_t)((uintptr_t)*slot - 1);
        else
            e->ext.dangling_refs += r->uses;
    }
}

/* The segment's records, in order; DEFS[k] gets the stack index its k-th
 * "#s" record was given (-1 if the engine refused it). */
static void read_records(const struct spec_segment *s, struct engine *e,
                         uint64_t base, int32_t *defs, const char *name)
{
    uint64_t k = 0;

    for (size_t i = 0; i < s->nrecords; i++) {
        const struct spec_record *r = &s->records[i];
        if (r->too_long) {
            e->nr = base + r->line - 1;
            engine_long_line(e, name);
            continue;
        }
        const char *line = s->seg.buf + r->off;
        struct slice f[ENGINE_FIELDS];
        size_t nf = split_fields(line, r->len, f, ENGINE_FIELDS);
        size_t before = e->ext.nstacks;
        uint64_t sid;
        e->nr = base + r->line;
        e->line_unterminated = !r->terminated;
        engine_record(e, line, r->len, f, nf);
        if (slice_eq(f[0], MTF_REC_STACK) && nf >= 2 &&
            parse_dec_u64(f[1], &sid) == 0)
            defs[k++] = e->ext.nstacks > before ? (int32_t)before : -1;
    }
    e->line_unterminated = 0;
}

static void resolve_own(const struct spec_segment *s, int extended_before,
                        const int32_t *defs, int32_t *res)
{
    for (size_t i = 0; i < s->nrefs; i++) {
        const struct spec_ref *r = &s->refs[i];
        if (r->def >= 0 && (!r->before_version || extended_before))
            res[i] = defs[r->def];
    }
}

static void print_warnings(const struct spec_segment *s, struct engine *e,
                           uint64_t base)
{
    for (size_t i = 0; i < s->nwarnings; i++) {
        const struct spec_warning *w = &s->warnings[i];
        engine_warn(e, w->kind, base + w->line, w->addr, w->size, w->was,
                    w->where);
    }
}

/* The segment's last state of each address replaces the engine's. */
static void apply_blocks(const struct spec_segment *s, struct engine *e,
                         uint64_t base, const int32_t *res)
{
    for (size_t i = 0; i < s->table.count; i++) {
        const struct block *b = &s->table.blocks[i];
        struct slice key = block_key(b);
        struct block *g = table_find(&e->table, key, b->hash);
        if (!(b->spec & SPEC_LIVE)) {
            if (g) {
                pool_unref(&e->wheres, g->where);
                table_remove(&e->table, g);
            }
            continue;
        }
        if (g)
            pool_unref(&e->wheres, g->where);
        else
            g = table_insert(&e->table, key, b->hash);
        g->size = b->size;
        g->line = base + b->line;
        g->where = pool_ref(&e->wheres, where_of(s, b));
        g->stack = b->stack >= 0 ? res[b->stack] : -1;
    }
}

int spec_apply(struct spec_segment *s, struct engine *e, const char *name)
{
    if (s->seg.long_line || s->has_scan || !assumptions_hold(s, e)) {
        replay_segment(e, &s->seg, name);
        return 0;
    }
    uint64_t base = e->nr;
    int extended_before = e->ext.extended;
    int32_t *res = xmalloc((s->nrefs + 1) * sizeof *res);
    int32_t *defs = xmalloc((s->ndefs + 1) * sizeof *defs);

    resolve_older(s, e, res);
    read_records(s, e, base, defs, name);
    resolve_own(s, extended_before, defs, res);
    print_warnings(s, e, base);
    apply_blocks(s, e, base, res);
    e->nr = base + s->nlines;
    e->is_trace |= s->is_trace;
    /* A plain store on x86: progress.c reads it from another thread. */
    __atomic_store_n(&e->bytes, e->bytes + s->seg.len, __ATOMIC_RELAXED);
    free(res);
    free(defs);
    return 1;
}

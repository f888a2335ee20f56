/* SPDX-License-Identifier: GPL-3.0-or-later */
/* leakreport.c - see leakreport.h. */
#include "scan/leakreport.h"
#include "base/arena.h"
#include "symbols/stacktab.h"
#include "scan/suppress.h"
#include <stdlib.h>
#include <string.h>

#define MAX_LISTED_LEAKS 100

struct leak_group {
    uint32_t stack;
    enum verdict v;
    uint64_t bytes, blocks, indirect; /* indirect: through definite ones */
    unsigned kind; /* BLOCK_KIND_*: 0 for malloc's blocks */
};

static size_t group_hash(uint32_t stack, enum verdict v, unsigned kind,
                         size_t mask)
{
    return (size_t)(((uint64_t)stack * 4 + v + kind) * 0x9e3779b97f4a7c15ull >>
                    24) &
           mask;
}

static void add_to_group(struct leak_report *lr, struct leak_group *table,
                         size_t mask, const struct blockset *bs, size_t i)
{
    enum verdict v = block_verdict(bs, i);
    uint32_t stack = block_stack(bs, i);
    unsigned kind = block_flags(bs, i) & BLOCK_KIND_MASK;
    size_t h = group_hash(stack, v, kind, mask);
    while (table[h].blocks && (table[h].stack != stack || table[h].v != v ||
                               table[h].kind != kind))
        h = (h + 1) & mask;
    struct leak_group *g = &table[h];
    if (g->blocks == 0) {
        g->stack = stack;
        g->v = v;
        g->kind = kind;
        lr->ngroups++;
    }
    g->bytes += block_size(bs, i);
    g->blocks++;
    if (v == VERDICT_DEFINITE)
        g->indirect += bs->indirect[i];
}

static int rank(enum verdict v)
{
    return v == VERDICT_DEFINITE ? 0 : v == VERDICT_INDIRECT ? 1 : 2;
}

static int by_class_then_size(const void *a, const void *b)
{
    const struct leak_group *x = a, *y = b;
    if (rank(x->v) != rank(y->v))
        return rank(x->v) - rank(y->v);
    uint64_t tx = x->bytes + x->indirect, ty = y->bytes + y->indirect;
    if (tx != ty)
        return tx > ty ? -1 : 1;
    return x->stack < y->stack ? -1 : x->stack > y->stack;
}

/* Moves suppressed groups out; the others stay packed at the start. */
static void suppress_groups(struct leak_report *lr)
{
    size_t kept = 0;
    for (size_t i = 0; i < lr->ngroups; i++) {
        struct leak_group *g = &lr->groups[i];
        int p = suppress_match(stacktab_by_id(g->stack));
        if (p < 0) {
            lr->groups[kept++] = *g;
            continue;
        }
        lr->sum[g->v].bytes -= g->bytes;
        lr->sum[g->v].blocks -= g->blocks;
        lr->suppressed.bytes += g->bytes;
        lr->suppressed.blocks += g->blocks;
        if (lr->by_pattern) {
            lr->by_pattern[p].bytes += g->bytes;
            lr->by_pattern[p].blocks += g->blocks;
        }
    }
    lr->ngroups = kept;
}

void leakreport_build(struct leak_report *lr, const struct scan_result *scan)
{
    memset(lr, 0, sizeof *lr);
    lr->scan = scan;
    if (!scan->done)
        return;
    memcpy(lr->sum, scan->sum, sizeof lr->sum);
    const struct blockset *bs = &scan->bs;
    uint64_t lost = 0;
    for (int v = 0; v < VERDICT_COUNT; v++)
        if (v != VERDICT_REACHABLE)
            lost += scan->sum[v].blocks;
    size_t slots = 64;
    while (slots < 2 * lost)
        slots *= 2;
    struct leak_group *table = pages_map(slots * sizeof *table);
    if (table == NULL)
        return;
    for (size_t i = 0; i < bs->n; i++)
        if (!(block_flags(bs, i) & BLOCK_FOREIGN) &&
            block_verdict(bs, i) != VERDICT_REACHABLE)
            add_to_group(lr, table, slots - 1, bs, i);
    size_t n = 0;
    for (size_t i = 0; i < slots; i++)
        if (table[i].blocks)
            table[n++] = table[i];
    lr->groups = table;
    lr->cap = slots;
    lr->ngroups = n;
    if (suppress_count())
        lr->by_pattern = pages_map(suppress_count() * sizeof *lr->by_pattern);
    suppress_groups(lr);
    qsort(lr->groups, lr->ngroups, sizeof *lr->groups, by_class_then_size);
}

uint8_t *leakreport_definite_bits(const struct scan_result *scan,
                                  size_t *bits)
{
    *bits = 0;
    if (!scan->done)
        return NULL;
    size_t n = (size_t)stacktab_count() + 2;
    uint8_t *map = pages_map((n + 7) / 8);
    if (map == NULL)
        return NULL;
    const struct blockset *bs = &scan->bs;
    for (size_t i = 0; i < bs->n; i++) {
        uint32_t st = block_stack(bs, i);
        if (block_verdict(bs, i) == VERDICT_DEFINITE && st < n &&
            !(block_flags(bs, i) & BLOCK_FOREIGN))
            map[st / 8] |= (uint8_t)(1u << (st % 8));
    }
    *bits = n;
    return map;
}

void leakreport_free_bits(uint8_t *map, size_t bits)
{
    if (map)
        pages_unmap(map, (bits + 7) / 8);
}

/* A definitely lost group whose stack had none at the previous scan. */
static int is_new(const struct leak_report *lr, const struct leak_group *g)
{
    if (g->v != VERDICT_DEFINITE || lr->previous_definite == NULL)
        return 0;
    return g->stack >= lr->previous_bits ||
           !(lr->previous_definite[g->stack / 8] & (1u << (g->stack % 8)));
}

void leakreport_free(struct leak_report *lr)
{
    pages_unmap(lr->groups, lr->cap * sizeof *lr->groups);
    if (lr->by_pattern)
        pages_unmap(lr->by_pattern, suppress_count() * sizeof *lr->by_pattern);
    memset(lr, 0, sizeof *lr);
}

static void put_key(struct writer *w, const char *key, uint64_t v)
{
    writer_puts(w, key);
    writer_putc(w, ' ');
    writer_dec(w, v);
    writer_putc(w, '\n');
}

/* Seconds with microseconds. */
static void put_seconds(struct writer *w, const char *key, double s)
{
    uint64_t us = (uint64_t)(s * 1e6 + 0.5), whole = us / 1000000;
    char frac[7];
    for (int i = 5; i >= 0; i--, us /= 10)
        frac[i] = (char)('0' + us % 10);
    frac[6] = '\0';
    writer_puts(w, key);
    writer_putc(w, ' ');
    writer_dec(w, whole);
    writer_putc(w, '.');
    writer_puts(w, frac);
    writer_putc(w, '\n');
}

static void put_class(struct writer *w, const char *name,
                      const struct class_sum *s)
{
    writer_puts(w, name);
    writer_puts(w, "-bytes ");
    writer_dec(w, s->bytes);
    writer_putc(w, '\n');
    writer_puts(w, name);
    writer_puts(w, "-blocks ");
    writer_dec(w, s->blocks);
    writer_putc(w, '\n');
}

void leakreport_header(struct writer *w, const struct leak_report *lr)
{
    const struct scan_result *s = lr->scan;
    if (!s->done) {
        writer_puts(w, "reach ");
        writer_puts(w, s->failure && strcmp(s->failure, "off") == 0 ? "off"
                                                                    : "failed");
        if (s->failure && strcmp(s->failure, "off") != 0) {
            writer_putc(w, ' ');
            writer_puts(w, s->failure);
        }
        writer_putc(w, '\n');
        return;
    }
    writer_puts(w, "reach scan\n");
    put_seconds(w, "scan-seconds", s->seconds);
    put_seconds(w, "scan-cpu-seconds", s->cpu_seconds);
    put_key(w, "scan-threads", s->threads);
    put_key(w, "scan-stopped", s->stopped);
    put_key(w, "scan-unstopped", s->unstopped);
    if (s->unstopped && s->unstopped_why) {
        writer_puts(w, "scan-unstopped-why ");
        writer_puts(w, s->unstopped_why);
        writer_putc(w, '\n');
    }
    put_key(w, "scan-bytes", s->bytes_scanned);
    put_class(w, "definitely-lost", &lr->sum[VERDICT_DEFINITE]);
    put_class(w, "indirectly-lost", &lr->sum[VERDICT_INDIRECT]);
    put_class(w, "possibly-lost", &lr->sum[VERDICT_POSSIBLE]);
    put_class(w, "still-reachable", &lr->sum[VERDICT_REACHABLE]);
    put_class(w, "suppressed", &lr->suppressed);
}

void leakreport_body(struct writer *w, const struct leak_report *lr,
                     void (*put_frame)(struct writer *, const struct frame *))
{
    if (!lr->scan->done)
        return;
    size_t listed = lr->ngroups < MAX_LISTED_LEAKS ? lr->ngroups
                                                   : MAX_LISTED_LEAKS;
    writer_puts(w, "\nleaks ");
    writer_dec(w, lr->ngroups);
    writer_putc(w, '\n');
    for (size_t i = 0; i < listed; i++) {
        const struct leak_group *g = &lr->groups[i];
        writer_puts(w, "leak ");
        writer_puts(w, verdict_name(g->v));
        writer_puts(w, " bytes ");
        writer_dec(w, g->bytes);
        writer_puts(w, " blocks ");
        writer_dec(w, g->blocks);
        if (g->v == VERDICT_DEFINITE) {
            writer_puts(w, " indirect-bytes ");
            writer_dec(w, g->indirect);
        }
        writer_puts(w, " stack ");
        writer_dec(w, g->stack);
        if (g->kind) /* a pool's blocks, or mappings (mmap=1) */
            writer_puts(w, g->kind & BLOCK_KIND_POOL ? " kind pool"
                                                     : " kind mmap");
        if (is_new(lr, g))
            writer_puts(w, " new");
        writer_putc(w, '\n');
        const struct stack *st = stacktab_by_id(g->stack);
        for (unsigned k = 0; st && k < st->depth; k++) {
            writer_puts(w, "  #");
            writer_dec(w, k);
            writer_putc(w, ' ');
            put_frame(w, st->frames[k]);
        }
    }
    if (lr->ngroups > listed)
        put_key(w, "leaks-omitted", lr->ngroups - listed);
    for (size_t p = 0; lr->by_pattern && p < suppress_count(); p++) {
        if (lr->by_pattern[p].blocks == 0)
            continue;
        writer_puts(w, "suppressed-by blocks ");
        writer_dec(w, lr->by_pattern[p].blocks);
        writer_puts(w, " bytes ");
        writer_dec(w, lr->by_pattern[p].bytes);
        writer_puts(w, " leak:");
        writer_puts(w, suppress_pattern(p));
        writer_putc(w, '\n');
    }
}

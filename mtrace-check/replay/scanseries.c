/* SPDX-License-Identifier: GPL-3.0-or-later */
/* scanseries.c - see scanseries.h.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#include "replay/scanseries.h"
#include "base/util.h"
#include "mtrace-format.h"

#include <stdlib.h>
#include <string.h>

void series_init(struct scan_series *s)
{
    memset(s, 0, sizeof *s);
}

static void free_dense(struct scan_series *s)
{
    free(s->reach);
    free(s->kept);
    free(s->definite);
    s->reach = s->kept = s->definite = NULL;
    s->dense_n = 0;
}

void series_destroy(struct scan_series *s)
{
    for (size_t i = 0; i < s->nscans; i++)
        free(s->scans[i].rows);
    free(s->scans);
    free_dense(s);
    memset(s, 0, sizeof *s);
}

/* The open scan's dense sums become its rows. */
static void close_open(struct scan_series *s)
{
    if (!s->open)
        return;
    struct series_scan *sc = &s->scans[s->nscans - 1];
    size_t n = 0;
    for (size_t i = 0; i < s->dense_n; i++)
        n += s->reach[i] || s->definite[i];
    sc->rows = n ? xcalloc(n, sizeof *sc->rows) : NULL;
    for (size_t i = 0; i < s->dense_n; i++)
        if (s->reach[i] || s->definite[i])
            sc->rows[sc->nrows++] = (struct series_row){
                .stack = (int32_t)i - 1,
                .reach = s->reach[i],
                .kept = s->kept[i],
                .definite = s->definite[i],
            };
    free_dense(s);
    s->open = 0;
}

void series_finish(struct scan_series *s)
{
    close_open(s);
}

static void read_key(struct series_scan *sc, struct slice key, struct slice val)
{
    static const struct {
        const char *key;
        size_t offset;
    } keys[] = {
        { "seq", offsetof(struct series_scan, seq) },
        { "t", offsetof(struct series_scan, t_ns) },
        { "us", offsetof(struct series_scan, us) },
        { "stop_us", offsetof(struct series_scan, stop_us) },
        { "hold_us", offsetof(struct series_scan, hold_us) },
        { "stall_us", offsetof(struct series_scan, stall_us) },
    };
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        if (strlen(keys[k].key) == key.n &&
            memcmp(keys[k].key, key.p, key.n) == 0 &&
            parse_dec_u64(val, (uint64_t *)((char *)sc + keys[k].offset)) == 0 &&
            k == 1)
            sc->has_time = 1;
    if (key.n == 7 && memcmp(key.p, "trigger", 7) == 0 &&
        val.n < sizeof sc->trigger) {
        memcpy(sc->trigger, val.p, val.n);
        sc->trigger[val.n] = '\0';
    }
}

static void read_keys(struct series_scan *sc, const struct slice *f, size_t nf)
{
    for (size_t i = 2; i < nf; i++) {
        const char *eq = memchr(f[i].p, '=', f[i].n);
        if (eq == NULL)
            continue;
        struct slice key = { f[i].p, (size_t)(eq - f[i].p) };
        struct slice val = { eq + 1, f[i].n - key.n - 1 };
        read_key(sc, key, val);
    }
}

void series_scan(struct scan_series *s, const struct slice *f, size_t nf,
                 uint64_t line, struct alloc_table *table, size_t nstacks)
{
    uint64_t prev = s->nscans ? s->scans[s->nscans - 1].line : 0;
    close_open(s);
    if (s->nscans == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 16;
        s->scans = xrealloc(s->scans, s->cap * sizeof *s->scans);
    }
    struct series_scan *sc = &s->scans[s->nscans++];
    memset(sc, 0, sizeof *sc);
    sc->line = line;
    read_keys(sc, f, nf);
    if (!sc->has_time && s->has_t) {
        sc->has_time = 1;
        sc->t_ns = s->last_t_ns;
    }
    s->open = 1;
    s->prev_line = prev;
    s->dense_n = nstacks + 1;
    s->reach = xcalloc(s->dense_n, sizeof *s->reach);
    s->kept = xcalloc(s->dense_n, sizeof *s->kept);
    s->definite = xcalloc(s->dense_n, sizeof *s->definite);
    for (size_t i = 0; i < table->count; i++) {
        const struct block *b = &table->blocks[i];
        size_t k = b->stack >= 0 && (size_t)b->stack < nstacks
                       ? (size_t)b->stack + 1 : 0;
        s->reach[k] += b->size;
        if (prev && b->line < prev)
            s->kept[k] += b->size;
    }
}

void series_verdict(struct scan_series *s, const struct slice *f, size_t nf,
                    struct alloc_table *table)
{
    if (!s->open || nf < 3 || f[2].n != 1)
        return;
    struct block *b = table_find(table, f[1], hash_bytes(f[1].p, f[1].n));
    if (b == NULL || b->line > s->scans[s->nscans - 1].line)
        return;
    size_t k = b->stack >= 0 && (size_t)b->stack + 1 < s->dense_n
                   ? (size_t)b->stack + 1 : 0;
    /* Lost: not reachable (the table counted every live block so). */
    s->reach[k] -= s->reach[k] < b->size ? s->reach[k] : b->size;
    if (s->prev_line && b->line < s->prev_line)
        s->kept[k] -= s->kept[k] < b->size ? s->kept[k] : b->size;
    if (f[2].p[0] == MTF_VERDICT_DEFINITE)
        s->definite[k] += b->size;
}

void series_cost(struct scan_series *s, const struct slice *f, size_t nf)
{
    uint64_t seq = 0;
    for (size_t i = 2; i < nf; i++)
        if (f[i].n > 4 && memcmp(f[i].p, "seq=", 4) == 0)
            parse_dec_u64((struct slice){ f[i].p + 4, f[i].n - 4 }, &seq);
    /* The latest scan of that number (a fork child numbers on). */
    for (size_t i = s->nscans; i-- > 0;)
        if (s->scans[i].seq == seq) {
            read_keys(&s->scans[i], f, nf);
            s->scans[i].has_cost = 1;
            return;
        }
}

void series_record(struct scan_series *s, const char *line, size_t len,
                   uint64_t nr, struct alloc_table *table, size_t nstacks)
{
    struct slice f[24];
    size_t nf = split_fields(line, len, f, 24);
    if (nf >= 2 && slice_eq(f[0], MTF_REC_SCAN) &&
        slice_eq(f[1], MTF_SCAN_KEYWORD))
        series_scan(s, f, nf, nr, table, nstacks);
    else if (nf >= 2 && slice_eq(f[0], MTF_REC_SCAN) &&
             slice_eq(f[1], MTF_COST_KEYWORD))
        series_cost(s, f, nf);
    else if (nf >= 3 && slice_eq(f[0], MTF_REC_VERDICT))
        series_verdict(s, f, nf, table);
}

void series_time(struct scan_series *s, const struct slice *f, size_t nf)
{
    uint64_t t;
    if (nf == 2 && parse_dec_u64(f[1], &t) == 0 && (!s->has_t || t > s->last_t_ns)) {
        s->last_t_ns = t;
        s->has_t = 1;
    }
}

const struct series_row *series_row(const struct series_scan *sc,
                                    int32_t stack)
{
    size_t lo = 0, hi = sc->nrows;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (sc->rows[mid].stack < stack)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < sc->nrows && sc->rows[lo].stack == stack ? &sc->rows[lo]
                                                         : NULL;
}

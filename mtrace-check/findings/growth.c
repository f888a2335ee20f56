/* SPDX-License-Identifier: GPL-3.0-or-later */
/* growth.c - see growth.h.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#include "findings/growth.h"
#include "findings/findings.h"
#include "base/util.h"
#include "mtrace-format.h"

#include <stdlib.h>
#include <string.h>

size_t growth_scan_count(const struct scan_series *s)
{
    size_t m = s->nscans;
    while (m > 0 && strcmp(s->scans[m - 1].trigger, MTF_END_EXIT) == 0)
        m--;
    return m;
}

static uint64_t reach_at(const struct scan_series *s, size_t i, int32_t stack)
{
    const struct series_row *r = series_row(&s->scans[i], stack);
    return r ? r->reach : 0;
}

/* Scan I rose for STACK: more than at scan I - 1, all of that kept. */
static int rose(const struct scan_series *s, size_t i, int32_t stack)
{
    const struct series_row *r = series_row(&s->scans[i], stack);
    uint64_t before = i ? reach_at(s, i - 1, stack) : 0;
    return r && r->reach > before && r->kept >= before;
}

/* The run of rising scans of STACK that ends at scan M - 1: its length. */
static unsigned rising_run(const struct scan_series *s, size_t m,
                           int32_t stack)
{
    unsigned n = 0;
    for (size_t i = m; i-- > 0 && rose(s, i, stack);)
        n++;
    return n;
}

static void fill_rate(const struct scan_series *s, struct growth *g)
{
    const struct series_scan *a = &s->scans[g->first_scan];
    const struct series_scan *b = &s->scans[g->last_scan];
    if (!a->has_time || !b->has_time || b->t_ns <= a->t_ns)
        return;
    g->has_rate = 1;
    g->seconds = (double)(b->t_ns - a->t_ns) / 1e9;
    g->bytes_per_second = (double)(g->last_bytes - g->first_bytes) / g->seconds;
}

static int by_rate(const void *pa, const void *pb)
{
    const struct growth *a = pa, *b = pb;
    if (a->bytes_per_second != b->bytes_per_second)
        return a->bytes_per_second < b->bytes_per_second ? 1 : -1;
    if (a->last_bytes != b->last_bytes)
        return a->last_bytes < b->last_bytes ? 1 : -1;
    return a->stack < b->stack ? -1 : a->stack > b->stack;
}

/* The fingerprint of a loss record of the same stack, else its own. */
static void name_growth(struct findings *f)
{
    struct fp_item *items = xcalloc(f->ngrowth + 1, sizeof *items);
    for (size_t i = 0; i < f->ngrowth; i++) {
        items[i].frames = f->growth[i].frames;
        items[i].stack = f->growth[i].stack;
    }
    fingerprint_assign(items, f->ngrowth);
    for (size_t i = 0; i < f->ngrowth; i++) {
        struct growth *g = &f->growth[i];
        memcpy(g->fingerprint, items[i].fp, FP_LEN);
        for (size_t k = 0; k < f->nrecords; k++)
            if (f->records[k].stack == g->stack && f->records[k].stack >= 0) {
                memcpy(g->fingerprint, f->records[k].fingerprint, FP_LEN);
                break;
            }
    }
    free(items);
}

static void add_growth(struct findings *f, const struct scan_series *s,
                       size_t m, int32_t stack, unsigned run)
{
    struct growth *g = &f->growth[f->ngrowth];
    memset(g, 0, sizeof *g);
    g->stack = stack;
    g->scans = run;
    g->first_scan = m - run;
    g->last_scan = m - 1;
    g->first_bytes = reach_at(s, g->first_scan, stack);
    g->last_bytes = reach_at(s, g->last_scan, stack);
    fill_rate(s, g);
    struct ext_store *x = f->stacks;
    if (stack >= 0 && (size_t)stack < x->nstacks) {
        g->sid = x->stacks[stack].sid;
        view_stack(x, &x->stacks[stack], &f->growth_views[f->ngrowth]);
        g->frames = &f->growth_views[f->ngrowth];
    }
    f->ngrowth++;
}

static void find_growth(struct findings *f, const struct scan_series *s)
{
    size_t m = growth_scan_count(s);
    f->nseries = m;
    if (m < GROWTH_MIN_SCANS)
        return;
    const struct series_scan *last = &s->scans[m - 1];
    f->growth = xcalloc(last->nrows + 1, sizeof *f->growth);
    f->growth_views = xcalloc(last->nrows + 1, sizeof *f->growth_views);
    for (size_t i = 0; i < last->nrows; i++) {
        unsigned run = rising_run(s, m, last->rows[i].stack);
        if (run >= GROWTH_MIN_SCANS)
            add_growth(f, s, m, last->rows[i].stack, run);
    }
    qsort(f->growth, f->ngrowth, sizeof *f->growth, by_rate);
    /* The views moved with nothing: each growth points at its own slot,
     * which sorting the growths does not move. */
    name_growth(f);
}

/* Definitely lost records whose stack had none at the scan before. */
static void mark_new(struct findings *f, const struct scan_series *s)
{
    if (s->nscans < 2 || !f->classified)
        return;
    f->has_previous_scan = 1;
    const struct series_scan *prev = &s->scans[s->nscans - 2];
    for (size_t i = 0; i < f->nrecords; i++) {
        struct loss_record *r = &f->records[i];
        if (r->cls != CLASS_DEFINITE)
            continue;
        const struct series_row *row = series_row(prev, r->stack);
        r->new_since_previous = row == NULL || row->definite == 0;
    }
}

void growth_build(struct findings *f)
{
    struct scan_series *s = &f->e->series;
    series_finish(s);
    f->series = s;
    find_growth(f, s);
    mark_new(f, s);
}

void growth_free(struct findings *f)
{
    for (size_t i = 0; i < f->ngrowth; i++)
        free(f->growth_views[i].v);
    free(f->growth_views);
    free(f->growth);
    f->growth = NULL;
    f->growth_views = NULL;
    f->ngrowth = 0;
}

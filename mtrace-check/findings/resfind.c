/* SPDX-License-Identifier: GPL-3.0-or-later */
/* resfind.c - the resources of the findings (see resfind.h).
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#include "findings/resfind.h"
#include "mtrace-format.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *resfind_id(uint64_t id, char *buf)
{
    snprintf(buf, 24, id < 65536 ? "%" PRIu64 : "%#" PRIx64, id);
    return buf;
}

/* The readable frames of stack index S, made once per index. */
static const struct view_frames *view_of(struct res_findings *r,
                                         struct ext_store *x,
                                         struct u64map *made, int32_t s)
{
    if (s < 0)
        return NULL;
    void **slot = u64map_put(made, (uint64_t)s);
    if (*slot == NULL) {
        view_stack(x, &x->stacks[s], &r->views[r->nviews]);
        *slot = (void *)(uintptr_t)++r->nviews;
    }
    return &r->views[(uintptr_t)*slot - 1];
}

static int listed(const struct engine *e, const struct res_table *t,
                  const struct res_entry *en)
{
    if (!en->held)
        return 0;
    return !e->end.seen || e->end.reason != END_EXEC ||
           strcmp(t->kinds[en->kind], MTF_RES_KIND_FD) == 0;
}

static void add_held(struct res_findings *r, struct ext_store *x,
                     struct u64map *made, struct u64map *by_group,
                     const struct res_table *t, const struct res_entry *en)
{
    uint64_t key = (uint64_t)en->kind << 32 | (uint32_t)(en->stack + 1);
    void **slot = u64map_put(by_group, key);
    if (*slot == NULL) {
        struct res_group *g = &r->groups[r->ngroups];
        memset(g, 0, sizeof *g);
        g->kind = t->kinds[en->kind];
        g->stack = en->stack;
        g->sid = en->stack >= 0 ? x->stacks[en->stack].sid : 0;
        g->first_line = en->line;
        g->frames = view_of(r, x, made, en->stack);
        *slot = (void *)(uintptr_t)++r->ngroups;
    }
    struct res_group *g = &r->groups[(uintptr_t)*slot - 1];
    g->ids = xrealloc(g->ids, (g->nids + 1) * sizeof *g->ids);
    g->ids[g->nids++] = en->id;
    if (en->line < g->first_line)
        g->first_line = en->line;
    r->held++;
}

/* By kind; then most resources first; then the earliest acquire. */
static int by_kind(const void *pa, const void *pb)
{
    const struct res_group *a = pa, *b = pb;
    int c = strcmp(a->kind, b->kind);
    if (c)
        return c;
    if (a->nids != b->nids)
        return a->nids > b->nids ? -1 : 1;
    return (a->first_line > b->first_line) - (a->first_line < b->first_line);
}

static int by_line(const void *pa, const void *pb)
{
    const struct res_entry *a = *(const struct res_entry *const *)pa;
    const struct res_entry *b = *(const struct res_entry *const *)pb;
    return (a->line > b->line) - (a->line < b->line);
}

void resfind_build(struct res_findings *r, struct engine *e)
{
    struct res_table *t = &e->res;
    struct u64map made, by_group;
    memset(r, 0, sizeof *r);
    r->records = t->records;
    r->groups = xcalloc(t->nentries + 1, sizeof *r->groups);
    r->views = xcalloc(t->nentries + t->nwarnings + 1, sizeof *r->views);
    r->warnings = xcalloc(t->nwarnings + 1, sizeof *r->warnings);
    u64map_init(&made);
    u64map_init(&by_group);
    /* Each group's ids in the order they were acquired. */
    const struct res_entry **held = xcalloc(t->nentries + 1, sizeof *held);
    size_t n = 0;
    for (size_t i = 0; i < t->nentries; i++)
        if (listed(e, t, &t->entries[i]))
            held[n++] = &t->entries[i];
    qsort(held, n, sizeof *held, by_line);
    for (size_t i = 0; i < n; i++)
        add_held(r, &e->ext, &made, &by_group, t, held[i]);
    free(held);
    qsort(r->groups, r->ngroups, sizeof *r->groups, by_kind);
    for (size_t i = 0; i < t->nwarnings; i++) {
        const struct res_warning *w = &t->warnings[i];
        r->warnings[i] = (struct res_warning_view){
            .what = w->what, .kind = t->kinds[w->kind], .id = w->id,
            .line = w->line, .frames = view_of(r, &e->ext, &made, w->stack)
        };
    }
    r->nwarnings = t->nwarnings;
    u64map_destroy(&made);
    u64map_destroy(&by_group);
}

void resfind_destroy(struct res_findings *r)
{
    for (size_t i = 0; i < r->ngroups; i++)
        free(r->groups[i].ids);
    for (size_t i = 0; i < r->nviews; i++)
        free(r->views[i].v);
    free(r->views);
    free(r->groups);
    free(r->warnings);
    memset(r, 0, sizeof *r);
}

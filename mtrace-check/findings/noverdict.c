/* SPDX-License-Identifier: GPL-3.0-or-later */
/* noverdict.c - loss records for a log without verdicts (see
 * noverdict.h).
 *
 * Copyright (C) 2026 the libmtrace authors. */
#define _GNU_SOURCE /* memmem */
#include "findings/noverdict.h"
#include "base/maps.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

const char nv_words[] = "not freed (no reachability verdict)";
const char nv_id[] = "not-freed";

static char *keep(struct nv_records *nv, const char *p, size_t n)
{
    char *s = xmalloc(n + 1);
    memcpy(s, p, n);
    s[n] = '\0';
    nv->strings[nv->nstrings++] = s;
    return s;
}

/* The caller as the text report prints it, as a frame: "FILE:LINE", or
 * what glibc wrote, "MODULE:(FUNCTION+OFF)[ADDR]" or "MODULE:[OFF]". */
static void caller_frame(struct nv_records *nv, struct slice c,
                         struct view_frame *v)
{
    memset(v, 0, sizeof *v);
    const char *bracket = memmem(c.p, c.n, "[0x", 3);
    if (bracket) {
        const char *open = memchr(c.p, '(', (size_t)(bracket - c.p));
        const char *plus = open ? memchr(open, '+', (size_t)(bracket - open))
                                : NULL;
        const char *colon = memchr(c.p, ':', (size_t)(bracket - c.p));
        if (open && plus && plus > open + 1)
            v->function = keep(nv, open + 1, (size_t)(plus - open - 1));
        if (colon && colon > c.p)
            v->module = keep(nv, c.p, (size_t)(colon - c.p));
        v->off = strtoull(bracket + 1, NULL, 16);
        return;
    }
    size_t k = c.n;
    while (k > 0 && c.p[k - 1] >= '0' && c.p[k - 1] <= '9')
        k--;
    if (k > 1 && k < c.n && c.p[k - 1] == ':') {
        v->file = keep(nv, c.p, k - 1);
        v->line = (unsigned)strtoul(keep(nv, c.p + k, c.n - k), NULL, 10);
    } else if (c.n) {
        v->file = keep(nv, c.p, c.n);
    }
}

static int by_size(const void *pa, const void *pb)
{
    const struct loss_record *a = pa, *b = pb;
    if (a->bytes != b->bytes)
        return a->bytes > b->bytes ? -1 : 1;
    if (a->blocks != b->blocks)
        return a->blocks > b->blocks ? -1 : 1;
    return (a->stack > b->stack) - (a->stack < b->stack);
}

/* A glibc-style log: one record per caller, in the leak table's order
 * first (findings_leak's callers are computed in row order). */
static void by_caller(struct nv_records *nv, const struct findings *f)
{
    struct strmap seen;
    strmap_init(&seen);
    nv->r = xcalloc(f->nleaks + 1, sizeof *nv->r);
    nv->views = xcalloc(f->nleaks + 1, sizeof *nv->views);
    nv->strings = xcalloc(4 * f->nleaks + 1, sizeof *nv->strings);
    for (size_t i = 0; i < f->nleaks; i++) {
        struct leak l;
        findings_leak(f, i, 1, &l);
        void **slot = strmap_put(&seen, l.caller);
        if (*slot == NULL) {
            struct loss_record *r = &nv->r[nv->n];
            struct view_frames *v = &nv->views[nv->n];
            v->v = xcalloc(1, sizeof *v->v);
            v->n = v->cap = 1;
            caller_frame(nv, l.caller, &v->v[0]);
            r->cls = CLASS_UNKNOWN;
            r->stack = (int32_t)nv->n; /* tells records apart */
            r->suppressed = -1;
            r->frames = v;
            r->failing = 1;
            *slot = r;
            nv->n++;
        }
        struct loss_record *r = *slot;
        r->bytes += l.size;
        r->blocks++;
    }
    strmap_destroy(&seen);
    fingerprint_records(nv->r, nv->n);
    qsort(nv->r, nv->n, sizeof *nv->r, by_size);
}

void nv_build(struct nv_records *nv, const struct findings *f)
{
    memset(nv, 0, sizeof *nv);
    if (f->extended || f->nleaks == 0) {
        nv->r = f->records; /* one per allocation stack already */
        nv->n = f->nrecords;
        return;
    }
    by_caller(nv, f);
}

void nv_destroy(struct nv_records *nv)
{
    if (nv->views) {
        for (size_t i = 0; i < nv->n; i++)
            free(nv->views[i].v);
        free(nv->views);
        free(nv->r);
    }
    for (size_t i = 0; i < nv->nstrings; i++)
        free(nv->strings[i]);
    free(nv->strings);
    memset(nv, 0, sizeof *nv);
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* htmldiff.c - the HTML writer's --diff mode (html_diff, writer.h): the
 * page of the NEW log, with a member "diff" that adds the differential
 * flame graph (doc/html.md, "Comparing two runs").  Per stack of the page:
 * the leaked bytes that take part in the comparison in NEW ("new_b") and
 * those of the records that match them in OLD ("old_b": the same class
 * and fingerprint; a record gone from OLD whose fingerprint a NEW record
 * of another class has counts at that stack).  The page draws each stack
 * as wide as the larger of the two and colours it by the change.  Records
 * gone with no stack in NEW are listed apart ("gone"), with their
 * innermost own frame.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "base/maps.h"
#include "base/util.h"
#include "findings/diff.h"
#include "output/html.h"
#include "output/json.h"
#include "output/writer.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct diff_page {
    const struct findings_diff *d;
    uint64_t *old_b, *new_b; /* per page stack */
    long nstacks;
};

static long page_of(const struct loss_record *r, const long *stack_of,
                    size_t n)
{
    size_t t = (size_t)(r->stack + 1);
    return t < n ? stack_of[t] : -1;
}

/* The page stack of NEW's record with fingerprint FP (any class). */
static long stack_of_fp(struct strmap *by_fp, const char *fp)
{
    void **slot = strmap_get(by_fp, (struct slice){ fp, strlen(fp) });
    return slot ? (long)(uintptr_t)*slot - 1 : -1;
}

static void put_u64s(FILE *o, const char *name, const uint64_t *v, long n)
{
    fprintf(o, ",\"%s\":[", name);
    for (long i = 0; i < n; i++)
        fprintf(o, "%s%" PRIu64, i ? "," : "", v[i]);
    putc(']', o);
}

static void put_gone(FILE *o, const struct loss_record *r, int first)
{
    const struct view_frame *fr = fp_own_frame(r->frames);
    fprintf(o, "%s{\"class\":\"%s\",\"bytes\":%" PRIu64 ",\"blocks\":%" PRIu64
               ",\"function\":",
            first ? "" : ",", class_name(r->cls), r->bytes, r->blocks);
    json_cstring(o, fr ? fr->function : NULL);
    fputs(",\"file\":", o);
    json_cstring(o, fr ? fr->file : NULL);
    fprintf(o, ",\"line\":%u}", fr ? fr->line : 0);
}

static void more(FILE *o, const struct findings *f, const long *stack_of,
                 size_t n, void *ctx)
{
    const struct findings_diff *d = ctx;
    long np = 0;
    for (size_t i = 0; i < n; i++)
        if (stack_of[i] + 1 > np)
            np = stack_of[i] + 1;
    uint64_t *old_b = xcalloc((size_t)np + 1, sizeof *old_b);
    uint64_t *new_b = xcalloc((size_t)np + 1, sizeof *new_b);
    struct strmap by_fp;
    strmap_init(&by_fp);
    for (size_t i = 0; i < f->nrecords; i++) {
        const struct loss_record *r = &f->records[i];
        long s = page_of(r, stack_of, n);
        void **slot = strmap_put(
            &by_fp, (struct slice){ r->fingerprint, strlen(r->fingerprint) });
        if (*slot == NULL)
            *slot = (void *)(uintptr_t)(s + 1);
        if (s >= 0 && diff_counts(f, r))
            new_b[s] += r->bytes;
    }
    /* OLD's bytes: of the records matched in both. */
    const struct diff_entry *pairs[2] = { d->grown, d->same };
    size_t npairs[2] = { d->ngrown, d->nsame };
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < npairs[k]; i++) {
            long s = page_of(pairs[k][i].new, stack_of, n);
            if (s >= 0)
                old_b[s] += pairs[k][i].old->bytes;
        }
    fputs(",\n\"diff\":{\"old_log\":", o);
    json_cstring(o, d->old->log);
    fputs(",\"new_log\":", o);
    json_cstring(o, d->new->log);
    fprintf(o, ",\"new\":%zu,\"gone\":%zu,\"grown\":%zu,\"failing\":%s",
            d->nadded, d->ngone, d->ngrown, d->failing ? "true" : "false");
    fputs(",\"gone_elsewhere\":[", o);
    int first = 1;
    for (size_t k = 0; k < d->ngone; k++) {
        const struct loss_record *r = d->gone[k].old;
        long s = stack_of_fp(&by_fp, r->fingerprint);
        if (s >= 0) {
            old_b[s] += r->bytes;
        } else {
            put_gone(o, r, first);
            first = 0;
        }
    }
    putc(']', o);
    put_u64s(o, "old_b", old_b, np);
    put_u64s(o, "new_b", new_b, np);
    putc('}', o);
    strmap_destroy(&by_fp);
    free(old_b);
    free(new_b);
}

int html_diff(struct writer *w, const struct findings_diff *d)
{
    return html_write_more(w->opt->html, d->new, more, (void *)d);
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* diff.c - two logs' loss records compared by class and fingerprint (see
 * diff.h).
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "findings/diff.h"
#include "base/maps.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int diff_counts(const struct findings *f, const struct loss_record *r)
{
    if (!r->classified)
        return 1;
    if (r->suppressed >= 0)
        return 0;
    if (class_is_leak(r->cls))
        return 1;
    return r->failing || (r->cls == CLASS_REACHABLE && f->show_reachable);
}

/* "CLASS FINGERPRINT": what matches a record across the two logs. */
static struct slice key_of(const struct loss_record *r, char *buf, size_t n)
{
    int k = snprintf(buf, n, "%d %s", (int)r->cls, r->fingerprint);
    return (struct slice){ buf, (size_t)k < n ? (size_t)k : n - 1 };
}

/* F's records that take part, by key. */
static void index_records(struct strmap *m, const struct findings *f)
{
    char buf[FP_LEN + 16];
    strmap_init(m);
    for (size_t i = 0; i < f->nrecords; i++) {
        const struct loss_record *r = &f->records[i];
        if (!diff_counts(f, r))
            continue;
        void **slot = strmap_put(m, key_of(r, buf, sizeof buf));
        if (*slot == NULL) /* a fingerprint names one stack of a log */
            *slot = (void *)r;
    }
}

static void push(struct diff_entry **v, size_t *n, const struct loss_record *o,
                 const struct loss_record *nw)
{
    *v = xrealloc(*v, (*n + 1) * sizeof **v);
    (*v)[(*n)++] = (struct diff_entry){ .old = o, .new = nw };
}

static const struct loss_record *match(struct strmap *m,
                                       const struct loss_record *r)
{
    char buf[FP_LEN + 16];
    void **slot = strmap_get(m, key_of(r, buf, sizeof buf));
    return slot ? *slot : NULL;
}

void diff_build(struct findings_diff *d, const struct findings *old,
                const struct findings *new)
{
    struct strmap in_old, in_new;
    memset(d, 0, sizeof *d);
    d->old = old;
    d->new = new;
    index_records(&in_old, old);
    index_records(&in_new, new);
    for (size_t i = 0; i < new->nrecords; i++) {
        const struct loss_record *r = &new->records[i];
        if (!diff_counts(new, r) || match(&in_new, r) != r)
            continue;
        const struct loss_record *o = match(&in_old, r);
        if (o == NULL) {
            push(&d->added, &d->nadded, NULL, r);
            d->failing |= r->failing;
        } else if (r->bytes > o->bytes || r->blocks > o->blocks) {
            push(&d->grown, &d->ngrown, o, r);
        } else {
            push(&d->same, &d->nsame, o, r);
        }
    }
    for (size_t i = 0; i < old->nrecords; i++) {
        const struct loss_record *r = &old->records[i];
        if (diff_counts(old, r) && match(&in_old, r) == r &&
            match(&in_new, r) == NULL)
            push(&d->gone, &d->ngone, r, NULL);
    }
    strmap_destroy(&in_old);
    strmap_destroy(&in_new);
}

void diff_destroy(struct findings_diff *d)
{
    free(d->added);
    free(d->gone);
    free(d->grown);
    free(d->same);
    memset(d, 0, sizeof *d);
}

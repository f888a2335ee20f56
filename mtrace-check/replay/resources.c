/* SPDX-License-Identifier: GPL-3.0-or-later */
/* resources.c - "#r" records to the resources held (see resources.h).
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#include "replay/resources.h"
#include "read/fields.h"
#include "mtrace-format.h"

#include <stdlib.h>
#include <string.h>

void res_init(struct res_table *t)
{
    memset(t, 0, sizeof *t);
    strmap_init(&t->kind_index);
    strmap_init(&t->entry_index);
}

void res_destroy(struct res_table *t)
{
    for (size_t i = 0; i < t->nkinds; i++)
        free(t->kinds[i]);
    free(t->kinds);
    free(t->entries);
    free(t->warnings);
    strmap_destroy(&t->kind_index);
    strmap_destroy(&t->entry_index);
    memset(t, 0, sizeof *t);
}

static uint32_t kind_of(struct res_table *t, struct slice k)
{
    void **slot = strmap_put(&t->kind_index, k);
    if (*slot == NULL) {
        t->kinds = xrealloc(t->kinds, (t->nkinds + 1) * sizeof *t->kinds);
        char *copy = xmalloc(k.n + 1);
        memcpy(copy, k.p, k.n);
        copy[k.n] = '\0';
        t->kinds[t->nkinds] = copy;
        *slot = (void *)(uintptr_t)++t->nkinds;
    }
    return (uint32_t)((uintptr_t)*slot - 1);
}

/* The entry of (KIND, ID), made (not held) when new. */
static struct res_entry *entry_of(struct res_table *t, uint32_t kind,
                                  uint64_t id)
{
    char key[12];
    memcpy(key, &kind, 4);
    memcpy(key + 4, &id, 8);
    void **slot = strmap_put(&t->entry_index, (struct slice){ key, sizeof key });
    if (*slot == NULL) {
        if (t->nentries == t->cap_entries) {
            t->cap_entries = t->cap_entries ? 2 * t->cap_entries : 64;
            t->entries =
                xrealloc(t->entries, t->cap_entries * sizeof *t->entries);
        }
        t->entries[t->nentries] = (struct res_entry){ .kind = kind, .id = id,
                                                      .stack = -1 };
        *slot = (void *)(uintptr_t)++t->nentries;
    }
    return &t->entries[(uintptr_t)*slot - 1];
}

static void warn(struct res_table *t, enum res_warn_kind what,
                 const struct res_entry *e, uint64_t line, int32_t stack)
{
    if (t->nwarnings == t->cap_warnings) {
        t->cap_warnings = t->cap_warnings ? 2 * t->cap_warnings : 16;
        t->warnings =
            xrealloc(t->warnings, t->cap_warnings * sizeof *t->warnings);
    }
    t->warnings[t->nwarnings++] = (struct res_warning){
        .what = what, .kind = e->kind, .id = e->id, .line = line,
        .stack = stack
    };
}

static int parse_id(struct slice s, uint64_t *id)
{
    if (s.n == 1 && s.p[0] == '0') {
        *id = 0;
        return 0;
    }
    return parse_0xhex_u64(s, id);
}

/* "#r OP KIND ID sSID" */
void res_record(struct res_table *t, struct ext_store *x, const struct slice *f,
                size_t nf, uint64_t line)
{
    uint64_t id;
    if (nf < 4 || f[1].n != 1 ||
        (f[1].p[0] != MTF_RES_ACQUIRE && f[1].p[0] != MTF_RES_RELEASE) ||
        f[2].n == 0 || f[2].n > MTF_RES_KIND_MAX || parse_id(f[3], &id)) {
        t->bad_records++;
        return;
    }
    t->records++;
    int32_t stack = nf >= 5 ? ext_stack_ref(x, f[4]) : -1;
    struct res_entry *e = entry_of(t, kind_of(t, f[2]), id);
    if (f[1].p[0] == MTF_RES_RELEASE) {
        if (!e->held)
            warn(t, RES_RELEASE_UNKNOWN, e, line, stack);
        e->held = 0;
        return;
    }
    if (e->held) { /* the first acquire stays, as the Perl script's "+" */
        warn(t, RES_ACQUIRE_DUPLICATE, e, line, stack);
        return;
    }
    e->held = 1;
    e->stack = stack;
    e->line = line;
}

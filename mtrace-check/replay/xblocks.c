/* SPDX-License-Identifier: GPL-3.0-or-later */
/* xblocks.c - see xblocks.h.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "replay/xblocks.h"
#include "read/fields.h"
#include "mtrace-format.h"

#include <stdlib.h>
#include <string.h>

#define MAX_FIELDS 8

struct xverdict {
    uint64_t indirect;
    enum leak_class cls;
};

const char *block_kind_name(enum block_kind k)
{
    static const char *const names[KIND_COUNT] = {
        MTF_KIND_MALLOC, MTF_KIND_POOL, MTF_KIND_MMAP
    };
    return k < KIND_COUNT ? names[k] : "?";
}

void xblocks_init(struct xblocks *x)
{
    memset(x, 0, sizeof *x);
    u64map_init(&x->by_key);
    u64map_init(&x->verdict);
    u64map_init(&x->pools);
}

void xblocks_destroy(struct xblocks *x)
{
    free(x->b);
    free(x->free_slots);
    u64map_destroy(&x->by_key);
    u64map_each(&x->verdict, free);
    u64map_destroy(&x->verdict);
    u64map_each(&x->pools, free);
    u64map_destroy(&x->pools);
    memset(x, 0, sizeof *x);
}

static int kind_of(struct slice s, enum block_kind *k)
{
    if (slice_eq(s, MTF_KIND_POOL))
        *k = KIND_POOL;
    else if (slice_eq(s, MTF_KIND_MMAP))
        *k = KIND_MMAP;
    else
        return -1;
    return 0;
}

static uint64_t key_of(enum block_kind k, uint64_t addr)
{
    return (uint64_t)k << 56 | (addr & ((1ull << 56) - 1));
}

static struct xblock *find(struct xblocks *x, uint64_t key)
{
    void **slot = u64map_get(&x->by_key, key);
    return slot && *slot ? &x->b[(uintptr_t)*slot - 1] : NULL;
}

static void end_block(struct xblocks *x, struct xblock *b)
{
    void **slot = u64map_get(&x->by_key, key_of(b->kind, b->addr));
    if (slot)
        *slot = NULL;
    b->live = 0;
    x->live--;
    if (x->nfree == x->capfree) {
        x->capfree = x->capfree ? 2 * x->capfree : 64;
        x->free_slots = xrealloc(x->free_slots,
                                 x->capfree * sizeof *x->free_slots);
    }
    x->free_slots[x->nfree++] = (size_t)(b - x->b);
}

static struct xblock *new_block(struct xblocks *x, uint64_t key)
{
    size_t i;
    if (x->nfree)
        i = x->free_slots[--x->nfree];
    else {
        if (x->n == x->cap) {
            x->cap = x->cap ? 2 * x->cap : 64;
            x->b = xrealloc(x->b, x->cap * sizeof *x->b);
        }
        i = x->n++;
    }
    *u64map_put(&x->by_key, key) = (void *)(uintptr_t)(i + 1);
    x->live++;
    return &x->b[i];
}

/* "#b KIND 0xPTR 0xSIZE sSID [POOL]"; a block live at the same place
 * ends first (as a "+" of a live address would warn: here it replaces). */
static void read_begin(struct xblocks *x, struct ext_store *ext,
                       const struct slice *f, size_t nf, uint64_t nr)
{
    enum block_kind k;
    uint64_t addr, size = 0, pool = 0;
    if (nf < 5 || nf > 6 || kind_of(f[1], &k) || parse_0xhex_u64(f[2], &addr) ||
        (parse_0xhex_u64(f[3], &size) && !slice_eq(f[3], "0")) ||
        (nf == 6 && parse_dec_u64(f[5], &pool))) {
        x->bad_records++;
        return;
    }
    if (slice_eq(f[3], "0"))
        size = 0;
    uint64_t key = key_of(k, addr);
    struct xblock *old = find(x, key);
    if (old)
        end_block(x, old);
    struct xblock *b = new_block(x, key);
    *b = (struct xblock){ .addr = addr, .size = size, .line = nr,
                          .stack = ext_stack_ref(ext, f[4]),
                          .pool = (uint32_t)pool, .kind = k, .live = 1 };
}

/* "#x KIND 0xPTR" */
static void read_end(struct xblocks *x, const struct slice *f, size_t nf)
{
    enum block_kind k;
    uint64_t addr;
    if (nf != 3 || kind_of(f[1], &k) || parse_0xhex_u64(f[2], &addr)) {
        x->bad_records++;
        return;
    }
    struct xblock *b = find(x, key_of(k, addr));
    if (b)
        end_block(x, b);
}

static void pool_named(struct xblocks *x, uint64_t id, const char *line,
                       size_t len, struct slice after)
{
    const char *name = after.p + after.n + 1;
    size_t n = name < line + len ? (size_t)(line + len - name) : 0;
    void **slot = u64map_put(&x->pools, id);
    free(*slot);
    char *s = xcalloc(1, n + 1);
    memcpy(s, name, n);
    *slot = s;
}

/* "#P new ID NAME" or "#P destroy ID": every block of the pool ends. */
static void read_pool(struct xblocks *x, const char *line, size_t len,
                      const struct slice *f, size_t nf)
{
    uint64_t id;
    if (nf < 3 || parse_dec_u64(f[2], &id)) {
        x->bad_records++;
        return;
    }
    if (slice_eq(f[1], MTF_POOL_NEW)) {
        pool_named(x, id, line, len, f[2]);
        return;
    }
    if (!slice_eq(f[1], MTF_POOL_DESTROY)) {
        x->bad_records++;
        return;
    }
    for (size_t i = 0; i < x->n; i++)
        if (x->b[i].live && x->b[i].kind == KIND_POOL && x->b[i].pool == id)
            end_block(x, &x->b[i]);
}

/* "#k KIND 0xPTR CLASS [INDIRECT]", after the "#C scan" it belongs to. */
static void read_verdict(struct xblocks *x, const struct verdicts *v,
                         const struct slice *f, size_t nf)
{
    enum block_kind k;
    uint64_t addr, indirect = 0;
    enum leak_class cls = nf >= 4 ? verdict_class_of_letter(f[3]) : CLASS_UNKNOWN;
    if (cls == CLASS_REACHABLE) /* a "#k" names lost blocks only */
        cls = CLASS_UNKNOWN;
    if (v->scans == 0 || nf > 5 || cls == CLASS_UNKNOWN ||
        kind_of(f[1], &k) || parse_0xhex_u64(f[2], &addr) ||
        (nf == 5 && parse_dec_u64(f[4], &indirect))) {
        x->bad_records++;
        return;
    }
    if (x->verdict_scans != v->scans) { /* a later scan replaces them */
        u64map_each(&x->verdict, free);
        u64map_destroy(&x->verdict);
        u64map_init(&x->verdict);
        x->verdict_scans = v->scans;
    }
    void **slot = u64map_put(&x->verdict, key_of(k, addr));
    if (*slot == NULL)
        *slot = xcalloc(1, sizeof(struct xverdict));
    struct xverdict *e = *slot;
    e->cls = cls;
    e->indirect = indirect;
}

void xblocks_record(struct xblocks *x, struct ext_store *ext,
                    const struct verdicts *v, const char *line, size_t len,
                    uint64_t nr)
{
    struct slice g[MAX_FIELDS];
    size_t ng = split_fields(line, len, g, MAX_FIELDS);
    switch (g[0].p[1]) {
    case 'b':
        read_begin(x, ext, g, ng, nr);
        break;
    case 'x':
        read_end(x, g, ng);
        break;
    case 'P':
        read_pool(x, line, len, g, ng);
        break;
    default:
        read_verdict(x, v, g, ng);
    }
}

enum leak_class xblocks_class(const struct xblocks *x,
                              const struct verdicts *v, const struct xblock *b,
                              uint64_t *indirect)
{
    *indirect = 0;
    if (v->scans == 0 || b->line > v->scan_line)
        return CLASS_UNKNOWN;
    if (x->verdict_scans != v->scans) /* the last scan found none lost */
        return CLASS_REACHABLE;
    void **slot = u64map_get((struct u64map *)&x->verdict,
                             key_of(b->kind, b->addr));
    const struct xverdict *e = slot ? *slot : NULL;
    if (e == NULL)
        return CLASS_REACHABLE;
    *indirect = e->indirect;
    return e->cls;
}

const char *xblocks_pool_name(const struct xblocks *x, uint32_t id)
{
    void **slot = u64map_get((struct u64map *)&x->pools, id);
    return slot ? *slot : NULL;
}

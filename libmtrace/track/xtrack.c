/* SPDX-License-Identifier: GPL-3.0-or-later */
/* xtrack.c - see xtrack.h. */
#include "track/xtrack.h"
#include "../include/mtrace-format.h"
#include "log/threadlog.h"
#include "log/tracelog.h"
#include "log/xlines.h"
#include "symbols/stacktab.h"
#include "track/forkgate.h"
#include "track/tracer.h"
#include "track/xblocks.h"
#include <stdatomic.h>

static const char *kind_name(uint32_t kind)
{
    return kind == XB_POOL ? MTF_KIND_POOL : MTF_KIND_MMAP;
}

static atomic_uint next_pool = 1;

uint32_t xtrack_pool_create(const char *name)
{
    uint32_t id = atomic_fetch_add(&next_pool, 1);
    char line[XLINE_MAX];
    gate_enter();
    tracelog_record_line(line, xlines_pool(line, MTF_POOL_NEW, id, name),
                         NULL, tracelog_line_tag());
    gate_leave();
    return id;
}

/* Enters the block and writes its "#b" line (inside the gate). */
static void block_begin(uint32_t kind, uintptr_t ptr, uint64_t size,
                        uint32_t pool, struct stack *s)
{
    if (s == NULL)
        return;
    uint32_t tag = tracelog_line_tag();
    struct xblock b = { .addr = ptr, .size = size, .stack = stack_id(s),
                        .tag = tag, .pool = pool, .kind = kind };
    if (xblocks_insert(&b))
        return;
    char line[XLINE_MAX];
    tracelog_record_line(line,
                         xlines_block(line, kind_name(kind), ptr, size,
                                      stack_id(s), pool),
                         s, tag);
}

/* Writes the "#x" line of a block taken out of the table, after its
 * "#b" (inside the gate; the caller hands the buffer over). */
static void block_end(const struct xblock *b)
{
    char line[XLINE_MAX];
    threadlog_settle(b->tag);
    tracelog_record_line(line, xlines_end(line, kind_name(b->kind), b->addr),
                         NULL, tracelog_line_tag());
}

void xtrack_pool_alloc(uint32_t pool, const void *ptr, size_t size,
                       const void *caller)
{
    struct xblock old;
    gate_enter();
    if (xblocks_remove(XB_POOL, (uintptr_t)ptr, &old)) {
        block_end(&old);
        threadlog_flush_mine();
    }
    block_begin(XB_POOL, (uintptr_t)ptr, size, pool, tracer_stack(caller));
    gate_leave();
}

void xtrack_pool_free(uint32_t pool, const void *ptr)
{
    struct xblock b;
    (void)pool; /* a block is named by its address, whichever pool */
    gate_enter();
    if (xblocks_remove(XB_POOL, (uintptr_t)ptr, &b)) {
        block_end(&b);
        threadlog_flush_mine();
    }
    gate_leave();
}

#define TAKE_BATCH 64

void xtrack_pool_destroy(uint32_t pool)
{
    struct xblock b[TAKE_BATCH];
    size_t n;
    gate_enter();
    do {
        n = xblocks_take(XB_POOL, 0, 0, pool, b, TAKE_BATCH);
        for (size_t i = 0; i < n; i++)
            threadlog_settle(b[i].tag);
    } while (n == TAKE_BATCH);
    char line[XLINE_MAX];
    tracelog_record_line(line, xlines_pool(line, MTF_POOL_DESTROY, pool, NULL),
                         NULL, tracelog_line_tag());
    threadlog_flush_mine();
    gate_leave();
}

void xtrack_map(const void *ptr, size_t len, const void *caller)
{
    gate_enter();
    block_begin(XB_MMAP, (uintptr_t)ptr, len, 0, tracer_stack(caller));
    gate_leave();
}

int xtrack_have_maps(void)
{
    return xblocks_count(XB_MMAP) != 0;
}

/* The whole of one mapping (the usual munmap): found by its address,
 * without a walk over the table.  Returns 1 when it was that. */
static int unmap_exact(uintptr_t lo, size_t len)
{
    struct xblock b;
    if (!xblocks_remove(XB_MMAP, lo, &b))
        return 0;
    if (b.size != len) { /* a part of it, or more: the walk does it */
        xblocks_insert(&b);
        return 0;
    }
    block_end(&b);
    return 1;
}

size_t xtrack_unmap(const void *ptr, size_t len)
{
    uintptr_t lo = (uintptr_t)ptr, hi = lo + len;
    struct xblock b[TAKE_BATCH];
    size_t n, ended = 0;
    if (len == 0 || !xtrack_have_maps())
        return 0;
    gate_enter();
    if (unmap_exact(lo, len)) {
        threadlog_flush_mine();
        gate_leave();
        return 1;
    }
    do {
        n = xblocks_take(XB_MMAP, lo, hi, 0, b, TAKE_BATCH);
        ended += n;
        for (size_t i = 0; i < n; i++) {
            block_end(&b[i]);
            struct stack *s = stacktab_by_id(b[i].stack);
            uintptr_t end = b[i].addr + b[i].size;
            if (b[i].addr < lo) /* what stays below the hole */
                block_begin(XB_MMAP, b[i].addr, lo - b[i].addr, 0, s);
            if (end > hi) /* ... and above it */
                block_begin(XB_MMAP, hi, end - hi, 0, s);
        }
    } while (n == TAKE_BATCH);
    threadlog_flush_mine();
    gate_leave();
    return ended;
}

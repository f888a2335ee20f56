/* SPDX-License-Identifier: GPL-3.0-or-later */
/* livemode.c - see livemode.h.  The live table is frozen (every shard
 * locked) and so is the log (every buffer's lock and the log's): no event
 * can slip between the blocks written and the records that follow.  A
 * block's tag marks it written (livetab.h), so a later free writes its
 * "-" (tracer.c) and a later report point does not write it again.
 * GPL-3.0-or-later. */
#include "track/livemode.h"
#include "track/counters.h"
#include "track/livetab.h"
#include "track/offload.h"
#include "track/tracer.h"
#include "log/livelog.h"
#include "log/tracelog.h"
#include "symbols/stacktab.h"

int livemode_on;

/* The blocks' lines go out in the live table's order, each reading its
 * stack, the stack's frames and "@ WHERE " from all over the heap: one
 * cache miss after the other when read as they come.  So the blocks wait
 * their turn in a ring, read ahead: the stack when a block comes in, what
 * the stack points to halfway through, the line when it leaves. */
#define AHEAD 16

struct pending {
    uintptr_t ptr;
    size_t size;
    struct stack *s;
};

struct survivors {
    struct pending ring[AHEAD];
    size_t n; /* blocks come in so far */
};

static void read_ahead(const struct stack *s)
{
    if (s == NULL)
        return;
    __builtin_prefetch(s->head);
    __builtin_prefetch(s->frames);
}

static void put_block(uintptr_t ptr, size_t size, uint32_t stack, void *arg)
{
    struct survivors *b = arg;
    struct stack *s = stacktab_by_id(stack);
    __builtin_prefetch(s);
    if (b->n >= AHEAD / 2)
        read_ahead(b->ring[(b->n - AHEAD / 2) % AHEAD].s);
    struct pending *p = &b->ring[b->n++ % AHEAD];
    if (b->n > AHEAD)
        livelog_put_alloc(p->ptr, p->size, p->s);
    *p = (struct pending){ .ptr = ptr, .size = size, .s = s };
}

/* The blocks still in the ring, in order. */
static void put_rest(struct survivors *b)
{
    size_t first = b->n > AHEAD ? b->n - AHEAD : 0;
    for (size_t i = first; i < b->n; i++) {
        struct pending *p = &b->ring[i % AHEAD];
        livelog_put_alloc(p->ptr, p->size, p->s);
    }
}

/* Not inlined into the scan (scan.c): the ring's copies of block
 * addresses stay in a frame below the scanner's stack pointer, never
 * among its roots. */
__attribute__((noinline)) void livemode_write_locked(void)
{
    if (!livemode_on)
        return;
    struct survivors b = { .n = 0 };
    livetab_each_unwritten(put_block, &b);
    put_rest(&b);
    /* A fork child's log opens on its first line: totals are none. */
    if (b.n == 0 && tracelog_path() == NULL)
        return;
    struct stack_counts c;
    counters_total(&c);
    struct livelog_totals t = {
        .allocs = (uint64_t)c.allocs,
        .alloc_bytes = (uint64_t)c.alloc_bytes,
        .frees = (uint64_t)c.frees,
        .freed_bytes = (uint64_t)c.freed_bytes,
    };
    t.peak_bytes = (uint64_t)tracer_peak_bytes(
        (long)(t.alloc_bytes - t.freed_bytes));
    livelog_put_totals(&t);
}

void livemode_write(void)
{
    offload_drain();
    if (!livemode_on || !tracelog_logging())
        return;
    tracelog_scan_lock();
    livetab_lock_all();
    tracelog_scan_flush();
    livemode_write_locked();
    livetab_unlock_all();
    tracelog_scan_unlock();
}

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
#include "track/tracer.h"
#include "log/livelog.h"
#include "log/tracelog.h"
#include "symbols/stacktab.h"

int livemode_on;

static void put_block(uintptr_t ptr, size_t size, uint32_t stack, void *arg)
{
    livelog_put_alloc(ptr, size, stacktab_by_id(stack));
    ++*(size_t *)arg;
}

static void add_counts(struct stack *s, void *arg)
{
    struct livelog_totals *t = arg;
    struct stack_counts c;
    counters_sum(stack_id(s), &c);
    t->allocs += (uint64_t)c.allocs;
    t->alloc_bytes += (uint64_t)c.alloc_bytes;
    t->frees += (uint64_t)c.frees;
    t->freed_bytes += (uint64_t)c.freed_bytes;
}

void livemode_write_locked(void)
{
    if (!livemode_on)
        return;
    size_t written = 0;
    livetab_each_unwritten(put_block, &written);
    /* A fork child's log opens on its first line: totals are none. */
    if (written == 0 && tracelog_path() == NULL)
        return;
    struct livelog_totals t = { 0 };
    stacktab_each(add_counts, &t);
    t.peak_bytes = (uint64_t)tracer_peak_bytes(
        (long)(t.alloc_bytes - t.freed_bytes));
    livelog_put_totals(&t);
}

void livemode_write(void)
{
    if (!livemode_on || !tracelog_logging())
        return;
    tracelog_scan_lock();
    livetab_lock_all();
    tracelog_scan_flush();
    livemode_write_locked();
    livetab_unlock_all();
    tracelog_scan_unlock();
}

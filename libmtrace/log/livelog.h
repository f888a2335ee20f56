/* SPDX-License-Identifier: GPL-3.0-or-later */
/* livelog.h - the lines of a live log (MEMLEAK_CONFIG=log=live;
 * doc/format.md, "Live logs").  In a live log an allocation, free or
 * realloc writes no line as it happens: the tracer keeps the block in the
 * live table with its stack.  At each report point and scan the blocks
 * still live that the log does not hold yet get their "+" line, exactly
 * as the full log writes it (its "@ WHERE" and the stack records first);
 * the free of such a block later writes its "-" line straight into the
 * shared log, before the real free, so an address handed out again can
 * never appear before its free.  Nothing here calls the loader, malloc
 * or stdio: stacks and frames were resolved when they were interned.
 * GPL-3.0-or-later. */
#ifndef MT_LIVELOG_H
#define MT_LIVELOG_H
#include <stddef.h>
#include <stdint.h>

struct stack;

/* The counts a live log can no longer be summed from: the library's own,
 * written as "#C totals" at each report point. */
struct livelog_totals {
    uint64_t allocs, frees;       /* blocks */
    uint64_t alloc_bytes, freed_bytes;
    uint64_t peak_bytes;          /* live bytes at most, within 64 KiB a thread */
};

/* "[@ WHERE ]+ PTR SIZE sID" of a live block, after the records of its
 * stack.  The log lock is held (tracelog_scan_lock). */
void livelog_put_alloc(uintptr_t ptr, size_t size, struct stack *s);
/* "- PTR sID" of a block whose "+" is in the log, now: takes the log lock. */
void livelog_put_free(const void *ptr, struct stack *s);
/* "#C totals ..." (log lock held). */
void livelog_put_totals(const struct livelog_totals *t);
/* The time records a full log's hand-overs would write ("#t"): every
 * LIVELOG_TICK events of a thread, threadlog_time_tick() writes one when
 * due. */
#define LIVELOG_TICK 1024u

#endif

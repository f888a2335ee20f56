/* SPDX-License-Identifier: GPL-3.0-or-later */
/* xblocks.h - blocks that are not malloc's: a pool's blocks (the
 * memleak_pool_* calls of memleak.h) and anonymous private mappings
 * (MEMLEAK_CONFIG=mmap=1).  Each has an address, a size, its allocation
 * stack and a kind; the reachability scan takes them as blocks like
 * malloc's (scan.c), and their lines are the "#b"/"#x"/"#P" records of
 * doc/format.md (xtrack.h writes them).
 *
 * The table is keyed by kind and address: a pool block may start where
 * the malloc block or mapping it was carved from starts.  It is small
 * and rare (no hot path goes near it): one lock, open addressing, memory
 * from pages_map (never a root).  A block remembers the tag of its "#b"
 * line (threadlog.h), so that its "#x" line follows it in the log.
 * GPL-3.0-or-later. */
#ifndef MT_XBLOCKS_H
#define MT_XBLOCKS_H
#include <stddef.h>
#include <stdint.h>

enum xblock_kind { XB_MALLOC = 0, XB_POOL = 1, XB_MMAP = 2 };

struct xblock {
    uintptr_t addr;   /* 0: an empty slot */
    uint64_t size;
    uint32_t stack;   /* stacktab id */
    uint32_t tag;     /* of its "#b" line */
    uint32_t pool;    /* XB_POOL: the pool's id */
    uint32_t kind;    /* enum xblock_kind */
};

/* Enters a block; returns 0, or -1 when memory ran out (not entered). */
int xblocks_insert(const struct xblock *b);
/* Removes the block of KIND at ADDR into *OUT; returns 1, or 0 when
 * there is none. */
int xblocks_remove(uint32_t kind, uintptr_t addr, struct xblock *out);
/* Removes up to CAP blocks of KIND overlapping [LO, HI) (or, for
 * XB_POOL with POOL nonzero, every block of pool POOL) into OUT and
 * returns how many were removed; call again while it returns CAP. */
size_t xblocks_take(uint32_t kind, uintptr_t lo, uintptr_t hi, uint32_t pool,
                    struct xblock *out, size_t cap);
/* Blocks of KIND in the table (any kind: XB_MALLOC). */
size_t xblocks_count(uint32_t kind);

/* The scan: lock, visit every block, unlock (the scan holds the lock
 * while the world is stopped, after the live table's: debug.h rank
 * XBLOCKS). */
void xblocks_lock(void);
void xblocks_unlock(void);
void xblocks_each(void (*fn)(const struct xblock *b, void *arg), void *arg);

/* In a fork child: the blocks are the parent's; the table is emptied and
 * its lock reset. */
void xblocks_reset_after_fork(void);

#endif

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* liveslab.c - the memory of the live-block table's chunk tables (see
 * livetab.c): small tables are carved from slabs of the shard's own and
 * recycled by size there, under the shard's lock; large ones are mappings
 * of their own.  GPL-3.0-or-later. */
#include "track/liveshard.h"
#include "base/arena.h"
#include <string.h>
#include <sys/mman.h>

static unsigned class_of(size_t slots)
{
    return (unsigned)__builtin_ctzl(slots);
}

/* Faults in the pages of a table carved from a slab: a slot read before it
 * is written would map the zero page, and the write fault a second time
 * (bench/RESULTS.md, 2026-11-25).  A kernel without MADV_POPULATE_WRITE
 * (before 5.14) leaves them to fault. */
static void populate(void *p, size_t bytes)
{
#ifdef MADV_POPULATE_WRITE
    uintptr_t page = 4096, lo = (uintptr_t)p & ~(page - 1);
    uintptr_t hi = ((uintptr_t)p + bytes + page - 1) & ~(page - 1);
    madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
#else
    (void)p;
    (void)bytes;
#endif
}

/* A zeroed table of N slots (a power of two) from the shard's memory;
 * NULL when out of memory. */
static struct slot *table_take(struct shard *sh, size_t n)
{
    size_t bytes = n * sizeof(struct slot);
    unsigned c = class_of(n);
    if (c > CLASSES)
        return pages_map_populated(bytes);
    struct spare_table *spare = sh->spare[c];
    if (spare) {
        sh->spare[c] = spare->next;
        memset(spare, 0, bytes);
        return (struct slot *)spare;
    }
    if ((size_t)(sh->slab_end - sh->slab) < bytes) {
        /* Slabs grow with the shard, so a small program keeps small ones;
         * their pages are faulted in as tables are carved, not before. */
        size_t size = sh->slab_next ? sh->slab_next : SLAB_MIN;
        while (size < bytes)
            size *= 2;
        char *s = pages_map(size);
        if (s == NULL)
            return NULL;
        sh->slab = s;
        sh->slab_end = s + size;
        sh->slab_next = size < SLAB_MAX ? size * 2 : SLAB_MAX;
    }
    struct slot *t = (struct slot *)sh->slab;
    sh->slab += bytes;
    populate(t, bytes);
    return t;
}

struct slot *liveslab_alloc(struct shard *sh, size_t n)
{
    struct slot *t = table_take(sh, n);
    if (t)
        sh->slots += n;
    return t;
}

void liveslab_free(struct shard *sh, struct slot *t, size_t n)
{
    sh->slots -= n;
    unsigned c = class_of(n);
    if (c > CLASSES) {
        pages_unmap(t, n * sizeof *t);
        return;
    }
    struct spare_table *spare = (struct spare_table *)t;
    spare->next = sh->spare[c];
    sh->spare[c] = spare;
}

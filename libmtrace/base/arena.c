/* SPDX-License-Identifier: GPL-3.0-or-later */
/* arena.c - bump allocator over mmap'd chunks (see arena.h).
 */
#include "base/real.h"
#include "base/arena.h"
#include "base/ownmaps.h"
#include "base/spin.h"
#include <string.h>
#include <sys/mman.h>

#define CHUNK_SIZE (1u << 20)

static spinlock_t arena_guard = SPINLOCK_INIT(LOCK_RANK_ARENA);
static char *chunk_next;
static char *chunk_end;

static void *map_with(size_t size, int flags)
{
    void *p = real_mmap(NULL, size, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | flags, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    ownmaps_add(p, size); /* never a root of the reachability scan */
    return p;
}

void *pages_map(size_t size)
{
    return map_with(size, 0);
}

/* Faulted in by the kernel at once, not a page (or two: a read maps the
 * zero page first) at a time under the program.  Not on huge pages: with
 * THP in "madvise" mode a fault in such a region may stall the program in
 * direct compaction on a fragmented machine, a cost a tracer must not
 * add; they saved 5% of the CPU time on `wl live` (bench/RESULTS.md). */
void *pages_map_populated(size_t size)
{
    return map_with(size, MAP_POPULATE);
}

void pages_unmap(void *p, size_t size)
{
    if (p) {
        real_munmap(p, size);
        ownmaps_remove(p, size); /* after: see ownmaps.h */
    }
}

void *arena_alloc(size_t size)
{
    size = (size + 15) & ~(size_t)15;
    if (size > CHUNK_SIZE / 4)
        return pages_map(size);
    spin_lock(&arena_guard);
    if (chunk_next == NULL || (size_t)(chunk_end - chunk_next) < size) {
        char *chunk = pages_map(CHUNK_SIZE);
        if (chunk == NULL) {
            spin_unlock(&arena_guard);
            return NULL;
        }
        chunk_next = chunk;
        chunk_end = chunk + CHUNK_SIZE;
    }
    void *p = chunk_next;
    chunk_next += size;
    spin_unlock(&arena_guard);
    return p;
}

char *arena_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *copy = arena_alloc(n);
    if (copy)
        memcpy(copy, s, n);
    return copy;
}

void arena_lock_for_fork(void)
{
    spin_lock(&arena_guard);
    ownmaps_lock();
}

void arena_unlock_after_fork(void)
{
    ownmaps_unlock();
    spin_unlock(&arena_guard);
}

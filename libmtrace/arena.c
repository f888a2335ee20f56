/* SPDX-License-Identifier: GPL-3.0-or-later */
/* arena.c - bump allocator over mmap'd chunks (see arena.h).
 */
#include "arena.h"
#include "ownmaps.h"
#include "spin.h"
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#define CHUNK_SIZE (1u << 20)

static spinlock_t arena_guard = SPINLOCK_INIT(LOCK_RANK_ARENA);
static char *chunk_next;
static char *chunk_end;

static void *map_with(size_t size, int flags)
{
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
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

#define HUGE_SIZE (2u << 20)
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/* A table of 2 MiB or more on huge pages where the system allows it (THP
 * in "madvise" mode): a table the size of the live blocks is probed at
 * random, and with 4 KiB pages nearly every probe also missed the TLB. */
static void *map_huge(size_t size)
{
    size_t over = size + HUGE_SIZE;
    char *p = mmap(NULL, over, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    uintptr_t up = ((uintptr_t)p + HUGE_SIZE - 1) & ~(uintptr_t)(HUGE_SIZE - 1);
    char *start = (char *)up;
    if (start > p)
        munmap(p, (size_t)(start - p));
    if (start + size < p + over)
        munmap(start + size, (size_t)(p + over - (start + size)));
    madvise(start, size, MADV_HUGEPAGE);
    /* Faulted in at once rather than a page (or two: a read maps the zero
     * page first) at a time under the program. */
    if (madvise(start, size, MADV_POPULATE_WRITE) != 0)
        for (size_t i = 0; i < size; i += 4096)
            start[i] = 0;
    ownmaps_add(start, size);
    return start;
}

void *pages_map_populated(size_t size)
{
    if (size >= HUGE_SIZE)
        return map_huge(size);
    return map_with(size, MAP_POPULATE);
}

void pages_unmap(void *p, size_t size)
{
    if (p) {
        munmap(p, size);
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

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* ownmaps.c - see ownmaps.h.  An unsorted array of ranges under a spin
 * lock: a few thousand entries at most (one per table and arena chunk),
 * changed only when a table grows.  Its own storage comes from mmap
 * directly and is listed in itself. */
#include "base/real.h"
#include "base/ownmaps.h"
#include "base/spin.h"
#include <string.h>
#include <sys/mman.h>

static spinlock_t lock = SPINLOCK_INIT(LOCK_RANK_OWNMAPS);
static struct addr_range *ranges;
static size_t count, cap;

void ownmaps_lock(void)
{
    spin_lock(&lock);
}

void ownmaps_unlock(void)
{
    spin_unlock(&lock);
}

/* Lock held.  Returns 0 when there is no memory left (the range is then
 * not listed: the scan may see it as a root, never the reverse). */
static int grow(void)
{
    size_t new_cap = cap ? cap * 2 : 512;
    size_t bytes = new_cap * sizeof *ranges;
    struct addr_range *n = real_mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                                MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (n == MAP_FAILED)
        return 0;
    struct addr_range *old = ranges;
    size_t old_bytes = cap * sizeof *ranges;
    if (old)
        memcpy(n, old, count * sizeof *ranges);
    ranges = n;
    cap = new_cap;
    ranges[count++] = (struct addr_range){ (uintptr_t)n, (uintptr_t)n + bytes };
    if (old) {
        real_munmap(old, old_bytes);
        for (size_t i = 0; i < count; i++)
            if (ranges[i].lo == (uintptr_t)old) {
                ranges[i] = ranges[--count];
                break;
            }
    }
    return 1;
}

void ownmaps_add(const void *p, size_t size)
{
    if (p == NULL)
        return;
    spin_lock(&lock);
    if (count + 1 < cap || grow())
        ranges[count++] = (struct addr_range){ (uintptr_t)p,
                                               (uintptr_t)p + size };
    spin_unlock(&lock);
}

void ownmaps_remove(const void *p, size_t size)
{
    (void)size;
    spin_lock(&lock);
    for (size_t i = 0; i < count; i++)
        if (ranges[i].lo == (uintptr_t)p) {
            ranges[i] = ranges[--count];
            break;
        }
    spin_unlock(&lock);
}

size_t ownmaps_count(void)
{
    return count;
}

size_t ownmaps_copy(struct addr_range *out, size_t n)
{
    size_t k = count < n ? count : n;
    if (k) /* out may be NULL when only the count is asked for */
        memcpy(out, ranges, k * sizeof *out);
    return k;
}

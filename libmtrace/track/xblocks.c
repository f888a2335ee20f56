/* SPDX-License-Identifier: GPL-3.0-or-later */
/* xblocks.c - the table of blocks that are not malloc's (see xblocks.h):
 * linear probing, at most half full, removal by shifting the run back
 * (no tombstones).  Grows by doubling into a new mapping. */
#include "track/xblocks.h"
#include "base/arena.h"
#include "base/spin.h"
#include <string.h>

#define XB_FIRST_SLOTS 1024u

static spinlock_t xb_lock = SPINLOCK_INIT(LOCK_RANK_XBLOCKS);
static struct xblock *slots;
static size_t nslots, used;
static size_t by_kind[3];

static size_t home(uint32_t kind, uintptr_t addr)
{
    uint64_t h = ((uint64_t)addr ^ ((uint64_t)kind << 61)) *
                 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 32) & (nslots - 1);
}

static size_t find(uint32_t kind, uintptr_t addr)
{
    size_t i = home(kind, addr);
    while (slots[i].addr && (slots[i].addr != addr || slots[i].kind != kind))
        i = (i + 1) & (nslots - 1);
    return i;
}

static int grow(void)
{
    size_t n = nslots ? 2 * nslots : XB_FIRST_SLOTS;
    struct xblock *fresh = pages_map(n * sizeof *fresh), *old = slots;
    size_t nold = nslots;
    if (fresh == NULL)
        return -1;
    slots = fresh;
    nslots = n;
    for (size_t i = 0; i < nold; i++)
        if (old[i].addr)
            slots[find(old[i].kind, old[i].addr)] = old[i];
    if (old)
        pages_unmap(old, nold * sizeof *old);
    return 0;
}

int xblocks_insert(const struct xblock *b)
{
    int ret = 0;
    spin_lock(&xb_lock);
    if ((used + 1) * 2 > nslots && grow())
        ret = -1;
    else {
        size_t i = find(b->kind, b->addr);
        if (slots[i].addr == 0) {
            used++;
            by_kind[b->kind % 3]++;
        }
        slots[i] = *b;
    }
    spin_unlock(&xb_lock);
    return ret;
}

/* Empties slot I, moving later entries of its run back. */
static void vacate(size_t i)
{
    by_kind[slots[i].kind % 3]--;
    used--;
    size_t mask = nslots - 1, j = i;
    for (;;) {
        slots[i].addr = 0;
        for (;;) {
            j = (j + 1) & mask;
            if (slots[j].addr == 0)
                return;
            size_t h = home(slots[j].kind, slots[j].addr);
            /* Stays unless its home lies cyclically in (i, j]. */
            if (i <= j ? (i < h && h <= j) : (i < h || h <= j))
                continue;
            break;
        }
        slots[i] = slots[j];
        i = j;
    }
}

int xblocks_remove(uint32_t kind, uintptr_t addr, struct xblock *out)
{
    int found = 0;
    spin_lock(&xb_lock);
    if (nslots) {
        size_t i = find(kind, addr);
        if (slots[i].addr) {
            *out = slots[i];
            vacate(i);
            found = 1;
        }
    }
    spin_unlock(&xb_lock);
    return found;
}

static int taken(const struct xblock *b, uint32_t kind, uintptr_t lo,
                 uintptr_t hi, uint32_t pool)
{
    if (b->addr == 0 || b->kind != kind)
        return 0;
    if (kind == XB_POOL && pool)
        return b->pool == pool;
    uint64_t extent = b->size ? b->size : 1;
    return b->addr < hi && b->addr + extent > lo;
}

size_t xblocks_take(uint32_t kind, uintptr_t lo, uintptr_t hi, uint32_t pool,
                    struct xblock *out, size_t cap)
{
    size_t n = 0;
    spin_lock(&xb_lock);
    for (size_t i = 0; i < nslots && n < cap && by_kind[kind % 3];) {
        if (taken(&slots[i], kind, lo, hi, pool)) {
            out[n++] = slots[i];
            vacate(i); /* slot I may hold a later entry now */
            continue;
        }
        i++;
    }
    spin_unlock(&xb_lock);
    return n;
}

size_t xblocks_count(uint32_t kind)
{
    return kind == XB_MALLOC ? used : by_kind[kind % 3];
}

void xblocks_lock(void)
{
    spin_lock(&xb_lock);
}

void xblocks_unlock(void)
{
    spin_unlock(&xb_lock);
}

void xblocks_each(void (*fn)(const struct xblock *b, void *arg), void *arg)
{
    for (size_t i = 0; i < nslots; i++)
        if (slots[i].addr)
            fn(&slots[i], arg);
}

void xblocks_reset_after_fork(void)
{
    spin_reset(&xb_lock);
    if (slots)
        memset(slots, 0, nslots * sizeof *slots);
    used = 0;
    memset(by_kind, 0, sizeof by_kind);
}

/* livetab.c - see livetab.h.  Open addressing with linear probing and
 * backward-shift deletion (no tombstones), one table per shard.  Sizes of
 * 4 GiB and more do not fit the 32-bit field and are kept exactly in a
 * small side list.  GPL-3.0-or-later. */
#include "livetab.h"
#include "arena.h"
#include "spin.h"
#include <string.h>

#define SHARDS 64
#define INITIAL_SLOTS 256
#define BIG_SIZE 0xffffffffu

struct slot {
    uintptr_t ptr;     /* 0: empty */
    uint32_t size;     /* BIG_SIZE: see the big list */
    uint32_t stack;
};

/* One cache line each, so two threads on two shards do not share one. */
struct shard {
    spinlock_t lock;
    struct slot *slots;
    size_t mask, count;
} __attribute__((aligned(64)));

struct big_block {
    uintptr_t ptr;
    size_t size;
};

static struct shard shards[SHARDS];
static struct big_block *big;
static size_t big_count, big_cap;
static spinlock_t big_lock = SPINLOCK_INIT;

/* The hash keeps neighbours together: blocks in one 4 KiB page go to one
 * shard and to neighbouring slots (their offset in the page is the low
 * bits), so a program that frees what it allocated in order walks the
 * table instead of missing the cache on every block.  The page number is
 * mixed, so pages spread over shards and over the table. */
#define PAGE_SHIFT 12
#define IN_PAGE_BITS (PAGE_SHIFT - 4)   /* 16-byte granules in a page */

static uint64_t ptr_hash(uintptr_t ptr)
{
    uint64_t page = (ptr >> PAGE_SHIFT) * 0x9e3779b97f4a7c15ull;
    page ^= page >> 29;
    uint64_t granule = (ptr >> 4) & ((1u << IN_PAGE_BITS) - 1);
    /* XOR with bits of the page's hash: blocks at the same offset in
     * different pages (page-aligned blocks) must not share low bits; an
     * aligned group of 4 granules (one cache line of slots) stays together. */
    return (page << IN_PAGE_BITS) | (granule ^ (page & ((1u << IN_PAGE_BITS) - 1)));
}

/* The top bits: the slot index within the shard takes the low ones. */
static struct shard *shard_of(uint64_t hash)
{
    return &shards[hash >> 58];
}

static void big_put(uintptr_t ptr, size_t size)
{
    spin_lock(&big_lock);
    if (big_count == big_cap) {
        size_t cap = big_cap ? big_cap * 2 : 256;
        struct big_block *n = pages_map(cap * sizeof *n);
        if (n == NULL) {
            spin_unlock(&big_lock);
            return;
        }
        if (big)
            memcpy(n, big, big_count * sizeof *n);
        pages_unmap(big, big_cap * sizeof *big);
        big = n;
        big_cap = cap;
    }
    big[big_count++] = (struct big_block){ ptr, size };
    spin_unlock(&big_lock);
}

static size_t big_take(uintptr_t ptr)
{
    size_t size = BIG_SIZE;
    spin_lock(&big_lock);
    for (size_t i = 0; i < big_count; i++)
        if (big[i].ptr == ptr) {
            size = big[i].size;
            big[i] = big[--big_count];
            break;
        }
    spin_unlock(&big_lock);
    return size;
}

static size_t big_peek(uintptr_t ptr)
{
    size_t size = BIG_SIZE;
    for (size_t i = 0; i < big_count; i++)
        if (big[i].ptr == ptr)
            size = big[i].size;
    return size;
}

static void place(struct slot *slots, size_t mask, struct slot s)
{
    size_t i = ptr_hash(s.ptr) & mask;
    while (slots[i].ptr)
        i = (i + 1) & mask;
    slots[i] = s;
}

/* Doubles the shard's table; returns 0 when out of memory. */
static int grow(struct shard *sh)
{
    size_t n = sh->slots ? (sh->mask + 1) * 2 : INITIAL_SLOTS;
    struct slot *slots = pages_map(n * sizeof *slots);
    if (slots == NULL)
        return 0;
    if (sh->slots) {
        for (size_t i = 0; i <= sh->mask; i++)
            if (sh->slots[i].ptr)
                place(slots, n - 1, sh->slots[i]);
        pages_unmap(sh->slots, (sh->mask + 1) * sizeof *slots);
    }
    sh->slots = slots;
    sh->mask = n - 1;
    return 1;
}

void livetab_prefetch(uintptr_t ptr)
{
    uint64_t h = ptr_hash(ptr);
    struct shard *sh = shard_of(h);
    /* Unlocked and possibly stale: a prefetch never faults. */
    struct slot *slots = sh->slots;
    if (slots)
        __builtin_prefetch(&slots[h & sh->mask], 1);
}

void livetab_insert(uintptr_t ptr, size_t size, uint32_t stack)
{
    uint64_t h = ptr_hash(ptr);
    struct shard *sh = shard_of(h);
    struct slot s = { ptr, size >= BIG_SIZE ? BIG_SIZE : (uint32_t)size, stack };
    int replaced_big = 0;
    spin_lock(&sh->lock);
    if ((sh->slots == NULL || (sh->count + 1) * 4 > (sh->mask + 1) * 3) &&
        !grow(sh)) {
        spin_unlock(&sh->lock);
        return;
    }
    size_t i = h & sh->mask;
    while (sh->slots[i].ptr && sh->slots[i].ptr != ptr)
        i = (i + 1) & sh->mask;
    if (sh->slots[i].ptr == 0)
        sh->count++;
    else
        replaced_big = sh->slots[i].size == BIG_SIZE;
    sh->slots[i] = s;
    spin_unlock(&sh->lock);
    /* The side list holds exactly the big blocks that are in the table. */
    if (replaced_big)
        big_take(ptr);
    if (s.size == BIG_SIZE)
        big_put(ptr, size);
}

/* Backward-shift deletion: moves later members of the probe run into the
 * hole so that lookups never need tombstones. */
static void delete_at(struct shard *sh, size_t hole)
{
    size_t i = hole;
    for (;;) {
        i = (i + 1) & sh->mask;
        if (sh->slots[i].ptr == 0)
            break;
        size_t home = ptr_hash(sh->slots[i].ptr) & sh->mask;
        /* Move it when its home is not in (hole, i] cyclically. */
        if (((i - home) & sh->mask) >= ((i - hole) & sh->mask)) {
            sh->slots[hole] = sh->slots[i];
            hole = i;
        }
    }
    sh->slots[hole].ptr = 0;
    sh->count--;
}

int livetab_remove(uintptr_t ptr, size_t *size, uint32_t *stack)
{
    uint64_t h = ptr_hash(ptr);
    struct shard *sh = shard_of(h);
    int found = 0;
    uint32_t small = 0;
    spin_lock(&sh->lock);
    if (sh->slots) {
        for (size_t i = h & sh->mask; sh->slots[i].ptr; i = (i + 1) & sh->mask)
            if (sh->slots[i].ptr == ptr) {
                small = sh->slots[i].size;
                *stack = sh->slots[i].stack;
                delete_at(sh, i);
                found = 1;
                break;
            }
    }
    spin_unlock(&sh->lock);
    if (found)
        *size = small == BIG_SIZE ? big_take(ptr) : small;
    return found;
}

size_t livetab_count(void)
{
    size_t n = 0;
    for (int i = 0; i < SHARDS; i++)
        n += shards[i].count;
    return n;
}

void livetab_each(void (*fn)(uintptr_t, size_t, uint32_t, void *), void *arg)
{
    for (int s = 0; s < SHARDS; s++) {
        struct shard *sh = &shards[s];
        if (sh->slots == NULL)
            continue;
        for (size_t i = 0; i <= sh->mask; i++) {
            struct slot *e = &sh->slots[i];
            if (e->ptr)
                fn(e->ptr, e->size == BIG_SIZE ? big_peek(e->ptr) : e->size,
                   e->stack, arg);
        }
    }
}

void livetab_lock_all(void)
{
    for (int i = 0; i < SHARDS; i++)
        spin_lock(&shards[i].lock);
    spin_lock(&big_lock);
}

void livetab_unlock_all(void)
{
    spin_unlock(&big_lock);
    for (int i = SHARDS - 1; i >= 0; i--)
        spin_unlock(&shards[i].lock);
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* livetab.c - see livetab.h.  Open addressing with linear probing and
 * backward-shift deletion, one table per shard.
 *
 * A slot's first word is the address (48 bits: x86-64 user space), the
 * tag of the line that entered it (threadlog.h, 15 bits) and a "freed"
 * bit.  Freed entries are ordinary members of their probe runs: they are
 * dropped when their line is out, at the next rebuild of the shard.
 * Sizes of 4 GiB and more do not fit the 32-bit field and are kept exactly
 * in a small side list, which also holds the (in practice unseen) blocks
 * above 48 bits of address, whole.  GPL-3.0-or-later. */
#include "livetab.h"
#include "arena.h"
#include "spin.h"
#include "threadlog.h"
#include <string.h>

/* Shards come in groups, one group per 64 MiB region of addresses: each
 * of glibc's per-thread arenas is such a region, so threads that free what
 * they allocated stay on shards of their own and do not pull each other's
 * locks and table pointers from one core to the other on every event.
 * Eight shards a group: threads sharing an arena are few, and fewer,
 * larger tables were faster on `wl live` (bench/RESULTS.md). */
#define REGION_SHIFT 26
#define GROUPS 16
#define SHARDS_PER_GROUP 8
#define SHARDS (GROUPS * SHARDS_PER_GROUP)
#define INITIAL_SLOTS 256
/* A shard's table of more slots than this (512 KiB) no longer stays in
 * the cache beside the others: from then on events prefetch. */
#define BIG_TABLE_SLOTS (1u << 15)
#define BIG_SIZE 0xffffffffu

#define ADDR_BITS 48
#define ADDR_MASK ((1ull << ADDR_BITS) - 1)
#define FREED_BIT (1ull << 63)

_Static_assert(ADDR_BITS + TAG_BITS < 64, "a slot's word holds addr, tag, bit");

struct slot {
    uint64_t word; /* 0: empty; else address | tag | FREED_BIT */
    uint32_t size; /* BIG_SIZE: see the side list */
    uint32_t stack;
};

/* One cache line each, so two threads on two shards do not share one. */
struct shard {
    spinlock_t lock;
    struct slot *slots;
    size_t mask;
    size_t count; /* live entries */
    size_t freed; /* freed entries */
} __attribute__((aligned(64)));

/* A side entry: a big block's exact size (its slot says BIG_SIZE), or a
 * far block (address above 48 bits) with all it has. */
struct side_block {
    uintptr_t ptr;
    size_t size;
    uint32_t stack, tag;
};

static struct shard shards[SHARDS] = {
    [0 ... SHARDS - 1] = { .lock = SPINLOCK_INIT(LOCK_RANK_LIVE) }
};
static struct side_block *side;
static size_t side_count, side_cap, far_count;
static spinlock_t side_lock = SPINLOCK_INIT(LOCK_RANK_SIDE);
int livetab_tables_big;

static uintptr_t addr_of(uint64_t word)
{
    return (uintptr_t)(word & ADDR_MASK);
}

static uint32_t tag_of(uint64_t word)
{
    return (uint32_t)(word >> ADDR_BITS) & ((1u << TAG_BITS) - 1);
}

static int is_freed(uint64_t word)
{
    return (word & FREED_BIT) != 0;
}

static uint64_t make_word(uintptr_t ptr, uint32_t tag, int freed)
{
    return (uint64_t)ptr | (uint64_t)tag << ADDR_BITS | (freed ? FREED_BIT : 0);
}

static int is_far(uintptr_t ptr)
{
    return ptr > ADDR_MASK;
}

/* The hash keeps neighbours together: blocks in one 256-byte stretch of
 * the heap go to one shard and to neighbouring slots (16 slots, 4 cache
 * lines), so a program that frees what it allocated in order walks the
 * table instead of missing the cache on every block.  The stretch number
 * is mixed, so stretches spread over the shards of a group and over the
 * table.  Stretches, not 4 KiB pages: stretches hashed to the same slots
 * share them, and with whole pages (256 slots each, a third to all of
 * them taken by one page of small blocks) such overlaps made probe runs
 * of hundreds of slots.  Smaller stretches lose more to cache misses than
 * they gain (bench/RESULTS.md and the commit history have the figures). */
#define STRETCH_SHIFT 8
#define IN_STRETCH_BITS (STRETCH_SHIFT - 4) /* 16-byte granules in a stretch */

static uint64_t ptr_hash(uintptr_t ptr)
{
    uint64_t stretch = (ptr >> STRETCH_SHIFT) * 0x9e3779b97f4a7c15ull;
    stretch ^= stretch >> 29;
    uint64_t granule = (ptr >> 4) & ((1u << IN_STRETCH_BITS) - 1);
    /* XOR with bits of the stretch's hash: blocks at the same offset in
     * different stretches (aligned blocks) must not share low bits; an
     * aligned group of 4 granules (one cache line of slots) stays together. */
    return (stretch << IN_STRETCH_BITS) |
           (granule ^ (stretch & ((1u << IN_STRETCH_BITS) - 1)));
}

/* The region's group, and in it the top bits of the hash: the slot index
 * within the shard takes the low ones. */
static struct shard *shard_of(uintptr_t ptr, uint64_t hash)
{
    uint64_t region = (ptr >> REGION_SHIFT) * 0x9e3779b97f4a7c15ull;
    unsigned group = (unsigned)(region >> 60) % GROUPS;
    return &shards[group * SHARDS_PER_GROUP + (hash >> 59) % SHARDS_PER_GROUP];
}

/* ---- the side list ------------------------------------------------------ */

static void side_put(struct side_block b)
{
    spin_lock(&side_lock);
    if (side_count == side_cap) {
        size_t cap = side_cap ? side_cap * 2 : 256;
        struct side_block *n = pages_map(cap * sizeof *n);
        if (n == NULL) {
            spin_unlock(&side_lock);
            return;
        }
        if (side)
            memcpy(n, side, side_count * sizeof *n);
        pages_unmap(side, side_cap * sizeof *side);
        side = n;
        side_cap = cap;
    }
    side[side_count++] = b;
    if (is_far(b.ptr))
        far_count++;
    spin_unlock(&side_lock);
}

/* Takes PTR's entry out into *OUT; returns 0 when there is none. */
static int side_take(uintptr_t ptr, struct side_block *out)
{
    int found = 0;
    spin_lock(&side_lock);
    for (size_t i = 0; i < side_count; i++)
        if (side[i].ptr == ptr) {
            *out = side[i];
            side[i] = side[--side_count];
            if (is_far(ptr))
                far_count--;
            found = 1;
            break;
        }
    spin_unlock(&side_lock);
    return found;
}

/* Takes a big block out of the side list; its exact size. */
static size_t big_take(uintptr_t ptr)
{
    struct side_block b;
    return side_take(ptr, &b) ? b.size : BIG_SIZE;
}

static size_t side_peek_size(uintptr_t ptr)
{
    for (size_t i = 0; i < side_count; i++)
        if (side[i].ptr == ptr)
            return side[i].size;
    return BIG_SIZE;
}

/* ---- the shards ----------------------------------------------------------- */

static void place(struct slot *slots, size_t mask, struct slot s)
{
    size_t i = ptr_hash(addr_of(s.word)) & mask;
    while (slots[i].word)
        i = (i + 1) & mask;
    slots[i] = s;
}

/* A freed entry is kept while its line may still be in a thread's buffer. */
static int keep(const struct slot *s)
{
    return s->word &&
           (!is_freed(s->word) || threadlog_pending(tag_of(s->word)));
}

/* Rebuilds the shard's table without the freed entries that are no longer
 * needed, twice as large when it would still be over half full.  Returns
 * 0 when out of memory. */
static int rebuild(struct shard *sh)
{
    size_t old_n = sh->slots ? sh->mask + 1 : 0, kept = 0;
    for (size_t i = 0; i < old_n; i++)
        kept += keep(&sh->slots[i]);
    size_t n = old_n == 0               ? INITIAL_SLOTS
               : (kept + 1) * 2 > old_n ? old_n * 2
                                        : old_n;
    /* Populated: a slot read before it is written maps the zero page, and
     * the write faults a second time (bench/RESULTS.md, 2026-11-25). */
    struct slot *slots = pages_map_populated(n * sizeof *slots);
    if (slots == NULL)
        return 0;
    for (size_t i = 0; i < old_n; i++)
        if (keep(&sh->slots[i]))
            place(slots, n - 1, sh->slots[i]);
    if (sh->slots)
        pages_unmap(sh->slots, old_n * sizeof *slots);
    sh->slots = slots;
    sh->mask = n - 1;
    if (n > BIG_TABLE_SLOTS)
        __atomic_store_n(&livetab_tables_big, 1, __ATOMIC_RELAXED);
    sh->freed = kept - sh->count;
    return 1;
}

static int has_room(const struct shard *sh)
{
    return sh->slots && (sh->count + sh->freed + 1) * 4 <= (sh->mask + 1) * 3;
}

/* A prefetch the compiler must keep.  A function that only prefetches
 * looks free of side effects to GCC's interprocedural analysis: with
 * link-time optimisation it deleted the calls below altogether (wl live
 * 15% slower).  A volatile asm is a side effect. */
static inline void prefetch_for_write(const void *p)
{
#if defined(__x86_64__)
    __asm__ volatile("prefetcht0 %0" : : "m"(*(const char *)p));
#else
    __asm__ volatile("" : : "r"(p));
    __builtin_prefetch(p, 1);
#endif
}

/* The table holding PTR and PTR's home index in it, unlocked and possibly
 * stale: only for prefetches, which never fault.  NULL before the shard's
 * first table. */
static struct slot *home_unlocked(uintptr_t ptr, size_t *home)
{
    uint64_t h = ptr_hash(ptr);
    struct shard *sh = shard_of(ptr, h);
    struct slot *slots = sh->slots;
    *home = h & sh->mask;
    return slots;
}

void livetab_prefetch(uintptr_t ptr)
{
    size_t i;
    struct slot *slots = home_unlocked(ptr, &i);
    if (slots)
        prefetch_for_write(&slots[i]);
}

/* All cache lines of the next stretch's slots: blocks allocated in order
 * land in each of them, and prefetching only the first line left three
 * misses of four. */
void livetab_prefetch_next(uintptr_t ptr)
{
    enum { STRETCH_SLOTS = 1 << IN_STRETCH_BITS, LINE_SLOTS = 64 / 16 };
    _Static_assert(sizeof(struct slot) == 16, "four slots a cache line");
    _Static_assert(STRETCH_SLOTS == 4 * LINE_SLOTS, "four lines a stretch");
    size_t i;
    struct slot *slots = home_unlocked(ptr + (1u << STRETCH_SHIFT), &i);
    if (slots == NULL)
        return;
    /* Spelled out: GCC kept a loop here, ten instructions an event more. */
    struct slot *line = &slots[i & ~(size_t)(STRETCH_SLOTS - 1)];
    prefetch_for_write(line);
    prefetch_for_write(line + LINE_SLOTS);
    prefetch_for_write(line + 2 * LINE_SLOTS);
    prefetch_for_write(line + 3 * LINE_SLOTS);
}

/* Backward-shift deletion: moves later members of the probe run into the
 * hole so that lookups never need markers for empty slots. */
static void delete_at(struct shard *sh, size_t hole)
{
    size_t i = hole;
    for (;;) {
        i = (i + 1) & sh->mask;
        if (sh->slots[i].word == 0)
            break;
        size_t home = ptr_hash(addr_of(sh->slots[i].word)) & sh->mask;
        /* Move it when its home is not in (hole, i] cyclically. */
        if (((i - home) & sh->mask) >= ((i - hole) & sh->mask)) {
            sh->slots[hole] = sh->slots[i];
            hole = i;
        }
    }
    sh->slots[hole].word = 0;
}

/* The slot holding PTR (live or freed), else the empty slot ending its
 * probe run.  Shard locked, table present. */
static size_t find(const struct shard *sh, uint64_t hash, uintptr_t ptr)
{
    size_t i = hash & sh->mask;
    while (sh->slots[i].word && addr_of(sh->slots[i].word) != ptr)
        i = (i + 1) & sh->mask;
    return i;
}

uint32_t livetab_insert_tagged(uintptr_t ptr, size_t size, uint32_t stack,
                               uint32_t tag)
{
    struct side_block old;
    if (is_far(ptr)) {
        side_take(ptr, &old); /* a block whose free we never saw */
        side_put((struct side_block){ ptr, size, stack, tag });
        return 0;
    }
    uint64_t h = ptr_hash(ptr);
    struct shard *sh = shard_of(ptr, h);
    int big = size >= BIG_SIZE, replaced_big = 0;
    uint32_t freed_tag = 0;
    int taken = spin_lock_hot(&sh->lock);
    if (!has_room(sh) && !rebuild(sh)) {
        spin_unlock_hot(&sh->lock, taken);
        return 0;
    }
    size_t i = find(sh, h, ptr);
    uint64_t w = sh->slots[i].word;
    if (w == 0) {
        sh->count++;
    } else if (is_freed(w)) {
        freed_tag = tag_of(w);
        sh->freed--;
        sh->count++;
    } else {
        replaced_big = sh->slots[i].size == BIG_SIZE;
    }
    sh->slots[i] = (struct slot){ make_word(ptr, tag, 0),
                                  big ? BIG_SIZE : (uint32_t)size, stack };
    spin_unlock_hot(&sh->lock, taken);
    /* The side list holds exactly the big blocks that are in the table. */
    if (replaced_big)
        big_take(ptr);
    if (big)
        side_put((struct side_block){ ptr, size, 0, 0 });
    return freed_tag;
}

void livetab_insert(uintptr_t ptr, size_t size, uint32_t stack)
{
    livetab_insert_tagged(ptr, size, stack, 0);
}

static int remove_far(uintptr_t ptr, size_t *size, uint32_t *stack,
                      uint32_t *alloc_tag)
{
    struct side_block b;
    if (!side_take(ptr, &b))
        return LIVE_ABSENT;
    *size = b.size;
    *stack = b.stack;
    *alloc_tag = b.tag;
    return LIVE_FOUND_UNMARKED;
}

int livetab_remove_at(uintptr_t ptr, size_t *size, uint32_t *stack,
                      uint32_t *alloc_tag, uint32_t free_tag,
                      struct livetab_spot *spot)
{
    spot->shard = NULL;
    if (is_far(ptr))
        return remove_far(ptr, size, stack, alloc_tag);
    uint64_t h = ptr_hash(ptr);
    struct shard *sh = shard_of(ptr, h);
    int found = 0;
    uint32_t small = 0;
    int taken = spin_lock_hot(&sh->lock);
    if (sh->slots) {
        size_t i = find(sh, h, ptr);
        struct slot *s = &sh->slots[i];
        if (s->word && !is_freed(s->word)) {
            found = 1;
            small = s->size;
            *stack = s->stack;
            *alloc_tag = tag_of(s->word);
            sh->count--;
            if (free_tag) {
                *s = (struct slot){ make_word(ptr, free_tag, 1), 0, 0 };
                sh->freed++;
                *spot = (struct livetab_spot){ sh, sh->slots, i, s->word };
            } else {
                delete_at(sh, i);
            }
        }
    }
    spin_unlock_hot(&sh->lock, taken);
    if (!found)
        return LIVE_ABSENT;
    *size = small == BIG_SIZE ? big_take(ptr) : small;
    return LIVE_FOUND;
}

int livetab_remove_tagged(uintptr_t ptr, size_t *size, uint32_t *stack,
                          uint32_t *alloc_tag, uint32_t free_tag)
{
    struct livetab_spot spot;
    return livetab_remove_at(ptr, size, stack, alloc_tag, free_tag, &spot);
}

uint32_t livetab_reinsert(const struct livetab_spot *spot, uintptr_t ptr,
                          size_t size, uint32_t stack, uint32_t tag)
{
    struct shard *sh = spot->shard;
    if (sh == NULL || size >= BIG_SIZE)
        return livetab_insert_tagged(ptr, size, stack, tag);
    int taken = spin_lock_hot(&sh->lock);
    /* Untouched since: the same table (no rebuild), the same entry (no
     * other thread's insert, no shift of a deletion). */
    struct slot *s = &sh->slots[spot->index];
    if (sh->slots != spot->table || s->word != spot->word) {
        spin_unlock_hot(&sh->lock, taken);
        return livetab_insert_tagged(ptr, size, stack, tag);
    }
    *s = (struct slot){ make_word(ptr, tag, 0), (uint32_t)size, stack };
    sh->freed--;
    sh->count++;
    spin_unlock_hot(&sh->lock, taken);
    return tag_of(spot->word);
}

int livetab_remove(uintptr_t ptr, size_t *size, uint32_t *stack)
{
    uint32_t tag;
    return livetab_remove_tagged(ptr, size, stack, &tag, 0) != LIVE_ABSENT;
}

size_t livetab_count(void)
{
    size_t n = far_count;
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
            if (e->word == 0 || is_freed(e->word))
                continue;
            uintptr_t ptr = addr_of(e->word);
            fn(ptr, e->size == BIG_SIZE ? side_peek_size(ptr) : e->size,
               e->stack, arg);
        }
    }
    for (size_t i = 0; i < side_count; i++)
        if (is_far(side[i].ptr))
            fn(side[i].ptr, side[i].size, side[i].stack, arg);
}

void livetab_disown_all(void)
{
    for (int s = 0; s < SHARDS; s++) {
        struct shard *sh = &shards[s];
        for (size_t i = 0; sh->slots && i <= sh->mask; i++)
            if (sh->slots[i].word && !is_freed(sh->slots[i].word))
                sh->slots[i].stack = LIVE_STACK_INHERITED;
    }
    for (size_t i = 0; i < side_count; i++)
        side[i].stack = LIVE_STACK_INHERITED;
}

/* Every shard at once: one rank for them all (debug.h). */
void livetab_lock_all(void)
{
    LOCK_RANK_TAKE(LOCK_RANK_LIVE);
    for (int i = 0; i < SHARDS; i++)
        spin_lock_unranked(&shards[i].lock);
    spin_lock(&side_lock);
}

void livetab_unlock_all(void)
{
    spin_unlock(&side_lock);
    for (int i = SHARDS - 1; i >= 0; i--)
        spin_unlock_unranked(&shards[i].lock);
    LOCK_RANK_DROP(LOCK_RANK_LIVE);
}

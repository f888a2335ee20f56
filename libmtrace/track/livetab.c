/* SPDX-License-Identifier: GPL-3.0-or-later */
/* livetab.c - see livetab.h.  One small open-addressing table per 64 KiB
 * of heap ("chunk"), found through its shard's directory; linear probing
 * and backward-shift deletion inside each.
 *
 * Why per chunk: a program allocates and frees neighbours, and one big
 * table per shard scattered neighbouring stretches of the heap over tens
 * of megabytes, a cache and TLB miss every few blocks (27% of `wl live`'s
 * samples, bench/RESULTS.md).  A chunk's table is at most 64 KiB for
 * glibc's smallest blocks, so while the program works in a stretch of
 * heap its table stays in the cache, and growing it rehashes kilobytes,
 * not megabytes.
 *
 * A slot's first word is the address (48 bits: x86-64 user space), the
 * tag of the line that entered it (threadlog.h, 15 bits) and a "freed"
 * bit.  Freed entries are ordinary members of their probe runs: they are
 * dropped when their line is out, at the next rebuild of the chunk's
 * table.  Sizes of 4 GiB and more do not fit the 32-bit field and are
 * kept exactly in a small side list, which also holds the (in practice
 * unseen) blocks above 48 bits of address, whole.  GPL-3.0-or-later. */
#include "track/livetab.h"
#include "track/liveshard.h"
#include "base/arena.h"
#include "base/spin.h"
#include "log/threadlog.h"
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>

/* The shards, chunks and slots: liveshard.h; their memory: liveslab.c. */

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

/* A slot's home in its chunk's table: Fibonacci hashing of the 16-byte
 * granule, the top bits of its product with 2^64 / phi.  Blocks spaced
 * evenly (an arena's run of equal blocks: 48 bytes apart for malloc(32))
 * then land evenly over the table, almost never on one another (the
 * three-distance theorem).  Neighbours are scattered over the table:
 * while the program works in a chunk its table is in the cache anyway,
 * and for a table gone cold the frees prefetch (prefetch_ahead). */
static size_t home_of(const struct chunk *c, uintptr_t ptr)
{
    return (size_t)(((ptr >> 4) * 0x9e3779b97f4a7c15ull) >> c->shift);
}

static uint64_t key_hash(uintptr_t key)
{
    uint64_t h = key * 0x9e3779b97f4a7c15ull;
    return h ^ h >> 29;
}

/* The region's group, and in it the chunk's number modulo 8: neighbouring
 * chunks (up to 512 KiB of heap) are on different shards, so that a
 * program working across a few of them does not make one shard switch
 * between their tables on every event. */
static struct shard *shard_of(uintptr_t ptr)
{
    uint64_t region = (ptr >> REGION_SHIFT) * 0x9e3779b97f4a7c15ull;
    unsigned group = (unsigned)(region >> 60) % GROUPS;
    return &shards[group * SHARDS_PER_GROUP +
                   (ptr >> CHUNK_SHIFT) % SHARDS_PER_GROUP];
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
/* PTR's side entry, or NULL.  side_lock held. */
static struct side_block *side_find(uintptr_t ptr)
{
    for (size_t i = 0; i < side_count; i++)
        if (side[i].ptr == ptr)
            return &side[i];
    return NULL;
}

static int side_take(uintptr_t ptr, struct side_block *out)
{
    spin_lock(&side_lock);
    struct side_block *b = side_find(ptr);
    if (b) {
        *out = *b;
        *b = side[--side_count];
        if (is_far(ptr))
            far_count--;
    }
    spin_unlock(&side_lock);
    return b != NULL;
}

/* Takes a big block out of the side list; its exact size. */
static size_t big_take(uintptr_t ptr)
{
    struct side_block b;
    return side_take(ptr, &b) ? b.size : BIG_SIZE;
}

static size_t side_peek_size(uintptr_t ptr)
{
    const struct side_block *b = side_find(ptr);
    return b ? b->size : BIG_SIZE;
}


/* ---- a chunk's table -------------------------------------------------------- */

/* Slots of C's table less one (a power of two less one). */
static size_t mask_of(const struct chunk *c)
{
    return ~(size_t)0 >> c->shift;
}

static void place(struct chunk *c, struct slot s)
{
    size_t i = home_of(c, addr_of(s.word)), mask = mask_of(c);
    while (c->slots[i].word)
        i = (i + 1) & mask;
    c->slots[i] = s;
}

/* Whether a table of N slots is kept at most 3/8 full (SPARSE_SLOTS). */
static int sparse(const struct shard *sh, size_t n)
{
    return n <= SPARSE_SLOTS && sh->slots <= SPARSE_SHARD_SLOTS;
}

/* Entries, live and freed, that a table of N slots may hold. */
static size_t limit_of(const struct shard *sh, size_t n)
{
    return sparse(sh, n) ? n * 3 / 8 : n * 3 / 4;
}

/* C's table becomes SLOTS, of N slots; how full it may get is decided
 * now, so that an insert compares two numbers of the chunk's own. */
static void set_size(const struct shard *sh, struct chunk *c,
                     struct slot *slots, size_t n)
{
    c->slots = slots;
    c->shift = (uint32_t)(64 - __builtin_ctzl(n));
    c->limit = (uint32_t)limit_of(sh, n);
}

/* A freed entry is kept while its line may still be in a thread's buffer. */
static int keep(const struct slot *s)
{
    return s->word &&
           (!is_freed(s->word) || threadlog_pending(tag_of(s->word)));
}

/* Rebuilds C's table without the freed entries that are no longer needed,
 * twice as large when it would still be over half full.  Returns 0 when
 * out of memory. */
static __attribute__((noinline)) int table_rebuild(struct shard *sh,
                                                    struct chunk *c)
{
    size_t old_n = mask_of(c) + 1, kept = 0;
    for (size_t i = 0; i < old_n; i++)
        kept += keep(&c->slots[i]);
    size_t n = old_n;
    while ((kept + 1) * 2 > n || (sparse(sh, n) && (kept + 1) * 4 > n))
        n *= 2;
    struct slot *slots = liveslab_alloc(sh, n), *old = c->slots;
    if (slots == NULL)
        return 0;
    set_size(sh, c, slots, n);
    /* Counted again: another thread's buffer may have gone out since. */
    kept = 0;
    for (size_t i = 0; i < old_n; i++)
        if (keep(&old[i])) {
            place(c, old[i]);
            kept++;
        }
    liveslab_free(sh, old, old_n);
    c->freed = (uint32_t)(kept - c->count);
    return 1;
}

static int has_room(const struct chunk *c)
{
    return (size_t)c->count + c->freed + 1 <= c->limit;
}

/* Backward-shift deletion: moves later members of the probe run into the
 * hole so that lookups never need markers for empty slots. */
static void delete_at(struct chunk *c, size_t hole)
{
    size_t i = hole, mask = mask_of(c);
    for (;;) {
        i = (i + 1) & mask;
        if (c->slots[i].word == 0)
            break;
        size_t home = home_of(c, addr_of(c->slots[i].word));
        /* Move it when its home is not in (hole, i] cyclically. */
        if (((i - home) & mask) >= ((i - hole) & mask)) {
            c->slots[hole] = c->slots[i];
            hole = i;
        }
    }
    c->slots[hole].word = 0;
}

/* The slot holding PTR (live or freed), else the empty slot ending its
 * probe run. */
static size_t find(const struct chunk *c, uintptr_t ptr)
{
    size_t i = home_of(c, ptr), mask = mask_of(c);
    while (c->slots[i].word && addr_of(c->slots[i].word) != ptr)
        i = (i + 1) & mask;
    return i;
}

/* A prefetch the compiler must keep.  A function that only prefetches
 * looks free of side effects to GCC's interprocedural analysis: with
 * link-time optimisation it deleted such calls altogether (wl live 15%
 * slower).  A volatile asm is a side effect. */
static inline void prefetch_for_write(const void *p)
{
#if defined(__x86_64__)
    __asm__ volatile("prefetcht0 %0" : : "m"(*(const char *)p));
#else
    __asm__ volatile("" : : "r"(p));
    __builtin_prefetch(p, 1);
#endif
}

/* Frees in the order of allocation (a list or an array of blocks torn
 * down) walk a chunk's table at random, cold when the chunk was filled
 * long ago: when a free follows the block freed before it in the heap,
 * the slot of the block four further on starts loading, time enough for
 * memory.  Only then: a prefetch for frees in no order costs more than it
 * saves (5% on bench/wl pairs), and tables small enough for the cache
 * need none.  Blocks are laid out as glibc does, each SIZE rounded up
 * with its 8-byte header. */
static void prefetch_ahead(struct shard *sh, const struct chunk *c,
                           uintptr_t ptr, size_t size)
{
    size_t step = (size + sizeof(size_t) + 15) & ~(size_t)15;
    step = step < 32 ? 32 : step;
    int in_order = ptr == sh->next_free;
    sh->next_free = ptr + step;
    uintptr_t ahead = ptr + 4 * step;
    if (in_order && mask_of(c) >= BIG_TABLE_SLOTS - 1 &&
        ahead >> CHUNK_SHIFT == ptr >> CHUNK_SHIFT)
        prefetch_for_write(&c->slots[home_of(c, ahead)]);
}

/* ---- a shard's directory of chunks ----------------------------------------- */

/* The smallest table that holds N entries by has_room's rule. */
static size_t size_for(const struct shard *sh, size_t n)
{
    size_t size = TABLE_INITIAL;
    while (n + 1 > limit_of(sh, size))
        size *= 2;
    return size;
}

/* Writes the checked-out chunk back to its directory entry, and takes the
 * size its live blocks need as the shard's hint. */
static void checkin(struct shard *sh)
{
    if (sh->cur_home) {
        sh->hint = size_for(sh, sh->cur.count);
        *sh->cur_home = sh->cur;
        sh->cur_home = NULL;
    }
}

static struct chunk *checkout(struct shard *sh, struct chunk *home)
{
    checkin(sh);
    sh->cur = *home;
    sh->cur_home = home;
    return &sh->cur;
}

/* Whether C can go: no live block, and no freed entry whose line is out. */
static int chunk_dead(const struct chunk *c)
{
    if (c->count)
        return 0;
    for (size_t i = 0; c->freed && i <= mask_of(c); i++)
        if (keep(&c->slots[i]))
            return 0;
    return 1;
}

/* Rebuilds the directory without the dead chunks (their tables are
 * recycled), twice as large when it would still be over half full: the
 * chunks of a heap that moves on (mmapped blocks, trimmed arenas) do not
 * pile up.  Returns 0 when out of memory. */
static int dir_rebuild(struct shard *sh)
{
    checkin(sh);
    size_t old_n = sh->dir ? sh->dir_mask + 1 : 0, kept = 0;
    for (size_t i = 0; i < old_n; i++)
        kept += sh->dir[i].slots && !chunk_dead(&sh->dir[i]);
    size_t n = old_n == 0               ? DIR_INITIAL
               : (kept + 1) * 2 > old_n ? old_n * 2
                                        : old_n;
    struct chunk *dir = pages_map_populated(n * sizeof *dir);
    if (dir == NULL)
        return 0;
    kept = 0; /* counted again, as in table_rebuild */
    for (size_t i = 0; i < old_n; i++) {
        struct chunk *c = &sh->dir[i];
        if (c->slots == NULL)
            continue;
        if (chunk_dead(c)) {
            liveslab_free(sh, c->slots, mask_of(c) + 1);
            continue;
        }
        size_t j = key_hash(c->key) & (n - 1);
        while (dir[j].slots)
            j = (j + 1) & (n - 1);
        dir[j] = *c;
        kept++;
    }
    if (sh->dir)
        pages_unmap(sh->dir, old_n * sizeof *dir);
    sh->dir = dir;
    sh->dir_mask = n - 1;
    sh->dir_used = kept;
    return 1;
}

/* Looks KEY's chunk up in the directory and checks it out; NULL when it
 * has none.  Apart: events rarely need it. */
static __attribute__((noinline)) struct chunk *
chunk_switch(struct shard *sh, uintptr_t key)
{
    checkin(sh);
    if (sh->dir == NULL)
        return NULL;
    size_t i = key_hash(key) & sh->dir_mask;
    for (; sh->dir[i].slots; i = (i + 1) & sh->dir_mask)
        if (sh->dir[i].key == key)
            return checkout(sh, &sh->dir[i]);
    return NULL;
}

/* KEY's chunk, else NULL.  Shard locked. */
static inline struct chunk *chunk_find(struct shard *sh, uintptr_t key)
{
    if (sh->cur_home && sh->cur.key == key)
        return &sh->cur;
    return chunk_switch(sh, key);
}

/* Makes KEY's chunk and checks it out; NULL when out of memory. */
static __attribute__((noinline)) struct chunk *chunk_new(struct shard *sh,
                                                         uintptr_t key)
{
    checkin(sh);
    if ((sh->dir == NULL || (sh->dir_used + 1) * 4 > (sh->dir_mask + 1) * 3) &&
        !dir_rebuild(sh))
        return NULL;
    size_t n = sh->hint > TABLE_INITIAL ? sh->hint : TABLE_INITIAL;
    struct slot *slots = liveslab_alloc(sh, n);
    if (slots == NULL)
        return NULL;
    size_t i = key_hash(key) & sh->dir_mask;
    while (sh->dir[i].slots)
        i = (i + 1) & sh->dir_mask;
    sh->dir[i] = (struct chunk){ .key = key };
    set_size(sh, &sh->dir[i], slots, n);
    sh->dir_used++;
    return checkout(sh, &sh->dir[i]);
}

/* KEY's chunk, made when there is none; NULL when out of memory. */
static inline struct chunk *chunk_get(struct shard *sh, uintptr_t key)
{
    struct chunk *c = chunk_find(sh, key);
    return c ? c : chunk_new(sh, key);
}

/* Enters PTR in its chunk's table (shard locked): a new entry, the
 * address of a freed one allocated again (its tag into *FREED_TAG), or
 * a live one whose free we never saw, replaced (*REPLACED_BIG |= 1 when
 * that one was big).  Returns 0 when out of memory. */
static int table_put(struct shard *sh, uintptr_t ptr, uint32_t size32,
                     uint32_t stack, uint32_t tag, uint32_t *freed_tag,
                     int *replaced_big)
{
    struct chunk *c = chunk_get(sh, ptr >> CHUNK_SHIFT);
    if (c == NULL || (!has_room(c) && !table_rebuild(sh, c)))
        return 0;
    size_t i = find(c, ptr);
    uint64_t w = c->slots[i].word;
    if (w == 0) {
        c->count++;
        sh->count++;
    } else if (is_freed(w)) {
        *freed_tag = tag_of(w);
        c->freed--;
        c->count++;
        sh->count++;
    } else {
        *replaced_big |= c->slots[i].size == BIG_SIZE;
    }
    c->slots[i] = (struct slot){ make_word(ptr, tag, 0), size32, stack };
    return 1;
}

/* ---- the nurseries ----------------------------------------------------------
 * A live log's new blocks (livetab_insert_young) go first in their
 * shard's nursery, NURSERY slots indexed by a hash of the address, and
 * into a chunk's table only when another young block takes their slot
 * while they are still live: most blocks die young, and a free found in
 * the nursery costs one compare instead of a probe and a deletion, the
 * insert a store and a probe (table_forget) instead of a table's insert.
 * Replayed from their full logs, sqlite3 would free 97.5% of its blocks
 * from the nursery, cc1plus 91% (bench/RESULTS.md, 2026-11-27, twelfth
 * session).
 *
 * An address is in one place at most, the nursery or a table: a young
 * block replaces a table entry of its address (a block whose free we
 * never saw, glibc's own free of it, as an insert into the table
 * replaces it), and an insert into the table (livetab_insert_tagged)
 * takes out a young entry of its address.  Young entries are counted in
 * their shard's count, visited with the tables' (each_slot), and looked
 * at first by a lookup and a removal.  They have tag 0 (a live log's)
 * until livetab_each_unwritten sets theirs. */

static size_t young_home(uintptr_t ptr)
{
    return (size_t)(((ptr >> 4) * 0x9e3779b97f4a7c15ull) >>
                    (64 - NURSERY_BITS));
}

/* Moves young entry N into its chunk's table (shard locked); no entry of
 * its address is there.  Out of memory, it is lost, as an insert's block
 * would be. */
static void nursery_spill(struct shard *sh, struct slot *n)
{
    uint32_t freed_tag = 0;
    int replaced_big = 0;
    sh->young--;
    sh->count--; /* table_put counts it again */
    table_put(sh, addr_of(n->word), n->size, n->stack, tag_of(n->word),
              &freed_tag, &replaced_big);
    n->word = 0;
}

/* PTR's young entry (shard locked), or NULL. */
static struct slot *young_of(struct shard *sh, uintptr_t ptr)
{
    if (sh->young == 0)
        return NULL;
    struct slot *n = &sh->nursery[young_home(ptr)];
    return n->word && addr_of(n->word) == ptr ? n : NULL;
}

/* Takes PTR's young entry out into *OUT (shard locked); 0: none. */
static int nursery_take(struct shard *sh, uintptr_t ptr, struct slot *out)
{
    struct slot *n = young_of(sh, ptr);
    if (n == NULL)
        return 0;
    *out = *n;
    n->word = 0;
    sh->young--;
    sh->count--;
    return 1;
}

/* Deletes the live table entry of PTR, if any (shard locked): a block at
 * that address whose free we never saw.  Returns whether it was big. */
static int table_forget(struct shard *sh, uintptr_t ptr)
{
    if (sh->count == sh->young) /* nothing in the tables */
        return 0;
    struct chunk *c = chunk_find(sh, ptr >> CHUNK_SHIFT);
    if (c == NULL || c->count == 0)
        return 0;
    size_t i = find(c, ptr);
    uint64_t w = c->slots[i].word;
    if (w == 0 || is_freed(w))
        return 0;
    int big = c->slots[i].size == BIG_SIZE;
    c->count--;
    sh->count--;
    delete_at(c, i);
    return big;
}

uint32_t livetab_insert_young(uintptr_t ptr, size_t size, uint32_t stack)
{
    if (is_far(ptr) || size >= BIG_SIZE)
        return livetab_insert_tagged(ptr, size, stack, 0);
    struct shard *sh = shard_of(ptr);
    int taken = spin_lock_hot(&sh->lock);
    if (sh->nursery == NULL &&
        (sh->nursery = liveslab_alloc(sh, NURSERY)) == NULL) {
        spin_unlock_hot(&sh->lock, taken);
        return livetab_insert_tagged(ptr, size, stack, 0);
    }
    struct slot *n = &sh->nursery[young_home(ptr)];
    if (n->word && addr_of(n->word) == ptr) { /* its free never seen */
        sh->young--;
        sh->count--;
    } else if (n->word) {
        nursery_spill(sh, n);
    }
    int stale_big = table_forget(sh, ptr);
    *n = (struct slot){ make_word(ptr, 0, 0), (uint32_t)size, stack };
    sh->young++;
    sh->count++;
    spin_unlock_hot(&sh->lock, taken);
    if (stale_big)
        big_take(ptr);
    return 0;
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
    struct shard *sh = shard_of(ptr);
    int big = size >= BIG_SIZE, replaced_big = 0;
    uint32_t freed_tag = 0;
    struct slot young;
    int taken = spin_lock_hot(&sh->lock);
    nursery_take(sh, ptr, &young); /* older than this block: replaced */
    if (!table_put(sh, ptr, big ? BIG_SIZE : (uint32_t)size, stack, tag,
                   &freed_tag, &replaced_big)) {
        spin_unlock_hot(&sh->lock, taken);
        return 0;
    }
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
    struct shard *sh = shard_of(ptr);
    int found = 0;
    uint32_t small = 0;
    struct slot young;
    int taken = spin_lock_hot(&sh->lock);
    if (nursery_take(sh, ptr, &young)) {
        if (free_tag == 0) { /* the usual end of a live log's block */
            spin_unlock_hot(&sh->lock, taken);
            *size = young.size;
            *stack = young.stack;
            *alloc_tag = tag_of(young.word);
            return LIVE_FOUND;
        }
        /* A free to remember: in the table, as any. */
        sh->young++;
        sh->count++;
        nursery_spill(sh, &young);
    }
    struct chunk *c = chunk_find(sh, ptr >> CHUNK_SHIFT);
    if (c) {
        size_t i = find(c, ptr);
        struct slot *s = &c->slots[i];
        if (s->word && !is_freed(s->word)) {
            found = 1;
            small = s->size;
            *stack = s->stack;
            *alloc_tag = tag_of(s->word);
            c->count--;
            sh->count--;
            if (free_tag) {
                *s = (struct slot){ make_word(ptr, free_tag, 1), 0, 0 };
                c->freed++;
                *spot = (struct livetab_spot){ sh, c->slots, i, s->word };
            } else {
                delete_at(c, i);
            }
            prefetch_ahead(sh, c, ptr, small);
        }
    }
    spin_unlock_hot(&sh->lock, taken);
    if (!found)
        return LIVE_ABSENT;
    *size = small == BIG_SIZE ? big_take(ptr) : small;
    return LIVE_FOUND;
}

int livetab_lookup(uintptr_t ptr, size_t *size, uint32_t *stack)
{
    int found = 0;
    if (is_far(ptr)) {
        spin_lock(&side_lock);
        const struct side_block *b = side_find(ptr);
        if (b) {
            *size = b->size;
            *stack = b->stack;
        }
        spin_unlock(&side_lock);
        return b != NULL;
    }
    struct shard *sh = shard_of(ptr);
    uint32_t small = 0;
    int taken = spin_lock_hot(&sh->lock);
    const struct slot *n = young_of(sh, ptr);
    struct chunk *c;
    if (n) {
        found = 1;
        small = n->size;
        *stack = n->stack;
    } else if ((c = chunk_find(sh, ptr >> CHUNK_SHIFT)) != NULL) {
        const struct slot *s = &c->slots[find(c, ptr)];
        if (s->word && !is_freed(s->word)) {
            found = 1;
            small = s->size;
            *stack = s->stack;
        }
    }
    spin_unlock_hot(&sh->lock, taken);
    if (!found)
        return 0;
    if (small == BIG_SIZE) {
        spin_lock(&side_lock);
        *size = side_peek_size(ptr);
        spin_unlock(&side_lock);
    } else {
        *size = small;
    }
    return 1;
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
    struct chunk *c = chunk_find(sh, ptr >> CHUNK_SHIFT);
    if (c == NULL || c->slots != spot->table ||
        c->slots[spot->index].word != spot->word) {
        spin_unlock_hot(&sh->lock, taken);
        return livetab_insert_tagged(ptr, size, stack, tag);
    }
    c->slots[spot->index] =
        (struct slot){ make_word(ptr, tag, 0), (uint32_t)size, stack };
    c->freed--;
    c->count++;
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

size_t livetab_chunks(void)
{
    size_t n = 0;
    for (int i = 0; i < SHARDS; i++)
        n += shards[i].dir_used;
    return n;
}

/* Calls FN on every live slot of every chunk. */
static void each_slot(void (*fn)(struct slot *s, void *arg), void *arg)
{
    for (int s = 0; s < SHARDS; s++) {
        struct shard *sh = &shards[s];
        for (size_t i = 0; sh->young && i < NURSERY; i++)
            if (sh->nursery[i].word)
                fn(&sh->nursery[i], arg);
        checkin(sh);
        for (size_t d = 0; sh->dir && d <= sh->dir_mask; d++) {
            struct chunk *c = &sh->dir[d];
            if (c->slots == NULL || c->count == 0)
                continue;
            for (size_t i = 0; i <= mask_of(c); i++)
                if (c->slots[i].word && !is_freed(c->slots[i].word))
                    fn(&c->slots[i], arg);
        }
    }
}

struct each_arg {
    void (*fn)(uintptr_t, size_t, uint32_t, void *);
    void *arg;
};

static void visit(struct slot *s, void *arg)
{
    struct each_arg *a = arg;
    uintptr_t ptr = addr_of(s->word);
    a->fn(ptr, s->size == BIG_SIZE ? side_peek_size(ptr) : s->size, s->stack,
          a->arg);
}

void livetab_each(void (*fn)(uintptr_t, size_t, uint32_t, void *), void *arg)
{
    struct each_arg a = { fn, arg };
    each_slot(visit, &a);
    for (size_t i = 0; i < side_count; i++)
        if (is_far(side[i].ptr))
            fn(side[i].ptr, side[i].size, side[i].stack, arg);
}

static void visit_unwritten(struct slot *s, void *arg)
{
    if (tag_of(s->word) || s->stack == LIVE_STACK_INHERITED)
        return;
    s->word |= (uint64_t)LIVE_TAG_WRITTEN << ADDR_BITS;
    visit(s, arg);
}

void livetab_each_unwritten(void (*fn)(uintptr_t, size_t, uint32_t, void *),
                            void *arg)
{
    struct each_arg a = { fn, arg };
    each_slot(visit_unwritten, &a);
    for (size_t i = 0; i < side_count; i++)
        if (is_far(side[i].ptr) && side[i].tag == 0 &&
            side[i].stack != LIVE_STACK_INHERITED) {
            side[i].tag = LIVE_TAG_WRITTEN;
            fn(side[i].ptr, side[i].size, side[i].stack, arg);
        }
}

static void disown(struct slot *s, void *arg)
{
    (void)arg;
    s->stack = LIVE_STACK_INHERITED;
}

void livetab_disown_all(void)
{
    each_slot(disown, NULL);
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

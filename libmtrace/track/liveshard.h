/* SPDX-License-Identifier: GPL-3.0-or-later */
/* liveshard.h - the live-block table's shards, chunks and slots, shared by
 * livetab.c (the tables) and liveslab.c (their memory).  Private to the
 * two.  GPL-3.0-or-later. */
#ifndef MT_LIVESHARD_H
#define MT_LIVESHARD_H
#include "base/spin.h"
#include "log/threadlog.h"
#include <stddef.h>
#include <stdint.h>

/* Shards come in groups, one group per 64 MiB region of addresses: each
 * of glibc's per-thread arenas is such a region, so threads that free what
 * they allocated stay on shards of their own and do not pull each other's
 * locks from one core to the other on every event.  Eight shards a group:
 * threads sharing an arena are few. */
#define REGION_SHIFT 26
#define GROUPS 16
#define SHARDS_PER_GROUP 8
#define SHARDS (GROUPS * SHARDS_PER_GROUP)
#define CHUNK_SHIFT 16
#define DIR_INITIAL 16
#define TABLE_INITIAL 8
/* Tables up to this size are kept at most 3/8 full, not 3/4, while their
 * shard's tables hold few slots in all: a program whose blocks are few
 * spends little memory on shorter probe runs (0.65 probes a lookup on
 * bench/wl pairs at 3/4, 0.18 at 3/8), and one with many medium blocks
 * (64 of 1 KB a chunk) does not pay twice the slots for them. */
#define SPARSE_SLOTS 1024u
#define SPARSE_SHARD_SLOTS (4u << 10)
/* Tables this big (16 KiB) are not all in the cache when a program comes
 * back to their chunk: from this size on, frees in address order
 * prefetch (prefetch_ahead). */
#define BIG_TABLE_SLOTS 1024u
/* Tables of up to 2^CLASSES slots come from the shard's own slabs and are
 * recycled there; larger ones (only keys closer than 16 bytes need them)
 * are mappings of their own. */
#define CLASSES 13
#define SLAB_MIN (16u << 10)
#define SLAB_MAX (1u << 20)
#define BIG_SIZE 0xffffffffu
/* A shard's nursery: slots, a power of two (livetab.c). */
#define NURSERY_BITS 6
#define NURSERY (1u << NURSERY_BITS)

#define ADDR_BITS 48
#define ADDR_MASK ((1ull << ADDR_BITS) - 1)
#define FREED_BIT (1ull << 63)

_Static_assert(ADDR_BITS + TAG_BITS < 64, "a slot's word holds addr, tag, bit");

struct slot {
    uint64_t word; /* 0: empty; else address | tag | FREED_BIT */
    uint32_t size; /* BIG_SIZE: see the side list */
    uint32_t stack;
};

/* A chunk's entry in its shard's directory; slots NULL: an empty entry. */
struct chunk {
    uintptr_t key; /* address >> CHUNK_SHIFT */
    struct slot *slots;
    uint32_t shift; /* 64 - log2(slots): the hash's top bits index */
    uint32_t limit; /* entries (live and freed) it may hold: has_room */
    uint32_t count; /* live entries */
    uint32_t freed; /* freed entries */
};

/* A recycled table: its first bytes link it to the next of its size. */
struct spare_table {
    struct spare_table *next;
};

/* Aligned to cache lines, so two threads on two shards do not share one. */
struct shard {
    spinlock_t lock;
    /* The chunk of the shard's previous event, checked out of the
     * directory: events in the same chunk (most: programs work on
     * neighbours) find its table on the shard's own cache line, without
     * a load that waits for another.  Its directory entry is stale until
     * checked in again; only its key and its being taken are read there. */
    struct chunk cur;
    struct chunk *cur_home; /* its directory entry; NULL: none out */
    size_t count;           /* live entries in all its chunks */
    uintptr_t next_free;    /* where the block after the last freed is */
    /* A second cache line, for switching chunks. */
    struct chunk *dir;
    size_t dir_mask;
    size_t dir_used;
    /* Its tables' memory: recycled tables by size, and a slab to carve. */
    struct spare_table *spare[CLASSES + 1];
    char *slab, *slab_end;
    size_t slab_next;
    size_t slots; /* in its chunks' tables */
    /* The size that would hold the live blocks of the chunk it last had
     * out: a new chunk's table starts at it, so that a program filling
     * chunk after chunk of small blocks does not rehash each one eight
     * times over, and one that moves on to big blocks starts small. */
    size_t hint;
    /* Its nursery (livetab.c): NURSERY slots from its own memory, made on
     * first use, each the young block of a live log whose address hashes
     * there; YOUNG of them are taken (counted in COUNT too). */
    struct slot *nursery;
    size_t young;
} __attribute__((aligned(64)));
_Static_assert(offsetof(struct shard, next_free) + sizeof(uintptr_t) <= 64,
               "an event's fields in one cache line");

/* A zeroed table of N slots (a power of two) from SH's memory, counted in
 * its slots (sparse, livetab.c); NULL when out of memory. */
struct slot *liveslab_alloc(struct shard *sh, size_t n);
/* Gives table T of N slots back to SH's memory. */
void liveslab_free(struct shard *sh, struct slot *t, size_t n);

#endif

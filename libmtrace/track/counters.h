/* SPDX-License-Identifier: GPL-3.0-or-later */
/* counters.h - per-stack allocation counters, kept per thread so that two
 * threads allocating through the same stack never write to one cache line.
 * Each thread owns a set of counters (recycled when it exits: counts are
 * additive, so a new thread may go on adding to a dead one's); a reader
 * sums over all sets. */
#ifndef MT_COUNTERS_H
#define MT_COUNTERS_H
#include "log/threads.h"
#include <stdatomic.h>
#include <stdint.h>

struct stack_counts {
    long allocs, alloc_bytes;
    long frees, freed_bytes;
};

/* A thread's counters are chunks of this many stacks (counters.c). */
#define COUNTERS_CHUNK_BITS 10
#define COUNTERS_CHUNK (1u << COUNTERS_CHUNK_BITS)

/* What counters_mine does not find in the thread's first chunk. */
struct stack_counts *counters_mine_slow(uint32_t id);

/* The calling thread's counters of stack ID; NULL when out of memory.
 * The first chunk straight from the record, inline: most programs have
 * fewer than 1024 stacks, and every event counts (29 instructions an
 * event through the two levels on bench/wl pairs, 5 this way). */
static inline struct stack_counts *counters_mine(uint32_t id)
{
    struct thread_record *r = mt_thread_mine;
    if (__builtin_expect(r && id < COUNTERS_CHUNK && r->first_chunk, 1))
        return &r->first_chunk[id];
    return counters_mine_slow(id);
}

/* Single writer: a relaxed load and store, no locked instruction. */
static inline void counters_bump(long *field, long by)
{
    atomic_long *f = (atomic_long *)field;
    atomic_store_explicit(f, atomic_load_explicit(f, memory_order_relaxed) + by,
                          memory_order_relaxed);
}

/* Only the owning thread writes; these are plain stores that readers may
 * load at any time.  BLOCKS is what the block counts for: 1, or in
 * sampling mode its weight in sampler_count_unit() units. */
static inline void counters_add_alloc(uint32_t id, long blocks, long bytes)
{
    struct stack_counts *c = counters_mine(id);
    if (c) {
        counters_bump(&c->allocs, blocks);
        counters_bump(&c->alloc_bytes, bytes);
    }
}

static inline void counters_add_free(uint32_t id, long blocks, long bytes)
{
    struct stack_counts *c = counters_mine(id);
    if (c) {
        counters_bump(&c->frees, blocks);
        counters_bump(&c->freed_bytes, bytes);
    }
}
/* Sum over all threads, dead or alive. */
void counters_sum(uint32_t id, struct stack_counts *out);
/* The sum of every stack's counters over all threads: what a loop of
 * counters_sum over the stack table adds up, read from each thread's
 * chunks in order instead of stack by stack (on cc1plus: 107k stacks,
 * each one's struct and counters a cache miss; bench/RESULTS.md). */
void counters_total(struct stack_counts *out);
/* In a fork child: what the parent allocated is not the child's. */
void counters_reset_after_fork(void);
#endif

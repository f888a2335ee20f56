/* SPDX-License-Identifier: GPL-3.0-or-later */
/* counters.h - per-stack allocation counters, kept per thread so that two
 * threads allocating through the same stack never write to one cache line.
 * Each thread owns a set of counters (recycled when it exits: counts are
 * additive, so a new thread may go on adding to a dead one's); a reader
 * sums over all sets. */
#ifndef MT_COUNTERS_H
#define MT_COUNTERS_H
#include <stdint.h>

struct stack_counts {
    long allocs, alloc_bytes;
    long frees, freed_bytes;
};

/* The calling thread's counters of stack ID; NULL when out of memory. */
struct stack_counts *counters_mine(uint32_t id);
/* Only the owning thread writes; these are plain stores that readers may
 * load at any time.  BLOCKS is what the block counts for: 1, or in
 * sampling mode its weight in sampler_count_unit() units. */
void counters_add_alloc(uint32_t id, long blocks, long bytes);
void counters_add_free(uint32_t id, long blocks, long bytes);
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

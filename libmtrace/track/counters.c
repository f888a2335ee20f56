/* SPDX-License-Identifier: GPL-3.0-or-later */
/* counters.c - see counters.h.  A thread's counters (in its record, see
 * threads.h) are a two-level table of chunks of 1024 stacks, filled in as
 * the thread meets stacks. */
#include "track/counters.h"
#include "base/arena.h"
#include "log/threads.h"
#include <stdatomic.h>
#include <string.h>

#define CHUNK_BITS COUNTERS_CHUNK_BITS
#define CHUNK COUNTERS_CHUNK
#define MID 64
#define TOP COUNTER_TOP /* 256 * 64 * 1024 = 16M stacks */

/* The counters of ID in set S, created when CREATE. */
static struct stack_counts *lookup(struct thread_record *s, uint32_t id,
                                   int create)
{
    uint32_t t = id >> (CHUNK_BITS + 6), m = (id >> CHUNK_BITS) & (MID - 1);
    if (t >= TOP)
        return NULL;
    struct stack_counts *_Atomic *mid = atomic_load(&s->counters[t]);
    if (mid == NULL) {
        if (!create || (mid = arena_alloc(MID * sizeof *mid)) == NULL)
            return NULL;
        atomic_store(&s->counters[t], mid);
    }
    struct stack_counts *chunk = atomic_load(&mid[m]);
    if (chunk == NULL) {
        if (!create || (chunk = arena_alloc(CHUNK * sizeof *chunk)) == NULL)
            return NULL;
        atomic_store(&mid[m], chunk);
    }
    if (create && t == 0 && m == 0)
        s->first_chunk = chunk; /* only the owner creates */
    return &chunk[id & (CHUNK - 1)];
}

/* Past the first chunk, or its first use (counters.h has the rest). */
__attribute__((noinline)) struct stack_counts *counters_mine_slow(uint32_t id)
{
    struct thread_record *r = thread_record();
    return r ? lookup(r, id, 1) : NULL;
}

static long load(const long *field)
{
    return atomic_load_explicit((atomic_long *)field, memory_order_relaxed);
}

static void add_into(struct stack_counts *sum, const struct stack_counts *c)
{
    sum->allocs += load(&c->allocs);
    sum->alloc_bytes += load(&c->alloc_bytes);
    sum->frees += load(&c->frees);
    sum->freed_bytes += load(&c->freed_bytes);
}

void counters_sum(uint32_t id, struct stack_counts *out)
{
    memset(out, 0, sizeof *out);
    for (struct thread_record *s = thread_records(); s; s = s->next_all) {
        struct stack_counts *c = lookup(s, id, 0);
        if (c)
            add_into(out, c);
    }
}

/* Stack ids start at 1: entry 0 of the first chunk is never a stack's. */
static void add_chunk(struct stack_counts *sum, const struct stack_counts *c,
                      uint32_t first)
{
    for (uint32_t i = first; i < CHUNK; i++)
        add_into(sum, &c[i]);
}

static void add_record(struct stack_counts *sum, struct thread_record *r)
{
    for (uint32_t t = 0; t < TOP; t++) {
        struct stack_counts *_Atomic *mid = atomic_load(&r->counters[t]);
        for (uint32_t m = 0; mid && m < MID; m++) {
            struct stack_counts *chunk = atomic_load(&mid[m]);
            if (chunk)
                add_chunk(sum, chunk, t == 0 && m == 0);
        }
    }
}

void counters_total(struct stack_counts *out)
{
    memset(out, 0, sizeof *out);
    for (struct thread_record *r = thread_records(); r; r = r->next_all)
        add_record(out, r);
}

void counters_reset_after_fork(void)
{
    for (struct thread_record *r = thread_records(); r; r = r->next_all)
        for (uint32_t t = 0; t < TOP; t++) {
            struct stack_counts *_Atomic *mid = atomic_load(&r->counters[t]);
            for (uint32_t m = 0; mid && m < MID; m++) {
                struct stack_counts *chunk = atomic_load(&mid[m]);
                if (chunk)
                    memset(chunk, 0, CHUNK * sizeof *chunk);
            }
        }
}

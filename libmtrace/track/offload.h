/* SPDX-License-Identifier: GPL-3.0-or-later */
/* offload.h - a live log's table work on another CPU (offload.c).
 *
 * Once the tracer starts it (track/tracer.c: a program that has met
 * MEMLEAK_CONFIG=offload= distinct stacks and still has one thread), that
 * thread's events are put in a ring as they come (the block, and the
 * frames it unwound or the stack the unwinder's memo knew) and a thread
 * of libmtrace's own enters them in the tables (stack table, live table,
 * counters) on another CPU, in order.  Whoever reads the tables first
 * drains the ring (offload_drain).  The program's second thread turns it
 * off for good: its first event waits until the ring is empty, and from
 * then on every thread does its own work, as without it; so do a fork
 * and the end of the process. */
#ifndef MT_OFFLOAD_H
#define MT_OFFLOAD_H
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* A record as the consumer sees it: OFFLOAD_RECORD_OP(w[0]), then its
 * words. */
enum offload_op {
    OFFLOAD_PAD = 1, /* the rest of the ring, skipped                    */
    OFFLOAD_ALLOC,   /* ptr, size, then N frames (OFFLOAD_RECORD_FRAMES) */
    OFFLOAD_KNOWN,   /* ptr, size, the stack (a struct stack *) the
                        unwinder's memo had for the walk                 */
    OFFLOAD_FREE,    /* ptr                                              */
};
#define OFFLOAD_RECORD_OP(w) ((unsigned)((w) & 0xff))
#define OFFLOAD_RECORD_WORDS(w) ((unsigned)(((w) >> 8) & 0xffffff))
#define OFFLOAD_RECORD_FRAMES(w) ((int)((w) >> 32))

/* What the consumer does with each record; set by offload_start. */
typedef void (*offload_apply_fn)(const uint64_t *record);

extern atomic_int offload_running;

/* FN runs first on the consumer thread: the scan's registration of a
 * thread of its own (never stopped, its stack no root), which this layer
 * cannot name. */
void offload_set_thread_hook(void (*fn)(void));

/* Starts the consumer thread when the machine has a second CPU; the
 * calling thread becomes the only one whose events go in the ring.
 * Call with the guard held. */
void offload_start(offload_apply_fn apply);

/* Whether this event goes in the ring: the ring is on and this is its
 * thread.  Another thread's event turns the ring off first (it waits for
 * it to be empty), then returns 0. */
int offload_here_slow(void);
static inline int offload_here(void)
{
    return atomic_load_explicit(&offload_running, memory_order_relaxed) &&
           offload_here_slow();
}

/* An allocation's walk: at most MAX frames into FRAMES, their number; or
 * 0 when the stack is known already, *KNOWN then. */
typedef int (*offload_walk_fn)(void **frames, int max, const void *arg,
                               void **known);

/* Puts an event in the ring; 0 when it cannot (the ring went off): then
 * the caller does the work itself, everything before it applied. */
int offload_alloc(uintptr_t ptr, size_t size, offload_walk_fn walk,
                  const void *arg, int max);
int offload_free(uintptr_t ptr);

/* A realloc in the ring: begin before the real call, end after it, the
 * ring held between (no other thread can turn it off in the middle).
 * begin says where the old block's size is: OFFLOAD_SIZE_KNOWN (the
 * ring's own record of its allocation, in *OLD_SIZE) or
 * OFFLOAD_SIZE_IN_TABLE (no record of the address is left in the ring:
 * the live table is up to date for it); OFFLOAD_NO: the ring is off, do
 * it all yourself.  end puts the release of the old block (when the
 * table holds it: IN_TABLE) and the new one (when NEW_PTR) in the ring. */
enum { OFFLOAD_NO, OFFLOAD_SIZE_KNOWN, OFFLOAD_SIZE_IN_TABLE };
int offload_realloc_begin(uintptr_t old, size_t *old_size);
void offload_realloc_end(uintptr_t old, int in_table, uintptr_t new_ptr,
                         size_t size, offload_walk_fn walk, const void *arg,
                         int max);

/* Waits until every record put in the ring before the call is applied.
 * Any thread, any time (not the consumer's own). */
void offload_drain(void);

/* Turns the ring off for good, once it is empty: another thread's first
 * event, fork's prepare handler and the end of the process do. */
void offload_stop(void);

/* In a fork child: no ring, no consumer (the parent drained it). */
void offload_after_fork_child(void);

#endif

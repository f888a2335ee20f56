/* SPDX-License-Identifier: GPL-3.0-or-later */
/* stacktab.h - each distinct call stack stored once (deduplicated by a
 * hash of its return addresses, then compared address for address), with
 * an id the log refers to and the counters reports are made of. */
#ifndef MT_STACKTAB_H
#define MT_STACKTAB_H
#include "base/cmap.h"
#include "symbols/frametab.h"
#include <stdatomic.h>
#include <stdint.h>

/* The fields every event reads come first, in one cache line (a stack
 * starts on one), and the key right after them: a lookup that finds the
 * stack reads a few adjacent lines, FRAMES[] included (it follows ADDRS
 * in the same allocation). */
struct stack {
    struct cmap_entry e; /* e.seq is the stack id            */
    unsigned depth;
    unsigned epoch;
    unsigned emitted_gen; /* log writer's: last log holding it */
    atomic_uint checked;  /* modmap_unload_gen() when last found valid */
    /* The pieces of its event lines that depend on the stack alone, made
     * by tracelog.c when it writes the stack record; LINE_PARTS says they
     * are there (release/acquire).  HEAD: "@ WHERE " of frames[0], in an
     * allocation padded to 16 bytes, shared by the stacks of one frame
     * (HEAD_LEN 0: too long, none); TAIL: " sID\n". */
    atomic_uint line_parts;
    unsigned head_len, tail_len;
    const char *head;
    char tail[16];
    struct frame **frames; /* resolved, DEPTH entries          */
    /* Counters are per thread (counters.h).  Their sums at the previous
     * report (owned by report.c): */
    long prev_bytes, prev_blocks, prev_allocs, prev_alloc_bytes;
    uintptr_t addrs[];     /* the key                          */
};

static inline uint32_t stack_id(const struct stack *s)
{
    return s->e.seq;
}

/* The stack for ADDRS[0..N), created (and its frames resolved) on first
 * sight; one found again is checked against the code now loaded after a
 * dlclose() (frametab_check).  NULL only when out of memory.  May call
 * into the loader: no tracer lock may be held. */
struct stack *stacktab_intern(void *const *addrs, int n);
/* The stack with id ID, or NULL. */
struct stack *stacktab_by_id(uint32_t id);
void stacktab_each(void (*fn)(struct stack *, void *), void *arg);
uint32_t stacktab_count(void);
void stacktab_lock_for_fork(void);
void stacktab_unlock_after_fork(void);

#endif

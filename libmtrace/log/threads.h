/* SPDX-License-Identifier: GPL-3.0-or-later */
/* threads.h - a record of per-thread state that outlives the thread: the
 * thread's stack counters (counters.c) and its fork-gate depth
 * (forkgate.c).  Records are listed forever and recycled: a new thread
 * takes the record of one that exited (counts are additive, so going on
 * adding to a dead thread's counters is right). */
#ifndef MT_THREADS_H
#define MT_THREADS_H
#include "log/threadlog.h"
#include <stdatomic.h>

#define COUNTER_TOP 256
/* Records get small ids (1..MAX_THREAD_IDS-1) for the live table's owner
 * tags; a record made when they are all taken gets 0 and logs unbuffered. */
#define MAX_THREAD_IDS (1u << (TAG_BITS - TAG_GEN_BITS))

struct stack_counts;

struct thread_record {
    struct thread_record *next_all;  /* every record ever made        */
    struct thread_record *next_free; /* records of exited threads     */
    unsigned id;                     /* 0: none (see MAX_THREAD_IDS)  */
    atomic_int gate_depth;           /* forkgate.c                    */
    void *unwind_memo;               /* unwind.c: the thread's memo   */
    struct stack_counts *_Atomic
        *_Atomic counters[COUNTER_TOP]; /* counters.c */
    struct stack_counts *first_chunk;   /* counters.c: stacks below 1024 */
    struct threadlog log;               /* threadlog.c: its log lines    */
};

/* The calling thread's record, taken on first use; NULL when out of memory.
 * Inline: every event asks for it. */
extern __thread struct thread_record *mt_thread_mine
    __attribute__((tls_model("initial-exec")));
struct thread_record *thread_record_take(void);

static inline struct thread_record *thread_record(void)
{
    struct thread_record *r = mt_thread_mine;
    return r ? r : thread_record_take();
}
/* The record with id ID (1..MAX_THREAD_IDS-1), or NULL. */
struct thread_record *thread_record_by_id(unsigned id);
/* The first of all records (follow next_all). */
struct thread_record *thread_records(void);
/* In a fork child: the list's lock may have been held by a dead thread. */
void threads_reset_after_fork(void);

#endif

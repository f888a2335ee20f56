/* SPDX-License-Identifier: GPL-3.0-or-later */
/* spin.h - the library's locks.  A small test-and-test-and-set lock for the short critical
 * sections of the stack, frame and live tables.  It never allocates and is
 * trivially reset in a fork child.  Yields after a while, because on a
 * 2-core machine the holder may be preempted.  Each lock has a rank
 * (debug.h) that a debug build checks. */
#ifndef MT_SPIN_H
#define MT_SPIN_H
#include "base/debug.h"
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/single_threaded.h>

typedef struct {
    atomic_int held;
    enum lock_rank rank;
} spinlock_t;
#define SPINLOCK_INIT(rank_)                                                   \
    {                                                                          \
        0, rank_                                                               \
    }

static inline void spin_init(spinlock_t *l, enum lock_rank rank)
{
    atomic_store_explicit(&l->held, 0, memory_order_relaxed);
    l->rank = rank;
}

/* Takes L without the rank check: only for locks of one rank taken
 * together (livetab_lock_all), after a check of the rank. */
static inline void spin_lock_unranked(spinlock_t *l)
{
    unsigned spins = 0;
    while (atomic_exchange_explicit(&l->held, 1, memory_order_acquire)) {
        while (atomic_load_explicit(&l->held, memory_order_relaxed)) {
            if (++spins > 100)
                sched_yield();
            else
                __builtin_ia32_pause();
        }
    }
}

static inline void spin_unlock_unranked(spinlock_t *l)
{
    atomic_store_explicit(&l->held, 0, memory_order_release);
}

static inline void spin_lock(spinlock_t *l)
{
    LOCK_RANK_TAKE(l->rank);
    spin_lock_unranked(l);
}

static inline int spin_trylock(spinlock_t *l)
{
    if (atomic_load_explicit(&l->held, memory_order_relaxed) ||
        atomic_exchange_explicit(&l->held, 1, memory_order_acquire))
        return 0;
    LOCK_RANK_TAKE(l->rank);
    return 1;
}

static inline void spin_unlock(spinlock_t *l)
{
    spin_unlock_unranked(l);
    LOCK_RANK_DROP(l->rank);
}

/* The hot path's locks (a live-table shard, a thread's own log buffer):
 * not taken while glibc says the process has one thread, as glibc's
 * malloc skips its own arena locks.  __libc_single_threaded turns false in
 * pthread_create before the new thread exists, never back, and only this
 * thread can create one, never inside one of these sections; the caller
 * keeps what spin_lock_hot returned for spin_unlock_hot.  The two locked
 * instructions an event cost 2-5% of its time (bench/RESULTS.md). */
static inline int spin_lock_hot(spinlock_t *l)
{
    LOCK_RANK_TAKE(l->rank);
    if (__libc_single_threaded)
        return 0;
    spin_lock_unranked(l);
    return 1;
}

static inline void spin_unlock_hot(spinlock_t *l, int taken)
{
    if (taken)
        spin_unlock_unranked(l);
    LOCK_RANK_DROP(l->rank);
}

/* In a fork child only the forking thread survives: drop the lock it took
 * in the prepare handler. */
static inline void spin_reset(spinlock_t *l)
{
    atomic_store_explicit(&l->held, 0, memory_order_relaxed);
}

/* The library's few mutexes (those held across a write(2) or a report)
 * get the same rank check. */
static inline void mutex_lock(pthread_mutex_t *m, enum lock_rank rank)
{
    LOCK_RANK_TAKE(rank);
    pthread_mutex_lock(m);
}

static inline int mutex_trylock(pthread_mutex_t *m, enum lock_rank rank)
{
    if (pthread_mutex_trylock(m) != 0)
        return 0;
    LOCK_RANK_TAKE(rank);
    return 1;
}

static inline void mutex_unlock(pthread_mutex_t *m, enum lock_rank rank)
{
    pthread_mutex_unlock(m);
    LOCK_RANK_DROP(rank);
}

#endif

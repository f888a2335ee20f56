/* spin.h - a small test-and-test-and-set lock for the short critical
 * sections of the stack, frame and live tables.  It never allocates and is
 * trivially reset in a fork child.  Yields after a while, because on a
 * 2-core machine the holder may be preempted.  GPL-3.0-or-later. */
#ifndef MT_SPIN_H
#define MT_SPIN_H
#include <sched.h>
#include <stdatomic.h>

typedef struct {
    atomic_int held;
} spinlock_t;
#define SPINLOCK_INIT                                                          \
    {                                                                          \
        0                                                                      \
    }

static inline void spin_lock(spinlock_t *l)
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

static inline void spin_unlock(spinlock_t *l)
{
    atomic_store_explicit(&l->held, 0, memory_order_release);
}

/* In a fork child only the forking thread survives: drop the lock it took
 * in the prepare handler. */
static inline void spin_reset(spinlock_t *l)
{
    atomic_store_explicit(&l->held, 0, memory_order_relaxed);
}

#endif

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* forkgate.h - keeps fork() from happening while another thread is inside
 * the dynamic loader on our account.  glibc 2.36 does not reset the
 * loader's write lock in a fork child: a thread inside dl_iterate_phdr
 * (libunwind, our module map) or dlopen() at the moment of fork leaves it
 * locked, and the child, which unwinds on its first malloc, hangs.
 * Tracer work that may enter the loader, and dlclose(), run inside the
 * gate; the fork prepare handler closes it and waits until no other thread
 * is inside.  A thread already inside never waits, so it cannot block the
 * fork it is holding up.  (dlopen() itself is not gated: see control.c.)
 * GPL-3.0-or-later. */
#ifndef MT_FORKGATE_H
#define MT_FORKGATE_H
#include "log/threads.h"
#include <stdatomic.h>

/* Registers for membarrier(2): at load, and at the start of collection
 * (only the first call does anything). */
void gate_init(void);

/* The handshake (forkgate.c): entering publishes the thread's depth, then
 * looks at mt_fork_pending.  Inline, since every event enters: with
 * membarrier registered (mt_gate_asymmetric) the entering side's barrier
 * is the compiler's only. */
extern atomic_int mt_fork_pending;
extern int mt_gate_asymmetric;
/* A fork is pending: waits outside the gate for it to pass. */
void gate_wait_for_fork(struct thread_record *r);

/* Orders the store of the depth before the load of mt_fork_pending. */
static inline void gate_entering_barrier(void)
{
    if (mt_gate_asymmetric)
        atomic_signal_fence(memory_order_seq_cst); /* compiler only */
    else
        atomic_thread_fence(memory_order_seq_cst);
}

static inline void gate_enter(void)
{
    struct thread_record *r = thread_record();
    if (r == NULL)
        return;
    int depth = atomic_load_explicit(&r->gate_depth, memory_order_relaxed);
    atomic_store_explicit(&r->gate_depth, depth + 1, memory_order_relaxed);
    if (depth > 0)
        return; /* nested: this thread may hold loader locks; never wait */
    gate_entering_barrier();
    if (__builtin_expect(
            atomic_load_explicit(&mt_fork_pending, memory_order_relaxed), 0))
        gate_wait_for_fork(r);
    atomic_thread_fence(memory_order_acquire);
}

static inline void gate_leave(void)
{
    struct thread_record *r = mt_thread_mine;
    if (r)
        atomic_store_explicit(
            &r->gate_depth,
            atomic_load_explicit(&r->gate_depth, memory_order_relaxed) - 1,
            memory_order_release);
}
/* fork prepare: waits until every other thread is outside. */
void gate_close_for_fork(void);
/* fork parent and child. */
void gate_open_after_fork(void);

#endif

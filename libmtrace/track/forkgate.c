/* SPDX-License-Identifier: GPL-3.0-or-later */
/* forkgate.c - see forkgate.h.  A Dekker-style handshake: a thread
 * publishes its depth, then looks at fork_pending; the forking thread
 * publishes fork_pending, then looks at every depth; at least one must see
 * the other.  The entering side is the hot path (every event), so it pays
 * only a compiler barrier: the forking side runs membarrier(2), which
 * makes every thread of the process execute a full memory barrier.  Where
 * the kernel refuses membarrier, both sides use full barriers.
 */
#define _GNU_SOURCE
#include "track/forkgate.h"
#include "log/threads.h"
#include <linux/membarrier.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

static atomic_int fork_pending;
static int asymmetric; /* membarrier registered: cheap entering side */

/* Registering while other threads run waits for an RCU grace period in
 * the kernel (5.6-12.7 ms, bench/RESULTS.md): the library's constructor
 * registers before the program has threads, and a fork child inherits
 * the registration. */
void gate_init(void)
{
    static int done;
    if (done)
        return;
    done = 1;
    asymmetric = syscall(SYS_membarrier,
                         MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
}

/* Orders the store of the depth before the load of fork_pending. */
static inline void entering_barrier(void)
{
    if (asymmetric)
        atomic_signal_fence(memory_order_seq_cst); /* compiler only */
    else
        atomic_thread_fence(memory_order_seq_cst);
}

static void forking_barrier(void)
{
    if (!asymmetric ||
        syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) != 0)
        atomic_thread_fence(memory_order_seq_cst);
}

static void set_depth(struct thread_record *r, int depth)
{
    atomic_store_explicit(&r->gate_depth, depth, memory_order_relaxed);
}

void gate_enter(void)
{
    struct thread_record *r = thread_record();
    if (r == NULL)
        return;
    int depth = atomic_load_explicit(&r->gate_depth, memory_order_relaxed);
    set_depth(r, depth + 1);
    if (depth > 0)
        return; /* nested: this thread may hold loader locks; never wait */
    entering_barrier();
    while (atomic_load_explicit(&fork_pending, memory_order_relaxed)) {
        set_depth(r, 0);
        while (atomic_load(&fork_pending))
            sched_yield();
        set_depth(r, 1);
        entering_barrier();
    }
    atomic_thread_fence(memory_order_acquire);
}

void gate_leave(void)
{
    struct thread_record *r = thread_record();
    if (r)
        atomic_store_explicit(
            &r->gate_depth,
            atomic_load_explicit(&r->gate_depth, memory_order_relaxed) - 1,
            memory_order_release);
}

void gate_close_for_fork(void)
{
    struct thread_record *self = thread_record();
    atomic_store(&fork_pending, 1);
    forking_barrier();
    for (struct thread_record *r = thread_records(); r; r = r->next_all)
        while (r != self && atomic_load(&r->gate_depth) > 0)
            sched_yield();
}

void gate_open_after_fork(void)
{
    atomic_store(&fork_pending, 0);
}

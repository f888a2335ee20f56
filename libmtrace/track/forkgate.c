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

atomic_int mt_fork_pending;
int mt_gate_asymmetric; /* membarrier registered: cheap entering side */

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
    mt_gate_asymmetric =
        syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0,
                0) == 0;
}

static void forking_barrier(void)
{
    if (!mt_gate_asymmetric ||
        syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) != 0)
        atomic_thread_fence(memory_order_seq_cst);
}

static void set_depth(struct thread_record *r, int depth)
{
    atomic_store_explicit(&r->gate_depth, depth, memory_order_relaxed);
}

/* gate_enter found a fork pending: out of the gate until it has passed,
 * then in again (the thread's depth was 0 before it entered). */
__attribute__((noinline)) void gate_wait_for_fork(struct thread_record *r)
{
    while (atomic_load_explicit(&mt_fork_pending, memory_order_relaxed)) {
        set_depth(r, 0);
        while (atomic_load(&mt_fork_pending))
            sched_yield();
        set_depth(r, 1);
        gate_entering_barrier();
    }
}

void gate_close_for_fork(void)
{
    struct thread_record *self = thread_record();
    atomic_store(&mt_fork_pending, 1);
    forking_barrier();
    for (struct thread_record *r = thread_records(); r; r = r->next_all)
        while (r != self && atomic_load(&r->gate_depth) > 0)
            sched_yield();
}

void gate_open_after_fork(void)
{
    atomic_store(&mt_fork_pending, 0);
}

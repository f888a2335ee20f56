/* forkgate.c - see forkgate.h.  A Dekker-style handshake: a thread
 * publishes its depth, then looks at fork_pending; the forking thread
 * publishes fork_pending, then looks at every depth.  Both with
 * sequentially consistent operations, so at least one sees the other.
 * GPL-3.0-or-later. */
#include "forkgate.h"
#include "threads.h"
#include <sched.h>
#include <stdatomic.h>

static atomic_int fork_pending;

void gate_enter(void)
{
    struct thread_record *r = thread_record();
    if (r == NULL)
        return;
    int depth = atomic_load_explicit(&r->gate_depth, memory_order_relaxed);
    atomic_store(&r->gate_depth, depth + 1);
    if (depth > 0)
        return;   /* nested: this thread may hold loader locks; never wait */
    while (atomic_load(&fork_pending)) {
        atomic_store(&r->gate_depth, 0);
        while (atomic_load(&fork_pending))
            sched_yield();
        atomic_store(&r->gate_depth, 1);
    }
}

void gate_leave(void)
{
    struct thread_record *r = thread_record();
    if (r)
        atomic_fetch_sub_explicit(&r->gate_depth, 1, memory_order_release);
}

void gate_close_for_fork(void)
{
    struct thread_record *self = thread_record();
    atomic_store(&fork_pending, 1);
    for (struct thread_record *r = thread_records(); r; r = r->next_all)
        while (r != self && atomic_load(&r->gate_depth) > 0)
            sched_yield();
}

void gate_open_after_fork(void)
{
    atomic_store(&fork_pending, 0);
}

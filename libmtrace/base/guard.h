/* SPDX-License-Identifier: GPL-3.0-or-later */
/* guard.h - per-thread recursion guard.  While it is set, every allocation
 * made by this thread goes straight to the real allocator: that covers the
 * tracer's own calls into libc, libunwind, dladdr and the demangler, and a
 * signal handler that allocates while we are inside the tracer.
 * initial-exec TLS: the general-dynamic model reaches the variable through
 * __tls_get_addr, which may itself allocate. */
#ifndef MT_GUARD_H
#define MT_GUARD_H
#include <stdatomic.h>

extern __thread int mt_in_tracer __attribute__((tls_model("initial-exec")));
/* Signals that arrived while the guard was set (sigdefer.h). */
extern __thread int mt_signals_deferred
    __attribute__((tls_model("initial-exec")));
void sigdefer_release(void);

static inline int guard_enter(void)
{
    if (mt_in_tracer)
        return 0;
    mt_in_tracer = 1;
    return 1;
}

/* Signals held back while the thread was inside are delivered now that it
 * is out (sigdefer.h).  A signal that comes after the store is not held
 * back at all. */
static inline void guard_leave(void)
{
    mt_in_tracer = 0;
    atomic_signal_fence(memory_order_seq_cst);
    if (__builtin_expect(mt_signals_deferred, 0))
        sigdefer_release();
}

static inline int guard_is_set(void)
{
    return mt_in_tracer;
}

static inline void guard_scope_end(const int *entered)
{
    if (*entered)
        guard_leave();
}

/* The one way to hold the guard outside the shim: declares ENTERED, 1 when
 * this call set the guard (the thread was not inside already), else 0,
 * and leaves the guard at the end of the enclosing block however the
 * block is left (return, break).  Code that must not run nested tests
 * ENTERED; code that runs either way (start-up) just holds the scope. */
#define GUARD_SCOPE(entered)                                                   \
    int entered __attribute__((cleanup(guard_scope_end), unused)) =            \
        guard_enter()

#endif

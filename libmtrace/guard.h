/* guard.h - per-thread recursion guard.  While it is set, every allocation
 * made by this thread goes straight to the real allocator: that covers the
 * tracer's own calls into libc, libunwind, dladdr and the demangler, and a
 * signal handler that allocates while we are inside the tracer.
 * initial-exec TLS: the general-dynamic model reaches the variable through
 * __tls_get_addr, which may itself allocate.  GPL-3.0-or-later. */
#ifndef MT_GUARD_H
#define MT_GUARD_H

extern __thread int mt_in_tracer __attribute__((tls_model("initial-exec")));

static inline int guard_enter(void)
{
    if (mt_in_tracer)
        return 0;
    mt_in_tracer = 1;
    return 1;
}

static inline void guard_leave(void)
{
    mt_in_tracer = 0;
}

static inline int guard_is_set(void)
{
    return mt_in_tracer;
}

#endif

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* shim.c - the exported allocation functions.  Each is a thin wrapper in
 * the manner of glibc's malloc-debug.c: when tracing is off or the thread
 * is already inside the tracer it calls the real allocator and nothing
 * else; otherwise it hands the event to the tracker core.  In sampling mode
 * an allocation the sampler passes over costs no more than the test.
 * Blocks carry no header: our pointers are glibc's.  errno is what the
 * real call left.
 */
#define _GNU_SOURCE
#include "base/chunkwords.h"
#include "base/config.h"
#include "base/export.h"
#include "base/guard.h"
#include "base/real.h"
#include "base/sampler.h"
#include "track/tracer.h"
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#define CALLER __builtin_return_address(0)

static inline int should_trace(void)
{
    return tracer_active() && !guard_is_set();
}

/* The common tail of every allocating wrapper (calloc's blocks are zeroed:
 * it passes CLEAR 0).  The allocator's own words are cleared before the
 * block is recorded (chunkwords.h). */
static void *record_block(void *ptr, size_t size, const void *caller,
                          int clear)
{
    if (ptr) {
        if (clear && mt_config.reach)
            chunkwords_clear_new(ptr, size);
        int saved = errno;
        tracer_on_alloc(ptr, size, caller);
        errno = saved;
    }
    guard_leave();
    return ptr;
}

static void *record_alloc(void *ptr, size_t size, const void *caller)
{
    return record_block(ptr, size, caller, 1);
}

/* The traced halves of malloc and free are functions of their own, so
 * that the untraced path (sampling mode's usual one) is a few instructions
 * and a tail call, with no registers saved; the wrapper tail-calls them,
 * so the unwinder sees no extra frame. */
static __attribute__((noinline)) void *traced_malloc(size_t size,
                                                     const void *caller)
{
    guard_enter();
    return record_alloc(__libc_malloc(size), size, caller);
}

MT_EXPORT void *malloc(size_t size)
{
    if (!should_trace() || !sampler_wants(size))
        return __libc_malloc(size);
    return traced_malloc(size, CALLER);
}

MT_EXPORT void *calloc(size_t nmemb, size_t size)
{
    size_t bytes;
    if (__builtin_mul_overflow(nmemb, size, &bytes))
        bytes = SIZE_MAX; /* fails below, recorded as any big block */
    if (!should_trace() || !sampler_wants(bytes))
        return __libc_calloc(nmemb, size);
    guard_enter();
    /* __libc_calloc checks the overflow: a result means no overflow. */
    return record_block(__libc_calloc(nmemb, size), bytes, CALLER, 0);
}

MT_EXPORT void *memalign(size_t alignment, size_t size)
{
    if (!should_trace() || !sampler_wants(size))
        return __libc_memalign(alignment, size);
    guard_enter();
    return record_alloc(__libc_memalign(alignment, size), size, CALLER);
}

MT_EXPORT void *aligned_alloc(size_t alignment, size_t size)
{
    if (!should_trace() || !sampler_wants(size))
        return real_aligned_alloc(alignment, size);
    guard_enter();
    return record_alloc(real_aligned_alloc(alignment, size), size, CALLER);
}

MT_EXPORT void *valloc(size_t size)
{
    if (!should_trace() || !sampler_wants(size))
        return __libc_valloc(size);
    guard_enter();
    return record_alloc(__libc_valloc(size), size, CALLER);
}

MT_EXPORT void *pvalloc(size_t size)
{
    if (!should_trace())
        return __libc_pvalloc(size);
    /* The size glibc's tracer logs, which its checker prints: glibc 2.36
     * rounds with "& -(pagesize - 1)", so pvalloc(100) is logged as
     * 0x1001, not the 0x1000 it allocates.  The sampler weighs that. */
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t logged = (size + page - 1) & -(page - 1);
    if (!sampler_wants(logged))
        return __libc_pvalloc(size);
    guard_enter();
    return record_alloc(__libc_pvalloc(size), logged, CALLER);
}

MT_EXPORT int posix_memalign(void **memptr, size_t alignment, size_t size)
{
    if (!should_trace() || !sampler_wants(size))
        return real_posix_memalign(memptr, alignment, size);
    guard_enter();
    int err = real_posix_memalign(memptr, alignment, size);
    record_alloc(err ? NULL : *memptr, size, CALLER);
    return err;
}

static __attribute__((noinline)) void traced_free(void *ptr, const void *caller)
{
    guard_enter();
    int saved = errno;
    tracer_on_free(ptr, caller); /* before the real free: causal order */
    errno = saved;
    __libc_free(ptr);
    guard_leave();
}

MT_EXPORT void free(void *ptr)
{
    if (ptr == NULL || !should_trace() || !sampler_may_hold(ptr)) {
        __libc_free(ptr);
        return;
    }
    traced_free(ptr, CALLER);
}

static void *traced_realloc(void *old, size_t size, const void *caller)
{
    if (old == NULL) {
        if (sampler_wants(size))
            return record_alloc(__libc_realloc(NULL, size), size, caller);
        void *r = __libc_realloc(NULL, size);
        guard_leave();
        return r;
    }
    int saved = errno;
    if (size == 0) {
        /* glibc frees the block and returns NULL: a free. */
        tracer_on_free(old, caller);
        errno = saved;
        void *r = __libc_realloc(old, 0);
        guard_leave();
        return r;
    }
    struct realloc_ticket ticket;
    ticket.wanted = sampler_wants(size);
    errno = saved; /* the sampler's first draw may read the clock */
    if (!ticket.wanted && !sampler_may_hold(old)) {
        /* Sampling mode: neither block is recorded. */
        void *r = __libc_realloc(old, size);
        guard_leave();
        return r;
    }
    tracer_realloc_begin(old, caller, &ticket);
    errno = saved;
    void *ptr = __libc_realloc(old, size);
    saved = errno;
    if (ptr && ticket.tracked && mt_config.reach)
        chunkwords_clear_grown(ptr, ticket.old_size, size);
    tracer_realloc_end(old, ptr, size, caller, &ticket);
    errno = saved;
    guard_leave();
    return ptr;
}

MT_EXPORT void *realloc(void *old, size_t size)
{
    if (!should_trace())
        return __libc_realloc(old, size);
    guard_enter();
    return traced_realloc(old, size, CALLER);
}

MT_EXPORT void *reallocarray(void *old, size_t nmemb, size_t size)
{
    size_t bytes;
    if (__builtin_mul_overflow(nmemb, size, &bytes)) {
        errno = ENOMEM;
        return NULL;
    }
    if (!should_trace())
        return __libc_realloc(old, bytes);
    guard_enter();
    return traced_realloc(old, bytes, CALLER);
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mmapwrap.c - mmap, mmap64, munmap and mremap, for MEMLEAK_CONFIG=mmap=1:
 * the anonymous private mappings a program makes become blocks
 * (track/xtrack.h), with stacks and verdicts.  A release is logged before
 * the real call (the address may be handed out again right after);
 * MAP_FIXED over tracked mappings releases what it covers; mremap ends
 * the old range and, when it succeeds, begins the new one with its own
 * stack (as realloc does); a partial munmap leaves the rest of a mapping
 * live with its stack.
 *
 * Never traced: mappings made while the thread is inside libmtrace (its
 * own, libunwind's) or while tracing is off; glibc's malloc and thread
 * stacks map through libc's internal calls, which no wrapper sees.  The
 * real calls are system calls (base/real.h): no lookup, no allocation,
 * usable before any constructor ran.  errno is the real call's.
 */
#define _GNU_SOURCE
#include "base/config.h"
#include "base/export.h"
#include "base/guard.h"
#include "base/real.h"
#include "track/collecting.h"
#include "track/xtrack.h"
#include <errno.h>
#include <stdarg.h>
#include <sys/mman.h>

#define CALLER __builtin_return_address(0)

static inline int should_track(void)
{
    return mt_config.mmap && tracer_active() && !guard_is_set();
}

static int tracked_kind(int prot, int flags)
{
    return (flags & MAP_ANONYMOUS) && (flags & MAP_TYPE) == MAP_PRIVATE &&
           (prot & PROT_READ);
}

static size_t page_round(size_t len)
{
    return (len + 4095) & ~(size_t)4095;
}

static __attribute__((noinline)) void *traced_mmap(void *addr, size_t len,
                                                   int prot, int flags, int fd,
                                                   off_t off,
                                                   const void *caller)
{
    guard_enter();
    if ((flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) == MAP_FIXED)
        xtrack_unmap(addr, page_round(len));
    void *p = real_mmap(addr, len, prot, flags, fd, off);
    int saved = errno;
    if (p != MAP_FAILED && tracked_kind(prot, flags))
        xtrack_map(p, page_round(len), caller);
    errno = saved;
    guard_leave();
    return p;
}

MT_EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd,
                     off_t off)
{
    if (!should_track())
        return real_mmap(addr, len, prot, flags, fd, off);
    return traced_mmap(addr, len, prot, flags, fd, off, CALLER);
}

MT_EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd,
                       off_t off)
{
    if (!should_track())
        return real_mmap(addr, len, prot, flags, fd, off);
    return traced_mmap(addr, len, prot, flags, fd, off, CALLER);
}

MT_EXPORT int munmap(void *addr, size_t len)
{
    if (should_track() && xtrack_have_maps()) {
        guard_enter();
        xtrack_unmap(addr, page_round(len));
        guard_leave();
    }
    return real_munmap(addr, len);
}

MT_EXPORT void *mremap(void *old, size_t old_len, size_t new_len, int flags,
                       ...)
{
    void *new_addr = NULL;
    if (flags & MREMAP_FIXED) {
        va_list ap;
        va_start(ap, flags);
        new_addr = va_arg(ap, void *);
        va_end(ap);
    }
    if (!should_track() || !xtrack_have_maps())
        return real_mremap(old, old_len, new_len, flags, new_addr);
    const void *caller = CALLER;
    guard_enter();
    /* A tracked mapping stays one (a failed call gives the old range
     * back, with this call's stack). */
    size_t tracked = xtrack_unmap(old, page_round(old_len));
    void *p = real_mremap(old, old_len, new_len, flags, new_addr);
    int saved = errno;
    if (tracked)
        xtrack_map(p != MAP_FAILED ? p : old,
                   page_round(p != MAP_FAILED ? new_len : old_len), caller);
    errno = saved;
    guard_leave();
    return p;
}

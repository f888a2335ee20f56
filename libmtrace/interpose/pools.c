/* SPDX-License-Identifier: GPL-3.0-or-later */
/* pools.c - the pool calls of include/memleak.h (memleak_pool_create,
 * _alloc, _free, _destroy), reached through dlsym: a program's own
 * allocator tells libmtrace which blocks it carved from its chunks, and
 * those become blocks like malloc's (track/xtrack.h): stacks, verdicts,
 * reports.  Each call does nothing while collection is off or the thread
 * is inside libmtrace; a pool made then is id 0, whose calls do nothing.
 */
#include "../include/memleak.h"
#include "base/export.h"
#include "base/guard.h"
#include "track/collecting.h"
#include "track/xtrack.h"

#define CALLER __builtin_return_address(0)

MT_EXPORT unsigned long libmtrace_pool_create(const char *name)
{
    GUARD_SCOPE(entered);
    if (!entered || !tracer_active())
        return 0;
    return xtrack_pool_create(name);
}

MT_EXPORT void libmtrace_pool_alloc(unsigned long pool, const void *ptr,
                                    unsigned long size)
{
    const void *caller = CALLER;
    GUARD_SCOPE(entered);
    if (entered && tracer_active() && pool && ptr)
        xtrack_pool_alloc((uint32_t)pool, ptr, size, caller);
}

MT_EXPORT void libmtrace_pool_free(unsigned long pool, const void *ptr)
{
    GUARD_SCOPE(entered);
    if (entered && tracer_active() && pool && ptr)
        xtrack_pool_free((uint32_t)pool, ptr);
}

MT_EXPORT void libmtrace_pool_destroy(unsigned long pool)
{
    GUARD_SCOPE(entered);
    if (entered && tracer_active() && pool)
        xtrack_pool_destroy((uint32_t)pool);
}

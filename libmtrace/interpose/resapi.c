/* SPDX-License-Identifier: GPL-3.0-or-later */
/* resapi.c - memleak.h's resources: memleak_resource_acquire() and
 * memleak_resource_release() reach libmtrace_resource() through dlsym.
 * Each call is one "#r" record with the stack of the program's call
 * (track/resource.h); the checker lists what was never released.
 */
#include "../include/memleak.h"
#include "../include/mtrace-format.h"
#include "base/export.h"
#include "base/guard.h"
#include "track/resource.h"
#include "track/tracer.h"
#include <stdint.h>

MT_EXPORT int libmtrace_resource(int acquire, const char *kind, uintptr_t id)
{
    if (!tracer_active())
        return -1;
    GUARD_SCOPE(entered);
    if (!entered)
        return -1;
    resource_event(acquire ? MTF_RES_ACQUIRE : MTF_RES_RELEASE, kind, id,
                   __builtin_return_address(0));
    return 0;
}

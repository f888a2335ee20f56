/* SPDX-License-Identifier: GPL-3.0-or-later */
/* api.c - the functions include/memleak.h reaches through dlsym.
 */
#include "../include/memleak.h"
#include "base/export.h"
#include "base/guard.h"
#include "scan/report.h"
#include "scan/scan.h"
#include "track/tracer.h"

MT_EXPORT int libmtrace_report(const char *label)
{
    SCAN_ENTRY();
    GUARD_SCOPE(entered);
    if (!entered || !tracer_active())
        return -1;
    return report_write("api", label);
}

MT_EXPORT int libmtrace_live(long *bytes, long *blocks)
{
    if (!tracer_active()) {
        *bytes = *blocks = 0;
        return -1;
    }
    report_live(bytes, blocks);
    return 0;
}

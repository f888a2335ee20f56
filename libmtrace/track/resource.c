/* SPDX-License-Identifier: GPL-3.0-or-later */
/* resource.c - "#r" records (see resource.h).  A record goes straight to
 * the shared log under its lock (tracelog_record), not through the
 * thread's buffer: a release is logged before the resource is given back
 * (close() is called after) and an acquire after it was obtained, so two
 * threads that pass one descriptor number between them log its release
 * before its next acquire.
 */
#include "track/resource.h"
#include "../include/mtrace-format.h"
#include "base/fmt.h"
#include "log/tracelog.h"
#include "symbols/stacktab.h"
#include "track/forkgate.h"
#include "track/tracer.h"
#include <string.h>

#define RECORD_MAX (MTF_RES_KIND_MAX + 64)

/* "#r OP KIND 0xID sSID\n" into LINE; KIND is cut to MTF_RES_KIND_MAX
 * bytes and its bytes that are no printable word characters become '_'. */
static size_t format_record(char *line, char op, const char *kind, uint64_t id,
                            const struct stack *s)
{
    char *p = line;
    memcpy(p, MTF_REC_RESOURCE " ", 3);
    p += 3;
    *p++ = op;
    *p++ = ' ';
    size_t k = 0;
    for (; kind && kind[k] && k < MTF_RES_KIND_MAX; k++) {
        unsigned char c = (unsigned char)kind[k];
        *p++ = c > ' ' && c < 0x7f ? (char)c : '_';
    }
    if (k == 0)
        *p++ = '_';
    *p++ = ' ';
    p = fmt_size(p, id);
    *p++ = ' ';
    *p++ = MTF_STACK_FIELD_PREFIX;
    p = fmt_dec(p, stack_id(s));
    *p++ = '\n';
    return (size_t)(p - line);
}

void resource_events(char op, const char *kind, const uint64_t *ids, int n,
                     const void *caller)
{
    gate_enter();
    struct stack *s = tracer_stack(caller);
    for (int i = 0; s && i < n; i++) {
        char line[RECORD_MAX];
        tracelog_record(s, line, format_record(line, op, kind, ids[i], s));
    }
    gate_leave();
}

void resource_event(char op, const char *kind, uint64_t id, const void *caller)
{
    resource_events(op, kind, &id, 1, caller);
}

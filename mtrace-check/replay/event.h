/* SPDX-License-Identifier: GPL-3.0-or-later */
/* event.h - one event line of the log as both replays read it (engine.c,
 * the serial one, and speculate.c, the parallel one): its fields named as
 * in glibc's Perl script, and whether the log is a trace at all.  The
 * ops' meaning is include/mtrace-format.h's (MTF_OP_*, mtf_op_*): this
 * file and that one are the only places the checker spells it out.
 * Inline: it runs once per line.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#ifndef MTC_EVENT_H
#define MTC_EVENT_H

#include "read/fields.h"
#include "mtrace-format.h"

#include <string.h>

enum { ENGINE_FIELDS = 6 }; /* "@ WHERE op ptr size s<ID>" */

/* The fields of one event line, named as in the script. */
struct event {
    struct slice where; /* $where: "" without "@" */
    struct slice op;    /* $cols[$n] */
    struct slice addr;  /* $allocaddr ("" when missing) */
    struct slice size;  /* $cols[$n + 2] */
    struct slice extra; /* the field after the op's own fields */
    int has_extra;
};

/* Split an event line into the script's fields; returns 0 if it has no op.
 * Inline: it runs once per line. */
static inline int engine_read_event(const struct slice *f, size_t nf,
                                    struct event *ev)
{
    const struct slice empty = { "", 0 };
    size_t n = 0;

    ev->where = empty;
    if (nf > 0 && f[0].n == 1 && f[0].p[0] == '@') {
        ev->where = nf > 1 ? f[1] : empty;
        n = 2;
    }
    if (nf <= n || f[n].n != 1)
        return 0;
    ev->op = f[n];
    ev->addr = nf > n + 1 ? f[n + 1] : empty;
    ev->size = nf > n + 2 ? f[n + 2] : empty;
    /* The stack field follows "+ PTR SIZE", "> PTR SIZE", "- PTR", "< PTR". */
    size_t extra = mtf_op_releases(ev->op.p[0]) ? n + 2 : n + 3;
    ev->has_extra = nf > extra;
    ev->extra = ev->has_extra ? f[extra] : empty;
    return 1;
}

/* "0x" and 1 to 16 hex digits, nothing else: "%p" of a block, "%#lx" of
 * a size ("0" for size 0 when ZERO_OK). */
static inline int engine_hex_word(struct slice s, int zero_ok)
{
    if (zero_ok && s.n == 1 && s.p[0] == '0')
        return 1;
    if (s.n < 3 || s.n > 18 || s.p[0] != '0' || s.p[1] != 'x')
        return 0;
    for (size_t i = 2; i < s.n; i++) {
        char c = s.p[i];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
              (c >= 'A' && c <= 'F')))
            return 0;
    }
    return 1;
}

/* Is this line one that only an mtrace log has: "= Start", or an event
 * written as glibc writes it ("- %p", "+ %p %#lx")?  glibc's checker
 * reads anything and calls an empty file, random bytes, a text file or
 * the program itself "No memory leaks."; a file without such a line (nor
 * a "#v" record) is refused instead (main.c).  Whole fields are checked:
 * in 100 KB of random bytes a line "- 0x0" followed by garbage turns up
 * often enough to matter (a CI run met one). */
static inline int engine_traced(const struct event *ev)
{
    switch (ev->op.p[0]) {
    case MTF_OP_MARK:
        return ev->addr.n == 5 && memcmp(ev->addr.p, "Start", 5) == 0;
    case MTF_OP_FREE:
    case MTF_OP_RE_OLD:
        return engine_hex_word(ev->addr, 0);
    case MTF_OP_ALLOC:
    case MTF_OP_RE_NEW:
    case MTF_OP_RE_FAIL:
        return engine_hex_word(ev->addr, 0) && engine_hex_word(ev->size, 1);
    }
    return 0;
}

#endif

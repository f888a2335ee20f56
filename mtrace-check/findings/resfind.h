/* SPDX-License-Identifier: GPL-3.0-or-later */
/* resfind.h - the resources of a log in the findings (findings.h): what
 * was acquired and never released, grouped by kind and acquiring stack,
 * and the records the replay warned about (a release of a resource never
 * acquired, an acquire of one already held).  Built from the engine's
 * resource table (replay/resources.h) once the log is read.
 *
 * A log that ended in exec (logend.h) lists only descriptors (kind "fd"):
 * those were passed on to the new image; other resources went with the
 * old one, as its memory did.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_RESFIND_H
#define MTC_RESFIND_H

#include "replay/engine.h"
#include "symbolize/stackview.h"

struct res_group {
    const char *kind;
    int32_t stack;   /* -1: no stack recorded */
    uint64_t sid;    /* the log's stack id, when stack >= 0 */
    uint64_t *ids;   /* the resources held, in order of acquisition */
    size_t nids;
    uint64_t first_line; /* of the earliest acquire */
    const struct view_frames *frames; /* NULL: no stack recorded */
};

struct res_warning_view {
    enum res_warn_kind what;
    const char *kind;
    uint64_t id;
    uint64_t line;
    const struct view_frames *frames; /* the record's stack, or NULL */
};

struct res_findings {
    uint64_t records; /* "#r" records read */
    uint64_t held;    /* resources listed below */
    struct res_group *groups; /* by kind, then most resources first */
    size_t ngroups;
    struct res_warning_view *warnings; /* in log order */
    size_t nwarnings;
    /* Private. */
    struct view_frames *views;
    size_t nviews;
};

void resfind_build(struct res_findings *r, struct engine *e);
void resfind_destroy(struct res_findings *r);
/* An id as reports show it: decimal below 65536 (descriptors, small
 * handles), "0x" hex above (pointers).  BUF: 24 bytes. */
const char *resfind_id(uint64_t id, char *buf);

#endif

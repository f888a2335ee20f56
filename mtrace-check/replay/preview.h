/* SPDX-License-Identifier: GPL-3.0-or-later */
/* preview.h - what definitely lost blocks held when the scan saw them: the
 * "#b" records (doc/format.md, "Block previews"), one per allocation
 * stack and scan, each the first bytes of one block and, when its first
 * word pointed into a module, that word as module and offset.
 *
 * Kept by address with the scan they follow; a live block at the end
 * takes the preview of its address when it was allocated before the
 * last scan and the preview is that scan's (the rule of verdict.h).
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_PREVIEW_H
#define MTC_PREVIEW_H

#include "base/maps.h"
#include "replay/table.h"
#include "replay/verdict.h"
#include "mtrace-format.h"

struct block_preview {
    uint64_t scan_line; /* of the "#C scan" it follows */
    unsigned n;         /* bytes[0..n) */
    unsigned char bytes[MTF_PREVIEW_BYTES];
    int has_ref;        /* the first word pointed into module MID */
    uint64_t mid, off;
    /* The class of a C++ object (findings/blockinfo.h), resolved once. */
    int type_done;
    char *type;
};

struct previews {
    struct u64map by_addr; /* address -> struct block_preview * */
    uint64_t bad_records;
};

void previews_init(struct previews *p);
void previews_destroy(struct previews *p);

static inline int previews_is_record(struct slice first)
{
    return first.n == 2 && first.p[0] == '#' && first.p[1] == 'b';
}
/* A "#b" line split into fields F[0..NF); SCAN_LINE: the line of the
 * last "#C scan" (0: none, the record is malformed). */
void previews_record(struct previews *p, const struct slice *f, size_t nf,
                     uint64_t scan_line);

/* The preview of live block B, or NULL (V: the log's verdicts). */
struct block_preview *previews_find(const struct previews *p,
                                    const struct verdicts *v,
                                    const struct block *b);

#endif

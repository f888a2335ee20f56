/* SPDX-License-Identifier: GPL-3.0-or-later */
/* xblocks.h - blocks that are not malloc's (doc/format.md, "Other
 * blocks"): a pool's blocks and anonymous mappings, as the "#b", "#x",
 * "#P" and "#k" records describe them.  glibc's checker ignores these
 * records, and so does the Perl-compatible part of the replay (engine.c's
 * table): they live here, keyed by kind and address, with their stacks,
 * the line that made them live and, after a scan, their verdicts (the
 * rule of verdict.h: a block live at the end and made live before the
 * last "#C scan" is the block that scan saw).  Records reach this module
 * in log order (engine_record), whichever replay runs.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_XBLOCKS_H
#define MTC_XBLOCKS_H

#include "base/maps.h"
#include "read/records.h"
#include "replay/verdict.h"

/* The kinds of block a loss record can hold (findings.h). */
enum block_kind { KIND_MALLOC, KIND_POOL, KIND_MMAP, KIND_COUNT };
const char *block_kind_name(enum block_kind k); /* "malloc", "pool", ... */

struct xblock {
    uint64_t addr, size, line; /* line: of its "#b" */
    int32_t stack;             /* stack index, -1: none */
    uint32_t pool;             /* KIND_POOL: the pool's id */
    enum block_kind kind;
    int live;
};

struct xblocks {
    struct xblock *b; /* live ones have .live; others are free slots */
    size_t n, cap;
    size_t *free_slots; /* indices of dead entries, for reuse */
    size_t nfree, capfree;
    struct u64map by_key; /* kind << 56 | addr -> index + 1 (0: none) */
    struct u64map verdict; /* same key -> struct xverdict * */
    uint64_t verdict_scans; /* the scan the verdicts are of */
    struct u64map pools;    /* pool id -> name (malloc'd) */
    uint64_t live;          /* live blocks */
    uint64_t bad_records;
};

void xblocks_init(struct xblocks *x);
void xblocks_destroy(struct xblocks *x);
static inline int xblocks_is_record(struct slice first)
{
    return first.n == 2 && first.p[0] == '#' &&
           (first.p[1] == 'b' || first.p[1] == 'x' || first.p[1] == 'P' ||
            first.p[1] == 'k');
}
/* A record, LINE[0..LEN) (line NR); EXT resolves stack references, V
 * tells which scan a "#k" belongs to. */
void xblocks_record(struct xblocks *x, struct ext_store *ext,
                    const struct verdicts *v, const char *line, size_t len,
                    uint64_t nr);
/* The class of live block B (verdict.h's rule); *INDIRECT the bytes lost
 * through it. */
enum leak_class xblocks_class(const struct xblocks *x,
                              const struct verdicts *v, const struct xblock *b,
                              uint64_t *indirect);
/* The name given to pool ID ("#P new"), or NULL. */
const char *xblocks_pool_name(const struct xblocks *x, uint32_t id);

#endif

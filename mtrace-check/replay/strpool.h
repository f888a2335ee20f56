/* SPDX-License-Identifier: GPL-3.0-or-later */
/* strpool.h - reference-counted string interning.  A traced program calls
 * malloc from a handful of places, so the WHERE field of millions of events
 * takes only a few distinct values: each live block keeps a small id instead
 * of its own copy, and a string is dropped when its last block is freed, so
 * memory follows the live blocks, not the log.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#ifndef MTC_STRPOOL_H
#define MTC_STRPOOL_H

#include "base/util.h"

struct pool_entry {
    char *str; /* NUL-terminated copy (may contain NULs too) */
    size_t len;
    uint64_t hash;
    uint32_t refs; /* 0: slot is on the free list */
};

struct strpool {
    struct pool_entry *entries; /* indexed by id */
    uint32_t nentries, cap_entries;
    uint32_t *free_ids;
    uint32_t nfree, cap_free;
    uint32_t *slots; /* open addressing: id + 1, 0 = empty */
    size_t nslots;   /* power of two */
    size_t used;
    uint32_t last_id; /* most recent pool_ref: log lines come
	                              * from few callers, in runs */
    int has_last;
};

void pool_init(struct strpool *p);
void pool_destroy(struct strpool *p);

/* Id of S, adding a reference (creating the entry if needed). */
uint32_t pool_ref(struct strpool *p, struct slice s);
/* Another reference to an existing id. */
void pool_addref(struct strpool *p, uint32_t id);
/* Drop a reference; the string goes away with the last one. */
void pool_unref(struct strpool *p, uint32_t id);

struct slice pool_get(const struct strpool *p, uint32_t id);
size_t pool_live(const struct strpool *p);

#endif

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* ownmaps.h - the address ranges libmtrace maps for itself (arena chunks,
 * tables, report scratch).  They hold the address of every live block, so
 * the reachability scan (scan.c) must never take them for roots: every
 * mapping pages_map() makes is entered here, and taken out after it is
 * unmapped (never before: a stopped thread could otherwise leave a table
 * full of block addresses mapped but unlisted). */
#ifndef MT_OWNMAPS_H
#define MT_OWNMAPS_H
#include <stddef.h>
#include <stdint.h>

struct addr_range {
    uintptr_t lo, hi; /* [lo, hi) */
};

void ownmaps_add(const void *p, size_t size);
void ownmaps_remove(const void *p, size_t size);

/* The scan holds the lock while the world is stopped, so that no thread
 * is half-way through an update. */
void ownmaps_lock(void);
void ownmaps_unlock(void);
/* Lock held: the number of ranges, and a copy of at most CAP of them. */
size_t ownmaps_count(void);
size_t ownmaps_copy(struct addr_range *out, size_t cap);

#endif

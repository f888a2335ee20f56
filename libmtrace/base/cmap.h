/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cmap.h - an insert-only hash set with lock-free lookups, for the frame
 * and stack tables.  Lookups (the hot path) take no lock; inserts take a
 * spinlock; growth publishes a new slot array and keeps the old one mapped,
 * since a reader may still be scanning it (the waste is bounded by the
 * final size).  Entries start with struct cmap_entry.  A slot holds an
 * entry's hash next to its pointer, so that a probe reads an entry only
 * when its hash matches. */
#ifndef MT_CMAP_H
#define MT_CMAP_H
#include "base/spin.h"
#include <stddef.h>
#include <stdint.h>

/* The hash is kept in the table's slot, not in the entry. */
struct cmap_entry {
    uint32_t seq; /* 1, 2, ... in insertion order: the entry's id */
};

struct cmap_slots;

struct cmap {
    struct cmap_slots *_Atomic slots;
    spinlock_t lock;
    uint32_t count;
    /* Optional: called under the lock for each new entry, after its seq is
     * set and before any reader can find it. */
    void (*on_insert)(struct cmap_entry *entry);
};

typedef int (*cmap_eq_fn)(const struct cmap_entry *entry, const void *key);

struct cmap_entry *cmap_find(struct cmap *m, uint64_t hash, cmap_eq_fn eq,
                             const void *key);
/* Inserts ENTRY under HASH unless an equal one is there; returns the
 * entry now in the table.  NULL when out of memory. */
struct cmap_entry *cmap_insert(struct cmap *m, struct cmap_entry *entry,
                               uint64_t hash, cmap_eq_fn eq, const void *key);
/* Calls FN on every entry (no lock: entries are never removed). */
void cmap_each(struct cmap *m, void (*fn)(struct cmap_entry *, void *),
               void *arg);
uint32_t cmap_count(struct cmap *m);

#endif

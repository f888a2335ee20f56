/* SPDX-License-Identifier: GPL-3.0-or-later */
/* strpool.c - reference-counted string interning (see strpool.h).
 * Linear probing with backward-shift deletion, so no tombstones pile up in
 * a long run of allocations and frees.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "replay/strpool.h"

#include <stdlib.h>
#include <string.h>

void pool_init(struct strpool *p)
{
    memset(p, 0, sizeof *p);
    p->nslots = 64;
    p->slots = xcalloc(p->nslots, sizeof *p->slots);
}

void pool_destroy(struct strpool *p)
{
    for (uint32_t i = 0; i < p->nentries; i++)
        free(p->entries[i].str);
    free(p->entries);
    free(p->free_ids);
    free(p->slots);
    memset(p, 0, sizeof *p);
}

static void insert_slot(struct strpool *p, uint32_t id)
{
    size_t mask = p->nslots - 1;
    size_t i = p->entries[id].hash & mask;
    while (p->slots[i])
        i = (i + 1) & mask;
    p->slots[i] = id + 1;
}

static void grow_slots(struct strpool *p)
{
    uint32_t *old = p->slots;
    size_t oldn = p->nslots;

    p->nslots *= 2;
    p->slots = xcalloc(p->nslots, sizeof *p->slots);
    for (size_t i = 0; i < oldn; i++)
        if (old[i])
            insert_slot(p, old[i] - 1);
    free(old);
}

static uint32_t new_id(struct strpool *p)
{
    if (p->nfree)
        return p->free_ids[--p->nfree];
    if (p->nentries == p->cap_entries) {
        p->cap_entries = p->cap_entries ? p->cap_entries * 2 : 64;
        p->entries = xrealloc(p->entries, p->cap_entries * sizeof *p->entries);
    }
    return p->nentries++;
}

/* Is S the string of the last id handed out (and is that id still live)? */
static int same_as_last(struct strpool *p, struct slice s)
{
    if (!p->has_last)
        return 0;
    struct pool_entry *e = &p->entries[p->last_id];
    return e->refs && e->len == s.n && bytes_eq(e->str, s.p, s.n);
}

uint32_t pool_ref(struct strpool *p, struct slice s)
{
    if (same_as_last(p, s)) {
        p->entries[p->last_id].refs++;
        return p->last_id;
    }
    uint64_t h = hash_bytes(s.p, s.n);
    size_t mask = p->nslots - 1;

    for (size_t i = h & mask; p->slots[i]; i = (i + 1) & mask) {
        struct pool_entry *e = &p->entries[p->slots[i] - 1];
        if (e->hash == h && e->len == s.n && memcmp(e->str, s.p, s.n) == 0) {
            e->refs++;
            p->last_id = p->slots[i] - 1;
            p->has_last = 1;
            return p->last_id;
        }
    }
    if ((p->used + 1) * 4 > p->nslots * 3)
        grow_slots(p);
    uint32_t id = new_id(p);
    struct pool_entry *e = &p->entries[id];
    e->str = xmemdup0(s.p, s.n);
    e->len = s.n;
    e->hash = h;
    e->refs = 1;
    insert_slot(p, id);
    p->used++;
    p->last_id = id;
    p->has_last = 1;
    return id;
}

void pool_addref(struct strpool *p, uint32_t id)
{
    p->entries[id].refs++;
}

/* Remove the slot holding ID and shift later members of its probe run back
 * so every remaining key stays reachable from its home slot. */
static void delete_slot(struct strpool *p, uint32_t id)
{
    size_t mask = p->nslots - 1;
    size_t i = p->entries[id].hash & mask;

    while (p->slots[i] != id + 1)
        i = (i + 1) & mask;
    for (size_t j = (i + 1) & mask; p->slots[j]; j = (j + 1) & mask) {
        size_t home = p->entries[p->slots[j] - 1].hash & mask;
        /* Move j into the hole at i unless its home lies in (i, j]. */
        if (((j - home) & mask) >= ((j - i) & mask)) {
            p->slots[i] = p->slots[j];
            i = j;
        }
    }
    p->slots[i] = 0;
}

void pool_unref(struct strpool *p, uint32_t id)
{
    struct pool_entry *e = &p->entries[id];

    if (--e->refs)
        return;
    delete_slot(p, id);
    free(e->str);
    e->str = NULL;
    p->used--;
    if (p->nfree == p->cap_free) {
        p->cap_free = p->cap_free ? p->cap_free * 2 : 64;
        p->free_ids = xrealloc(p->free_ids, p->cap_free * sizeof *p->free_ids);
    }
    p->free_ids[p->nfree++] = id;
}

struct slice pool_get(const struct strpool *p, uint32_t id)
{
    return (struct slice){ p->entries[id].str, p->entries[id].len };
}

size_t pool_live(const struct strpool *p)
{
    return p->used;
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cmap.c - see cmap.h.  Linear probing over a power-of-two slot array,
 * kept at most half full.  A slot holds the entry's hash next to the
 * pointer: a probe compares the hash in the slot it has already fetched,
 * and reads an entry (another cache line, usually a miss in a big table)
 * only when the hash matches. */
#include "base/cmap.h"
#include "base/arena.h"
#include <stdatomic.h>

/* HASH is written before ENTRY is published (release), and read after
 * ENTRY (acquire); a slot never changes once set. */
struct cmap_slot {
    uint64_t hash;
    struct cmap_entry *_Atomic entry;
};

struct cmap_slots {
    size_t mask;
    struct cmap_slot slot[];
};

#define INITIAL_SLOTS 1024

static struct cmap_slots *slots_new(size_t n)
{
    struct cmap_slots *s = pages_map(sizeof *s + n * sizeof s->slot[0]);
    if (s)
        s->mask = n - 1;
    return s;
}

static struct cmap_entry *probe(struct cmap_slots *s, uint64_t hash,
                                cmap_eq_fn eq, const void *key,
                                size_t *free_slot)
{
    for (size_t i = hash & s->mask;; i = (i + 1) & s->mask) {
        struct cmap_entry *e = atomic_load_explicit(&s->slot[i].entry,
                                                    memory_order_acquire);
        if (e == NULL) {
            if (free_slot)
                *free_slot = i;
            return NULL;
        }
        if (s->slot[i].hash == hash && eq(e, key))
            return e;
    }
}

struct cmap_entry *cmap_find(struct cmap *m, uint64_t hash, cmap_eq_fn eq,
                             const void *key)
{
    struct cmap_slots *s = atomic_load_explicit(&m->slots,
                                                memory_order_acquire);
    return s ? probe(s, hash, eq, key, NULL) : NULL;
}

/* Publishes E with HASH in slot I; called with the lock held. */
static void fill(struct cmap_slots *s, size_t i, uint64_t hash,
                 struct cmap_entry *e)
{
    s->slot[i].hash = hash;
    atomic_store_explicit(&s->slot[i].entry, e, memory_order_release);
}

static void place(struct cmap_slots *s, uint64_t hash, struct cmap_entry *e)
{
    size_t i = hash & s->mask;
    while (atomic_load_explicit(&s->slot[i].entry, memory_order_relaxed))
        i = (i + 1) & s->mask;
    fill(s, i, hash, e);
}

/* Doubles the slot array; called with the lock held. */
static struct cmap_slots *grow(struct cmap *m, struct cmap_slots *old)
{
    size_t n = old ? (old->mask + 1) * 2 : INITIAL_SLOTS;
    struct cmap_slots *s = slots_new(n);
    if (s == NULL)
        return NULL;
    if (old)
        for (size_t i = 0; i <= old->mask; i++) {
            struct cmap_entry *e = atomic_load_explicit(&old->slot[i].entry,
                                                        memory_order_relaxed);
            if (e)
                place(s, old->slot[i].hash, e);
        }
    atomic_store_explicit(&m->slots, s, memory_order_release);
    return s;
}

struct cmap_entry *cmap_insert(struct cmap *m, struct cmap_entry *entry,
                               uint64_t hash, cmap_eq_fn eq, const void *key)
{
    spin_lock(&m->lock);
    struct cmap_slots *s = atomic_load_explicit(&m->slots,
                                                memory_order_relaxed);
    if (s == NULL || (size_t)(m->count + 1) * 2 > s->mask + 1)
        s = grow(m, s);
    struct cmap_entry *found = NULL;
    if (s) {
        size_t slot;
        found = probe(s, hash, eq, key, &slot);
        if (found == NULL) {
            entry->seq = ++m->count;
            if (m->on_insert)
                m->on_insert(entry);
            fill(s, slot, hash, entry);
            found = entry;
        }
    }
    spin_unlock(&m->lock);
    return found;
}

void cmap_each(struct cmap *m, void (*fn)(struct cmap_entry *, void *),
               void *arg)
{
    struct cmap_slots *s = atomic_load_explicit(&m->slots,
                                                memory_order_acquire);
    if (s == NULL)
        return;
    for (size_t i = 0; i <= s->mask; i++) {
        struct cmap_entry *e = atomic_load_explicit(&s->slot[i].entry,
                                                    memory_order_acquire);
        if (e)
            fn(e, arg);
    }
}

uint32_t cmap_count(struct cmap *m)
{
    return m->count;
}

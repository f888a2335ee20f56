/* SPDX-License-Identifier: GPL-3.0-or-later */
/* maps.c - insert-only hash maps (see maps.h).  Linear probing, load kept
 * under 70%.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "base/maps.h"

#include <stdlib.h>
#include <string.h>

enum { INITIAL_SLOTS = 64 };

void strmap_init(struct strmap *m)
{
    m->nslots = INITIAL_SLOTS;
    m->count = 0;
    m->slots = xcalloc(m->nslots, sizeof *m->slots);
}

void strmap_destroy(struct strmap *m)
{
    for (size_t i = 0; i < m->nslots; i++)
        free(m->slots[i].key);
    free(m->slots);
    memset(m, 0, sizeof *m);
}

static struct strmap_slot *str_lookup(struct strmap *m, struct slice key,
                                      uint64_t h)
{
    size_t mask = m->nslots - 1;
    size_t i = h & mask;

    for (; m->slots[i].key; i = (i + 1) & mask) {
        struct strmap_slot *s = &m->slots[i];
        if (s->hash == h && s->len == key.n &&
            memcmp(s->key, key.p, key.n) == 0)
            return s;
    }
    return &m->slots[i];
}

void **strmap_get(struct strmap *m, struct slice key)
{
    struct strmap_slot *s = str_lookup(m, key, hash_bytes(key.p, key.n));
    return s->key ? &s->value : NULL;
}

static void strmap_grow(struct strmap *m)
{
    struct strmap_slot *old = m->slots;
    size_t oldn = m->nslots;

    m->nslots *= 2;
    m->slots = xcalloc(m->nslots, sizeof *m->slots);
    for (size_t i = 0; i < oldn; i++) {
        if (!old[i].key)
            continue;
        struct slice k = { old[i].key, old[i].len };
        *str_lookup(m, k, old[i].hash) = old[i];
    }
    free(old);
}

void **strmap_put(struct strmap *m, struct slice key)
{
    uint64_t h = hash_bytes(key.p, key.n);
    struct strmap_slot *s = str_lookup(m, key, h);

    if (s->key)
        return &s->value;
    if ((m->count + 1) * 10 > m->nslots * 7) {
        strmap_grow(m);
        s = str_lookup(m, key, h);
    }
    s->key = xmemdup0(key.p, key.n);
    s->len = key.n;
    s->hash = h;
    s->value = NULL;
    m->count++;
    return &s->value;
}

void strmap_each(struct strmap *m, void (*fn)(void *value))
{
    for (size_t i = 0; i < m->nslots; i++)
        if (m->slots[i].key)
            fn(m->slots[i].value);
}

void u64map_init(struct u64map *m)
{
    m->nslots = INITIAL_SLOTS;
    m->count = 0;
    m->slots = xcalloc(m->nslots, sizeof *m->slots);
}

void u64map_destroy(struct u64map *m)
{
    free(m->slots);
    memset(m, 0, sizeof *m);
}

static struct u64map_slot *u64_lookup(struct u64map *m, uint64_t key)
{
    size_t mask = m->nslots - 1;
    size_t i = hash_u64(key) & mask;

    while (m->slots[i].used && m->slots[i].key != key)
        i = (i + 1) & mask;
    return &m->slots[i];
}

void **u64map_get(struct u64map *m, uint64_t key)
{
    struct u64map_slot *s = u64_lookup(m, key);
    return s->used ? &s->value : NULL;
}

void **u64map_put(struct u64map *m, uint64_t key)
{
    struct u64map_slot *s = u64_lookup(m, key);

    if (s->used)
        return &s->value;
    if ((m->count + 1) * 10 > m->nslots * 7) {
        struct u64map_slot *old = m->slots;
        size_t oldn = m->nslots;
        m->nslots *= 2;
        m->slots = xcalloc(m->nslots, sizeof *m->slots);
        for (size_t i = 0; i < oldn; i++)
            if (old[i].used)
                *u64_lookup(m, old[i].key) = old[i];
        free(old);
        s = u64_lookup(m, key);
    }
    s->used = 1;
    s->key = key;
    s->value = NULL;
    m->count++;
    return &s->value;
}

void u64map_each(struct u64map *m, void (*fn)(void *value))
{
    for (size_t i = 0; i < m->nslots; i++)
        if (m->slots[i].used)
            fn(m->slots[i].value);
}

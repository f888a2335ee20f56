/* SPDX-License-Identifier: GPL-3.0-or-later */
/* table.c - live blocks in a dense array behind an open-addressing index
 * (see table.h).
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "replay/table.h"

#include <stdlib.h>
#include <string.h>

enum { INITIAL_SLOTS = 1024, INITIAL_BLOCKS = 256 };

void table_init(struct alloc_table *t)
{
    t->nslots = INITIAL_SLOTS;
    t->found = 0;
    t->vacant = 0;
    t->slots = xcalloc(t->nslots, sizeof *t->slots);
    t->cap = INITIAL_BLOCKS;
    t->count = 0;
    t->blocks = xmalloc(t->cap * sizeof *t->blocks);
}

static void free_key(struct block *b)
{
    if (b->key_len > KEY_INLINE)
        free(b->key.heap);
}

void table_destroy(struct alloc_table *t)
{
    for (size_t i = 0; i < t->count; i++)
        free_key(&t->blocks[i]);
    free(t->blocks);
    free(t->slots);
    memset(t, 0, sizeof *t);
}

void table_clear(struct alloc_table *t)
{
    for (size_t i = 0; i < t->count; i++)
        free_key(&t->blocks[i]);
    memset(t->slots, 0, t->nslots * sizeof *t->slots);
    t->count = 0;
    t->vacant = 0;
}


static uint64_t slot_of(uint64_t hash, size_t pos)
{
    return (hash << 32) | (uint64_t)(pos + 1);
}

static size_t slot_pos(uint64_t slot)
{
    return (size_t)(uint32_t)slot - 1;
}

/* The run position where a slot's key would sit first. */
static size_t slot_home(const struct alloc_table *t, uint64_t slot)
{
    return (size_t)(slot >> 32) & (t->nslots - 1);
}

static void place(struct alloc_table *t, uint64_t hash, size_t pos)
{
    size_t mask = t->nslots - 1;
    size_t i = hash & mask;

    while (t->slots[i])
        i = (i + 1) & mask;
    t->slots[i] = slot_of(hash, pos);
}

/* An insert nearly always follows the table_find that missed the same
 * key: the empty slot that ended its probe is where place() would stop.
 * The hint is good for that one insert only (any change to the index
 * may open an earlier hole in the run). */
static void place_new(struct alloc_table *t, uint64_t hash, size_t pos)
{
    size_t hint = t->vacant;

    t->vacant = 0;
    if (hint && t->vacant_hash == hash && !t->slots[hint - 1])
        t->slots[hint - 1] = slot_of(hash, pos);
    else
        place(t, hash, pos);
}

/* Keep the index at most a quarter full: probe runs stay short. */
static void grow_index(struct alloc_table *t)
{
    t->vacant = 0;
    free(t->slots);
    t->nslots *= 2;
    t->slots = xcalloc(t->nslots, sizeof *t->slots);
    for (size_t i = 0; i < t->count; i++)
        place(t, t->blocks[i].hash, i);
}

/* memcpy of a key of at most KEY_INLINE bytes, without a library call
 * for the 8 to 16 bytes of a pointer: two overlapping 8-byte copies. */
static void copy_short_key(char *to, struct slice key)
{
    if (key.n >= 8 && key.n <= 16) {
        __builtin_memcpy(to, key.p, 8);
        __builtin_memcpy(to + key.n - 8, key.p + key.n - 8, 8);
    } else if (key.n) {
        memcpy(to, key.p, key.n);
    }
}

struct block *table_insert(struct alloc_table *t, struct slice key,
                           uint64_t hash)
{
    if ((t->count + 1) * 4 > t->nslots)
        grow_index(t);
    if (t->count == t->cap) {
        t->cap *= 2;
        t->blocks = xrealloc(t->blocks, t->cap * sizeof *t->blocks);
    }
    struct block *b = &t->blocks[t->count];
    memset(b, 0, sizeof *b);
    b->hash = hash;
    b->key_len = (uint32_t)key.n;
    if (key.n > KEY_INLINE)
        b->key.heap = xmemdup0(key.p, key.n);
    else
        copy_short_key(b->key.inl, key);
    b->stack = -1;
    place_new(t, hash, t->count);
    t->count++;
    return b;
}

/* The index slot that points at block POS: a free usually follows the
 * table_find that returned its block, whose slot is remembered. */
static size_t slot_index(const struct alloc_table *t, size_t pos)
{
    size_t mask = t->nslots - 1;
    size_t i = t->blocks[pos].hash & mask;

    if (t->found < t->nslots && t->slots[t->found] &&
        slot_pos(t->slots[t->found]) == pos)
        return t->found;

    while (slot_pos(t->slots[i]) != pos)
        i = (i + 1) & mask;
    return i;
}

/* Empty slot I and shift later members of its run back, so that every
 * remaining key stays reachable from its home slot. */
static void delete_slot(struct alloc_table *t, size_t i)
{
    size_t mask = t->nslots - 1;

    for (size_t j = (i + 1) & mask; t->slots[j]; j = (j + 1) & mask) {
        size_t home = slot_home(t, t->slots[j]);
        /* Move j into the hole unless its home lies in (i, j]. */
        if (((j - home) & mask) >= ((j - i) & mask)) {
            t->slots[i] = t->slots[j];
            i = j;
        }
    }
    t->slots[i] = 0;
}

void table_remove(struct alloc_table *t, struct block *b)
{
    size_t pos = (size_t)(b - t->blocks), last = t->count - 1;

    free_key(b);
    t->vacant = 0;
    delete_slot(t, slot_index(t, pos));
    if (pos != last) {
        /* Fill the hole with the last block and repoint its slot. */
        size_t s = slot_index(t, last);
        t->blocks[pos] = t->blocks[last];
        t->slots[s] = slot_of(t->blocks[pos].hash, pos);
    }
    t->count--;
}

struct block **table_collect(struct alloc_table *t, size_t *n)
{
    struct block **out = xmalloc(t->count * sizeof *out);

    for (size_t i = 0; i < t->count; i++)
        out[i] = &t->blocks[i];
    *n = t->count;
    return out;
}

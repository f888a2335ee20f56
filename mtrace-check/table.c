/* table.c - open-addressing table of live blocks (see table.h).
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#include "table.h"

#include <stdlib.h>
#include <string.h>

void table_init(struct alloc_table *t)
{
	t->nslots = 1024;
	t->count = 0;
	t->slots = xcalloc(t->nslots, sizeof *t->slots);
}

static void free_key(struct block *b)
{
	if (b->key_len > KEY_INLINE)
		free(b->key.heap);
}

void table_destroy(struct alloc_table *t)
{
	for (size_t i = 0; i < t->nslots; i++)
		if (t->slots[i].used)
			free_key(&t->slots[i]);
	free(t->slots);
	memset(t, 0, sizeof *t);
}

struct slice block_key(const struct block *b)
{
	const char *p = b->key_len > KEY_INLINE ? b->key.heap : b->key.inl;
	return (struct slice){ p, b->key_len };
}

static int key_matches(const struct block *b, struct slice key, uint64_t hash)
{
	if (b->hash != hash || b->key_len != key.n)
		return 0;
	return bytes_eq(block_key(b).p, key.p, key.n);
}

struct block *table_find(struct alloc_table *t, struct slice key, uint64_t hash)
{
	size_t mask = t->nslots - 1;

	for (size_t i = hash & mask; t->slots[i].used; i = (i + 1) & mask)
		if (key_matches(&t->slots[i], key, hash))
			return &t->slots[i];
	return NULL;
}

static struct block *free_slot(struct alloc_table *t, uint64_t hash)
{
	size_t mask = t->nslots - 1;
	size_t i = hash & mask;

	while (t->slots[i].used)
		i = (i + 1) & mask;
	return &t->slots[i];
}

static void grow(struct alloc_table *t)
{
	struct block *old = t->slots;
	size_t oldn = t->nslots;

	t->nslots *= 2;
	t->slots = xcalloc(t->nslots, sizeof *t->slots);
	for (size_t i = 0; i < oldn; i++)
		if (old[i].used)
			*free_slot(t, old[i].hash) = old[i];
	free(old);
}

struct block *table_insert(struct alloc_table *t, struct slice key, uint64_t hash)
{
	if ((t->count + 1) * 10 > t->nslots * 7)
		grow(t);
	struct block *b = free_slot(t, hash);
	memset(b, 0, sizeof *b);
	b->used = 1;
	b->hash = hash;
	b->key_len = (uint32_t)key.n;
	if (key.n > KEY_INLINE)
		b->key.heap = xmemdup0(key.p, key.n);
	else if (key.n)
		memcpy(b->key.inl, key.p, key.n);
	b->stack = -1;
	t->count++;
	return b;
}

void table_remove(struct alloc_table *t, struct block *b)
{
	size_t mask = t->nslots - 1;
	size_t i = (size_t)(b - t->slots);

	free_key(b);
	for (size_t j = (i + 1) & mask; t->slots[j].used; j = (j + 1) & mask) {
		size_t home = t->slots[j].hash & mask;
		/* Shift j back into the hole unless its home lies in (i, j]. */
		if (((j - home) & mask) >= ((j - i) & mask)) {
			t->slots[i] = t->slots[j];
			i = j;
		}
	}
	t->slots[i].used = 0;
	t->count--;
}

struct block **table_collect(struct alloc_table *t, size_t *n)
{
	struct block **out = xmalloc(t->count * sizeof *out);
	size_t k = 0;

	for (size_t i = 0; i < t->nslots; i++)
		if (t->slots[i].used)
			out[k++] = &t->slots[i];
	*n = k;
	return out;
}

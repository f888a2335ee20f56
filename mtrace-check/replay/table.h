/* SPDX-License-Identifier: GPL-3.0-or-later */
/* table.h - the table of live blocks, keyed by the address *string* of
 * the log.  The Perl checker keys its hash by the field text, so "0x10"
 * and "0x010" are different blocks there and must be here too; short keys
 * (every real pointer) are stored inline.
 *
 * Layout: the blocks sit in a dense array; an open-addressing index of
 * 8-byte slots (linear probing, kept at most a quarter full) points into
 * it.  A slot holds the low 32 bits of the key's hash next to the block's
 * position, so a probe reads one small slot and touches a block only on a
 * likely match.  Removal shifts later slots of the run back (no
 * tombstones) and moves the last block into the hole, so the table holds
 * exactly the live blocks and memory follows them, not the log.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_TABLE_H
#define MTC_TABLE_H

#include "base/util.h"

enum { KEY_INLINE = 24 };

struct block {
    uint64_t hash;
    union {
        char inl[KEY_INLINE];
        char *heap;
    } key;
    uint32_t key_len;
    int32_t stack;  /* stack index, -1 when the log gave none */
    uint64_t size;  /* hex() of the size field */
    uint64_t line;  /* line number of the allocation */
    uint32_t where; /* string pool id of the WHERE field */
    uint8_t spec;   /* speculate.c's state of the address; 0 elsewhere */
};

struct alloc_table {
    struct block *blocks; /* dense: blocks[0 .. count) */
    size_t count, cap;
    uint64_t *slots;      /* 0 empty, else hash low 32 << 32 | pos + 1 */
    size_t nslots;        /* power of two */
    size_t found;         /* slot of the last table_find hit */
    size_t vacant;        /* 1 + the empty slot its last miss ended at, or 0 */
    uint64_t vacant_hash; /* the hash of that miss */
};

void table_init(struct alloc_table *t);
void table_destroy(struct alloc_table *t);
/* Empty the table, keeping its memory for the next use. */
void table_clear(struct alloc_table *t);

static inline struct slice block_key(const struct block *b)
{
    const char *p = b->key_len > KEY_INLINE ? b->key.heap : b->key.inl;
    return (struct slice){ p, b->key_len };
}

/* The block of KEY (whose hash_bytes is HASH), or NULL.  Inline: it runs
 * for every event line. */
static inline struct block *table_find(struct alloc_table *t, struct slice key,
                                       uint64_t hash)
{
    size_t mask = t->nslots - 1;
    uint64_t tag = hash << 32;

    size_t i;
    for (i = hash & mask; t->slots[i]; i = (i + 1) & mask) {
        uint64_t s = t->slots[i];
        if ((s & ~(uint64_t)UINT32_MAX) != tag)
            continue;
        struct block *b = &t->blocks[(size_t)(uint32_t)s - 1];
        if (b->key_len == key.n && bytes_eq(block_key(b).p, key.p, key.n)) {
            t->found = i;
            return b;
        }
    }
    t->vacant = i + 1;
    t->vacant_hash = hash;
    return NULL;
}
/* Insert a key known to be absent; the caller fills the other fields.
 * Pointers into the table are invalidated by the next insert or remove. */
struct block *table_insert(struct alloc_table *t, struct slice key,
                           uint64_t hash);
void table_remove(struct alloc_table *t, struct block *b);

/* Pointers to every live block; caller frees the array. */
struct block **table_collect(struct alloc_table *t, size_t *n);

#endif

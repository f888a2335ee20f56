/* SPDX-License-Identifier: GPL-3.0-or-later */
/* maps.h - two small insert-only hash maps used for caches and id lookups:
 * strmap (byte-string key -> pointer) and u64map (64-bit key -> pointer).
 * Neither ever deletes: they hold things that live until the end (cache
 * entries, module and stack records), whose number follows distinct values
 * in the log, not its length.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#ifndef MTC_MAPS_H
#define MTC_MAPS_H

#include "base/util.h"

struct strmap_slot {
    char *key; /* owned copy, NUL-terminated */
    size_t len;
    uint64_t hash;
    void *value;
};

struct strmap {
    struct strmap_slot *slots;
    size_t nslots, count;
};

void strmap_init(struct strmap *m);
/* Frees the keys; values belong to the caller (see strmap_each). */
void strmap_destroy(struct strmap *m);
/* Address of the value slot for KEY, or NULL if absent. */
void **strmap_get(struct strmap *m, struct slice key);
/* Address of the value slot for KEY, created (NULL) if absent. */
void **strmap_put(struct strmap *m, struct slice key);
void strmap_each(struct strmap *m, void (*fn)(void *value));

struct u64map_slot {
    uint64_t key;
    void *value;
    int used;
};

struct u64map {
    struct u64map_slot *slots;
    size_t nslots, count;
};

void u64map_init(struct u64map *m);
void u64map_destroy(struct u64map *m);
void **u64map_get(struct u64map *m, uint64_t key);
void **u64map_put(struct u64map *m, uint64_t key);
void u64map_each(struct u64map *m, void (*fn)(void *value));

#endif

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* arena.h - memory for the tracer's own tables, taken from mmap so the
 * tracer never calls malloc and never shows up in the traced heap.
 */
#ifndef MT_ARENA_H
#define MT_ARENA_H
#include <stddef.h>

/* Zeroed, 16-byte aligned, never freed (stacks and frames live as long as
 * the process).  Returns NULL when the system has no memory left. */
void *arena_alloc(size_t size);
/* Copy of a string into the arena. */
char *arena_strdup(const char *s);

/* Large zeroed mappings for tables that grow and shrink. */
void *pages_map(size_t size);
/* The same, faulted in before it returns: for tables written all over at
 * once. */
void *pages_map_populated(size_t size);
void pages_unmap(void *p, size_t size);

void arena_lock_for_fork(void);
void arena_unlock_after_fork(void);

#endif

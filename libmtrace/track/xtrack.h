/* SPDX-License-Identifier: GPL-3.0-or-later */
/* xtrack.h - the events of blocks that are not malloc's (xblocks.h):
 * pools (memleak.h's client API) and anonymous private mappings
 * (MEMLEAK_CONFIG=mmap=1), into the table and the log.  The interposers
 * (interpose/pools.c, interpose/mmapwrap.c) call these with the recursion
 * guard set and only while tracer_active().
 *
 * Order in the log: a block's "#b" line carries a tag (threadlog.h) kept
 * in the table; its "#x" (or its pool's "#P destroy") waits for that
 * line to be out, and is itself handed to the shared log at once, before
 * the memory can be reused by another thread (a mapping's release is
 * logged before the real munmap), so no reader meets an address live
 * twice.  GPL-3.0-or-later. */
#ifndef MT_XTRACK_H
#define MT_XTRACK_H
#include <stddef.h>
#include <stdint.h>

/* A new pool's id (never 0, never reused in a process), "#P new". */
uint32_t xtrack_pool_create(const char *name);
/* Block [PTR, PTR+SIZE) of pool POOL, allocated from CALLER.  A block
 * already live at PTR in any pool ends first (the program reused it
 * without telling). */
void xtrack_pool_alloc(uint32_t pool, const void *ptr, size_t size,
                       const void *caller);
void xtrack_pool_free(uint32_t pool, const void *ptr);
/* Every block of POOL ends: "#P destroy". */
void xtrack_pool_destroy(uint32_t pool);

/* A mapping [PTR, PTR+LEN) made from CALLER. */
void xtrack_map(const void *ptr, size_t len, const void *caller);
/* [PTR, PTR+LEN) goes away (munmap, MAP_FIXED over it, mremap's old
 * range): the tracked mappings it covers end, the parts of them outside
 * it stay, with their stacks.  Before the real call.  Returns how many
 * tracked mappings it touched. */
size_t xtrack_unmap(const void *ptr, size_t len);
/* Tracked mappings exist (a cheap test before xtrack_unmap). */
int xtrack_have_maps(void);

#endif

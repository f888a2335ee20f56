/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mainarena.h - glibc's main arena, which is no root.
 *
 * glibc's allocator keeps each arena's bookkeeping in a struct
 * malloc_state: the free-list heads (fastbins and bins), the top chunk,
 * the last remainder and the list of arenas.  A thread arena keeps it at
 * the start of its heap, which is no root (roots.c); the main arena's is
 * a variable in libc's own data, which is.  Its words point at chunks,
 * and one of them outlives its chunk: last_remainder, the rest of the
 * last small request cut from a bigger free chunk, is never cleared.
 * Once that rest is freed, merged with its neighbour and handed out again
 * as part of a bigger block, last_remainder points into the middle of
 * that block, and a leak there was "possibly lost" (valgrind: definitely;
 * its allocator's bookkeeping is not in the program's memory).  None of
 * these words is the program's: the whole struct is taken out of the
 * roots.
 *
 * libc exports no name for it, so it is found by its shape, in libc's
 * writable segments: 127 bin heads (two words each) at a 16-byte stride,
 * each either empty (both words point at the head itself, 16 bytes
 * before its first word) or holding chunks (both words point elsewhere,
 * at 16-byte aligned chunks), and the arena list through each arena's
 * "next" word coming back to it.  The layout is glibc's since 2.27 on
 * x86-64.  Found once and kept: the struct never moves. */
#ifndef MT_MAINARENA_H
#define MT_MAINARENA_H
#include "base/ownmaps.h"
#include "scan/mark.h"

/* Once, when collection starts: libc's writable segments (roots.c asks
 * the loader). */
void mainarena_init(const struct addr_range *libc, size_t n);

/* With the world stopped (no loader call): the main arena's struct, read
 * in MAPS (the readable mappings, sorted).  Returns 0 and sets *OUT, or
 * -1 when it is not found (another allocator, a libc of another layout,
 * or malloc never called). */
int mainarena_find(const struct map_info *maps, size_t nmaps,
                   struct addr_range *out);

#endif

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* livetab.h - the blocks allocated while tracing and not yet freed: the
 * address, size and allocation stack of each.  It decides which frees are
 * logged, gives a fork child the blocks it inherits and feeds reports.
 * 16 bytes a block, in one table per 64 KiB of heap kept at most 3/4
 * full (neighbouring blocks stay in the cache together); sharded by
 * address so threads rarely meet on a lock.
 *
 * It also keeps what threadlog.h needs to order the log across threads:
 * each block remembers the tag of its allocation line, and a freed block
 * stays in the table as a "freed" entry with the tag of its free line
 * until that line is out (or the address is allocated again, when the
 * caller gets the tag back).  GPL-3.0-or-later. */
#ifndef MT_LIVETAB_H
#define MT_LIVETAB_H
#include <stddef.h>
#include <stdint.h>

/* The stack id of a block a fork child inherited (stack ids start at 1):
 * it is not the child's, so its free is not logged and it is never
 * reported, but it stays in the table as part of the heap. */
#define LIVE_STACK_INHERITED 0u
/* In a fork child: every block in the table becomes inherited. */
void livetab_disown_all(void);

/* Enters a block whose allocation line carries TAG (0: no line).  Returns
 * the tag of the line that freed the same address, when the table still
 * holds it (the new "+" must not precede it in the log), else 0. */
uint32_t livetab_insert_tagged(uintptr_t ptr, size_t size, uint32_t stack,
                               uint32_t tag);

/* livetab_insert_tagged(PTR, SIZE, STACK, 0) for a live log's new block
 * (log/livelog.h): it waits in a small nursery, and goes into the tables
 * only if it outlives its place there (livetab.c).  Returns 0. */
uint32_t livetab_insert_young(uintptr_t ptr, size_t size, uint32_t stack);
enum {
    LIVE_ABSENT,         /* not a block allocated while tracing          */
    LIVE_FOUND,          /* removed; the free is remembered (or untagged) */
    LIVE_FOUND_UNMARKED, /* removed, but the free could not be remembered:
                              its line must be out before the real free    */
};
/* Removes PTR.  FREE_TAG (nonzero) is the tag of the free line: the
 * address is remembered as freed by it.  On success *SIZE, *STACK and
 * *ALLOC_TAG describe the block. */
int livetab_remove_tagged(uintptr_t ptr, size_t *size, uint32_t *stack,
                          uint32_t *alloc_tag, uint32_t free_tag);

/* Where a removal left its freed entry: a realloc that keeps its block
 * where it was puts it back there without hashing and probing again
 * (72% of bench/wl's reallocs). */
struct livetab_spot {
    void *shard; /* NULL: no freed entry was left */
    const void *table;
    size_t index;
    uint64_t word; /* the freed entry as written */
};
/* Whether PTR is a block in the table (not a freed entry); its *SIZE and
 * *STACK then.  The table is left as it is. */
int livetab_lookup(uintptr_t ptr, size_t *size, uint32_t *stack);

/* livetab_remove_tagged, noting in *SPOT where the freed entry is. */
int livetab_remove_at(uintptr_t ptr, size_t *size, uint32_t *stack,
                      uint32_t *alloc_tag, uint32_t free_tag,
                      struct livetab_spot *spot);
/* livetab_insert_tagged of the address SPOT's removal took out, in its
 * slot when nothing has touched it since (else as an ordinary insert). */
uint32_t livetab_reinsert(const struct livetab_spot *spot, uintptr_t ptr,
                          size_t size, uint32_t stack, uint32_t tag);

/* Untagged forms (no log lines to order). */
void livetab_insert(uintptr_t ptr, size_t size, uint32_t stack);
/* Removes PTR; returns 1 and its size and stack when it was there. */
int livetab_remove(uintptr_t ptr, size_t *size, uint32_t *stack);

/* Live blocks (freed entries are not counted). */
size_t livetab_count(void);
/* Chunks (64 KiB of heap each) that have a table, live or not: bounded by
 * the heap in use, not by the addresses ever used.  Only where no other
 * thread can change the table (as livetab_each). */
size_t livetab_chunks(void);
/* Visits every live block.  Only where no other thread can change the
 * table: in a fork child, or with livetab_lock_all() held. */
void livetab_each(void (*fn)(uintptr_t ptr, size_t size, uint32_t stack,
                             void *arg),
                  void *arg);
void livetab_lock_all(void);
void livetab_unlock_all(void);

/* A live log (log/livelog.h) tags no line: an entry's tag then says
 * whether the block's "+" line is in the log.  Blocks enter with tag 0;
 * livetab_each_unwritten visits the live blocks still at 0 (not those a
 * fork child inherited) and sets their tag to LIVE_TAG_WRITTEN, which a
 * removal then hands back as the block's tag.  Only with
 * livetab_lock_all() held (or in a fork child). */
#define LIVE_TAG_WRITTEN 1u
void livetab_each_unwritten(void (*fn)(uintptr_t ptr, size_t size,
                                       uint32_t stack, void *arg),
                            void *arg);

#endif

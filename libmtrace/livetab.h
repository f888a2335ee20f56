/* livetab.h - the blocks allocated while tracing and not yet freed: the
 * address, size and allocation stack of each.  It decides which frees are
 * logged, gives a fork child the blocks it inherits and feeds reports.
 * 16 bytes a block in a table kept at most 3/4 full; sharded by address
 * so threads rarely meet on a lock.  GPL-3.0-or-later. */
#ifndef MT_LIVETAB_H
#define MT_LIVETAB_H
#include <stddef.h>
#include <stdint.h>

void livetab_insert(uintptr_t ptr, size_t size, uint32_t stack);
/* Starts loading PTR's slot into the cache, so that a later insert does
 * not wait for memory (the table is far larger than the cache). */
void livetab_prefetch(uintptr_t ptr);
/* Removes PTR; returns 1 and its size and stack when it was there. */
int livetab_remove(uintptr_t ptr, size_t *size, uint32_t *stack);
size_t livetab_count(void);
/* Visits every block.  Only where no other thread can change the table:
 * in a fork child, or with livetab_lock_all() held. */
void livetab_each(void (*fn)(uintptr_t ptr, size_t size, uint32_t stack,
                             void *arg), void *arg);
void livetab_lock_all(void);
void livetab_unlock_all(void);

#endif

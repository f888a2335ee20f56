/* SPDX-License-Identifier: GPL-3.0-or-later */
/* heapwalk.h - the heap blocks that were live when collection started.
 * libmtrace knows only the blocks allocated while it collects; a program
 * that calls mtrace() after it allocated (C++ static constructors, a
 * container reserved before, a library's set-up) keeps pointers to new
 * blocks in old ones, and the reachability scan must walk through those
 * or call the new blocks lost.  So when collection starts, glibc's heaps
 * are walked chunk by chunk and the chunks in use are remembered; at each
 * scan those that are still in use, with the same header, are walked
 * through (never reported).  A chunk freed before collection started
 * that waits in a tcache or fastbin looks in use: its old contents are
 * scanned too, which can only make a lost block look reachable.
 * GPL-3.0-or-later. */
#ifndef MT_HEAPWALK_H
#define MT_HEAPWALK_H
#include <stddef.h>
#include <stdint.h>

/* When collection starts, before any allocation is collected (raw system
 * calls, memory from pages_map). */
void heapwalk_snapshot(void);
size_t heapwalk_count(void);
/* Calls FN for each remembered chunk that is still in use as it was
 * (the world stopped, or the livetab locked: headers are read). */
void heapwalk_each_live(void (*fn)(uintptr_t start, uint64_t size, void *arg),
                        void *arg);

#endif

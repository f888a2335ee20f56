/* SPDX-License-Identifier: GPL-3.0-or-later */
/* debug.h - the library's invariants as code.  A debug build (make
 * DEBUG=1, which defines MT_DEBUG) checks them and aborts with the place
 * of the first one broken; a normal build compiles them to nothing.
 *
 * Lock order.  Every lock of the library has a rank, and a thread takes
 * locks in increasing rank only (so no two threads can wait for each
 * other).  The order, outermost first:
 *   control (control.c) < report (report.c) < a thread's log buffer
 *   (threadlog.c) < the shared log (tracelog.c) < the stack table's map
 *   < the frame table's map < the module map < the live table's shards
 *   < its side list < the arena < the thread records' free list
 *   < the registry of libmtrace's own mappings (ownmaps.c) < the
 *   compressed log's queue (zstdlog.c).
 * The queue's lock is innermost: no other lock is ever taken under it,
 * and the reachability scan fills the log (and so may hand the queue a
 * buffer) while it holds the live table and the registry.
 * The loader's own lock (dl_iterate_phdr, dladdr, dlopen) ranks above the
 * log and below the module map: loader calls are made with no lock of
 * rank log or below held (tracer.c, frametab.c), and the module map's
 * lock is taken inside dl_iterate_phdr's callback.  GPL-3.0-or-later. */
#ifndef MT_DEBUG_H
#define MT_DEBUG_H

enum lock_rank {
    LOCK_RANK_NONE, /* not checked */
    LOCK_RANK_CONTROL,
    LOCK_RANK_REPORT,
    LOCK_RANK_OFFLOAD, /* the ring's stop (track/offload.h); fork's prepare
                          may hold the report lock */
    LOCK_RANK_BUFFER,
    LOCK_RANK_LOG,
    LOCK_RANK_STACKS,
    LOCK_RANK_FRAMES,
    LOCK_RANK_MODMAP,
    LOCK_RANK_LIVE,
    LOCK_RANK_SIDE,
    LOCK_RANK_XBLOCKS, /* blocks that are not malloc's (track/xblocks.h) */
    LOCK_RANK_ARENA,
    LOCK_RANK_THREADS,
    LOCK_RANK_OWNMAPS,
    LOCK_RANK_ZSTD,
};

#ifdef MT_DEBUG
void debug_assert_fail(const char *what, const char *file, int line)
    __attribute__((noreturn));
#define MT_ASSERT(cond)                                                        \
    ((cond) ? (void)0 : debug_assert_fail(#cond, __FILE__, __LINE__))
/* The calling thread takes / lets go of a lock of rank RANK. */
void lock_rank_take(enum lock_rank rank, const char *file, int line);
void lock_rank_drop(enum lock_rank rank);
/* True when the calling thread holds a lock of rank RANK. */
int lock_rank_held(enum lock_rank rank);
#define LOCK_RANK_TAKE(rank) lock_rank_take(rank, __FILE__, __LINE__)
#define LOCK_RANK_DROP(rank) lock_rank_drop(rank)
#define MT_ASSERT_HELD(rank) MT_ASSERT(lock_rank_held(rank))
#else
#define MT_ASSERT(cond) ((void)0)
#define LOCK_RANK_TAKE(rank) ((void)(rank))
#define LOCK_RANK_DROP(rank) ((void)(rank))
#define MT_ASSERT_HELD(rank) ((void)(rank))
#endif

#endif

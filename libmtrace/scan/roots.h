/* SPDX-License-Identifier: GPL-3.0-or-later */
/* roots.h - where the reachability scan starts: the memory a program can
 * reach without going through a heap block.
 *   - every thread's registers and its live stack (from the stack pointer
 *     it was stopped at, red zone included, to the top of its stack), the
 *     scanning thread's too; a sigaltstack only from the stack pointer of
 *     a handler running on it now (the frames of handlers that returned
 *     are dead, as below any stack pointer);
 *   - static TLS and the thread descriptor of each thread (values of
 *     pthread_setspecific live there), and the DTV, whose address the
 *     descriptor keeps one entry past its start (so it is a root value);
 *     dynamic TLS blocks hang off the DTV by their start;
 *   - the writable segments of every loaded module, libc's and ld.so's
 *     included (link maps, scope arrays, dlerror state, stdio...), but
 *     for glibc's main arena, the allocator's own words (mainarena.h);
 *   - writable anonymous mappings that are not malloc's (its arena heaps,
 *     its mmapped chunks) nor thread stacks (whose dead part below the
 *     stack pointer is not a root); a stack glibc keeps for reuse counts
 *     by its thread descriptor only.  A mapping tracked as a block
 *     (MEMLEAK_CONFIG=mmap=1, track/xblocks.h) is no root: scan.c lists
 *     it with libmtrace's own memory, which settle() takes out.
 * libmtrace's own memory is never a root: its mappings (ownmaps.h), its
 * module's segments, the scan's scratch and its own threads' stacks.
 *
 * The loader is asked once, when collection starts (roots_init): never
 * during a scan (a stopped thread may hold its lock; a fork child may not
 * call it).  roots_collect() reads /proc/self/maps with raw system calls
 * (maps.h) while the world is stopped.  GPL-3.0-or-later. */
#ifndef MT_ROOTS_H
#define MT_ROOTS_H
#include "scan/mark.h"
#include "base/ownmaps.h"
#include "scan/stopworld.h"

/* What the loader and libc told when collection started. */
struct roots_plan {
    struct addr_range ownseg[8]; /* libmtrace.so's writable segments    */
    size_t nownseg;
    size_t tls_static_size; /* ld.so's static TLS size (0: unknown)     */
    size_t sizeof_pthread;  /* from libc's thread_db data (0: unknown)  */
    long tid_offset;        /* of struct pthread's tid, -1: unknown     */
};

/* The scanning thread itself. */
struct scanner_self {
    int is_own_thread; /* a thread of libmtrace's: not a root          */
    uintptr_t sp, tp;
    const uintptr_t *regs;
    size_t nregs;
    uintptr_t alt_lo, alt_hi; /* its sigaltstack, if any               */
    uintptr_t ip; /* where a signal interrupted it (scan_set_exit_context):
                   * SP is then the interrupted one, with a red zone */
};

struct roots {
    struct addr_range *ranges; /* to scan, sorted, disjoint             */
    size_t nranges, capranges;
    uintptr_t *values; /* single root words (registers, DTVs)           */
    size_t nvalues, capvalues;
    struct map_info *maps; /* readable mappings, sorted                 */
    size_t nmaps, capmaps;
    /* The threads' sigaltstacks: what a handler left there is no root,
     * and a block that is one is never scanned (mark_opaque), only the
     * live part of a stack a handler runs on now (in RANGES). */
    struct addr_range *alts;
    size_t nalts, capalts;
    uint64_t root_bytes;
};

/* Once, when collection starts (dlsym, dl_iterate_phdr; the guard is
 * set): the thread layout and libmtrace's own segments. */
void roots_init(void);
int roots_prepare(struct roots_plan *p);

/* libmtrace's own ranges, asked for once /proc/self/maps is read (the
 * scan's own scratch may grow until then): COPY fills OUT with at most
 * CAP ranges (any order) and returns how many there are in all. */
struct own_memory {
    size_t (*copy)(struct addr_range *out, size_t cap, void *ctx);
    void *ctx;
    const uintptr_t *stacks; /* an address on each of our threads' stacks */
    size_t nstacks;
};

/* Returns 0, or -1 when /proc/self/maps cannot be read or memory runs
 * out. */
int roots_collect(struct roots *r, const struct roots_plan *p,
                  const struct world *w, const struct blockset *bs,
                  const struct scanner_self *me, const struct own_memory *own,
                  const struct scratch_ops *ops);
void roots_free(struct roots *r, const struct scratch_ops *ops);

/* Sorts ranges by start (in place, no memory); ranges_merge also joins
 * overlapping and touching ones and returns how many are left. */
void ranges_sort(struct addr_range *r, size_t n);
size_t ranges_merge(struct addr_range *r, size_t n);

#endif

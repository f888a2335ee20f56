/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mark.h - the flood fill of the reachability scan: a table of the live
 * blocks built for the scan (sorted by start, found through a page index
 * and a short binary search: no per-pointer hashing of the hot path), and
 * a conservative mark over aligned words, interior pointers included,
 * iterative (an explicit stack of at most one entry per block).
 *
 * The states follow valgrind's memcheck: a block is REACHABLE when a
 * start pointer (or an interior pointer a C++ heuristic accepts, see
 * classify.h) leads to it from a root or from a REACHABLE block, POSSIBLE
 * when only interior pointers or POSSIBLE blocks lead to it, and
 * UNREACHED otherwise; classify.c then splits the UNREACHED into directly
 * and indirectly lost.  The result does not depend on the order blocks
 * are visited in (states only rise, and each rise rescans the block), so
 * the mark visits them in the order that hides memory latency best: a
 * block's memory and the index entries of the pointers found in it are
 * prefetched several steps before they are used.
 *
 * The module knows nothing of the tracer: the unit tests run it on
 * synthetic graphs.  GPL-3.0-or-later. */
#ifndef MT_MARK_H
#define MT_MARK_H
#include <stddef.h>
#include <stdint.h>

enum block_state {
    BLOCK_UNREACHED = 0, /* after classify: directly lost             */
    BLOCK_POSSIBLE = 1,
    BLOCK_REACHABLE = 2,
    BLOCK_INDIRECT = 3, /* set by classify: reached from lost blocks */
};
#define BLOCK_STATE_MASK 3u
#define BLOCK_PENDING 4u /* on the mark stack                          */
#define BLOCK_FOREIGN                                                          \
    8u                      /* inherited by a fork child: walked through,
                              never reported                             */
#define BLOCK_HEURISTIC 16u /* reachable only through a heuristic pointer */
/* Allocated by the dynamic loader for its own bookkeeping (link maps,
 * scopes, TLS blocks, _dl_find_object's segments).  ld.so keeps some only
 * by an aligned pointer into them: any pointer reaches such a block.  Its
 * tables keep entries of unloaded modules past their used length: its
 * words reach other blocks only by their start.  LeakSanitizer treats
 * the loader's blocks as roots. */
#define BLOCK_LOADER 32u
/* A block that is not malloc's (track/xblocks.h): a pool's block, carved
 * from a chunk of the program's allocator, or an anonymous mapping
 * (mmap=1).  A block that holds the start of a pool block is that pool's
 * chunk: it is left out of the set (blockset_finish), so it is neither
 * scanned nor reported while it holds live pool blocks, as valgrind
 * leaves a MEMPOOL's superblocks out.  A mapping's memory is read
 * carefully (a page may have lost PROT_READ since), and no C++
 * heuristic or malloc chunk rule applies to either kind. */
#define BLOCK_KIND_POOL 64u
#define BLOCK_KIND_MMAP 128u
#define BLOCK_KIND_MASK (BLOCK_KIND_POOL | BLOCK_KIND_MMAP)

/* Memory for the table comes from the caller (the tracer maps its own;
 * the unit tests use malloc).  MAP returns zeroed memory or NULL. */
struct scratch_ops {
    void *(*map)(size_t size, void *ctx);
    void (*unmap)(void *p, size_t size, void *ctx);
    void *ctx;
};

/* A readable mapping, for the multiple-inheritance heuristic (is this
 * word the address of a vtable?). */
struct map_info {
    uintptr_t lo, hi;
    unsigned flags; /* MAPF_* */
};
#define MAPF_READ 1u
#define MAPF_WRITE 2u
#define MAPF_EXEC 4u
#define MAPF_FILE 8u /* backed by a file (a module's segments are) */

/* The mapping of MAPS (N, sorted and disjoint) holding A, or NULL. */
const struct map_info *map_info_find(const struct map_info *maps, size_t n,
                                     uintptr_t a);
/* Whether [A, A + LEN) lies in one readable mapping of MAPS, A aligned to
 * a word. */
int map_info_readable(const struct map_info *maps, size_t n, uintptr_t a,
                      size_t len);

/* One block: everything the mark needs in 16 bytes, so that a lookup
 * costs one cache miss.  The flags (state and BLOCK_*) sit in the top
 * byte of the start's word (user addresses have 47 bits). */
struct blk {
    uint64_t word;
    uint32_t size; /* BLK_BIG: 4 GiB or more, see bs->bigsize */
    uint32_t stack;
};
#define BLK_FLAG_SHIFT 56
#define BLK_ADDR_MASK ((1ull << BLK_FLAG_SHIFT) - 1)
#define BLK_BIG UINT32_MAX

struct page_slot;
struct big_size {
    uintptr_t start;
    uint64_t size;
};

struct blockset {
    size_t n, cap;
    struct blk *b;      /* sorted by start once blockset_finish() ran */
    uint32_t *leader;   /* classify: the lost block heading the clique */
    uint64_t *indirect; /* classify: bytes lost through this leader    */
    uint32_t *markstack;
    size_t top;
    uintptr_t lo, hi; /* lowest start, highest end                    */
    /* Page index: for each page overlapped by a block, the range of
     * indices of the blocks overlapping it.  Blocks over BIG_PAGES pages
     * are kept apart in BIG (indices, sorted). */
    struct page_slot *pages;
    size_t page_mask;
    uint32_t *big;
    size_t nbig;
    struct big_size *bigsize; /* exact sizes of the BLK_BIG blocks     */
    size_t nbigsize;
    /* Reading memory: directly, or through process_vm_readv when some
     * thread could not be stopped (memory may then vanish under us). */
    int careful;
    char *bounce;
    /* Heuristic help: the process's readable mappings, sorted. */
    const struct map_info *maps;
    size_t nmaps;
    int heuristics; /* on by default */
    uint64_t bytes_scanned;
    struct scratch_ops ops;
    size_t mapped_bytes; /* what the table took, for the report */
    struct blk *sort_tmp;
};

/* Room for CAP blocks.  Returns 0, or -1 when out of memory. */
int blockset_init(struct blockset *bs, size_t cap,
                  const struct scratch_ops *ops);
/* Adds a block (any order); FLAGS may hold BLOCK_FOREIGN, BLOCK_LOADER
 * and a BLOCK_KIND_*.  Blocks beyond
 * the capacity are dropped (returns -1). */
int blockset_add(struct blockset *bs, uintptr_t start, uint64_t size,
                 uint32_t stack, unsigned flags);
/* Sorts and indexes; blocks may no longer be added.  Returns 0 or -1. */
int blockset_finish(struct blockset *bs);
void blockset_destroy(struct blockset *bs);

/* The index of the block containing address W (a zero-sized block
 * contains its start only), or -1. */
long blockset_find(const struct blockset *bs, uintptr_t w);

/* Reads the aligned word at ADDR (carefully when bs->careful); 0 when it
 * cannot be read. */
int blockset_read_word(struct blockset *bs, uintptr_t addr, uintptr_t *out);

/* Roots: every aligned word of [LO, HI), and single values (registers). */
void mark_range(struct blockset *bs, uintptr_t lo, uintptr_t hi);
void mark_value(struct blockset *bs, uintptr_t w);
/* The block that is the memory [LO, HI) (a sigaltstack), if one is:
 * reachable, and never scanned (the roots hold its live part, if any).
 * Before the roots are marked. */
void mark_opaque(struct blockset *bs, uintptr_t lo, uintptr_t hi);
/* The flood fill from what the roots reached. */
void mark_drain(struct blockset *bs);

static inline uintptr_t block_start(const struct blockset *bs, size_t i)
{
    return (uintptr_t)(bs->b[i].word & BLK_ADDR_MASK);
}

uint64_t block_big_size(const struct blockset *bs, size_t i);

static inline uint64_t block_size(const struct blockset *bs, size_t i)
{
    return bs->b[i].size != BLK_BIG ? bs->b[i].size : block_big_size(bs, i);
}

static inline uint32_t block_stack(const struct blockset *bs, size_t i)
{
    return bs->b[i].stack;
}

static inline unsigned block_flags(const struct blockset *bs, size_t i)
{
    return (unsigned)(bs->b[i].word >> BLK_FLAG_SHIFT);
}

static inline unsigned block_state(const struct blockset *bs, size_t i)
{
    return block_flags(bs, i) & BLOCK_STATE_MASK;
}

static inline void block_set_flags(struct blockset *bs, size_t i,
                                   unsigned flags)
{
    bs->b[i].word = (bs->b[i].word & BLK_ADDR_MASK) | (uint64_t)(flags & 0xff)
                                                          << BLK_FLAG_SHIFT;
}

#endif

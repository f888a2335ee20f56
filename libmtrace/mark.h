/* mark.h - the flood fill of the reachability scan: a table of the live
 * blocks built for the scan (starts sorted, found by a page index and a
 * short binary search: no per-pointer hashing of the hot path), and a
 * conservative mark over aligned words, interior pointers included,
 * iterative (an explicit stack of at most one entry per block).
 *
 * The states follow valgrind's memcheck: a block is REACHABLE when a
 * start pointer (or an interior pointer a C++ heuristic accepts, see
 * classify.h) leads to it from a root or from a REACHABLE block, POSSIBLE
 * when only interior pointers or POSSIBLE blocks lead to it, and
 * UNREACHED otherwise; classify.c then splits the UNREACHED into directly
 * and indirectly lost.  The module knows nothing of the tracer: the unit
 * tests run it on synthetic graphs.  GPL-3.0-or-later. */
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
#define BLOCK_PENDING 4u   /* on the mark stack                          */
#define BLOCK_FOREIGN 8u   /* inherited by a fork child: walked through,
                              never reported                             */
#define BLOCK_HEURISTIC 16u /* reachable only through a heuristic pointer */

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

struct page_slot;

struct blockset {
    size_t n, cap;
    uintptr_t *start; /* sorted once blockset_finish() ran            */
    uint64_t *size;
    uint32_t *stack;
    uint8_t *state;
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
    void *sort_tmp;
    size_t sort_tmp_size;
};

/* Room for CAP blocks.  Returns 0, or -1 when out of memory. */
int blockset_init(struct blockset *bs, size_t cap, const struct scratch_ops *ops);
/* Adds a block (any order); FLAGS may hold BLOCK_FOREIGN.  Blocks beyond
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
/* The flood fill from what the roots reached. */
void mark_drain(struct blockset *bs);

static inline unsigned block_state(const struct blockset *bs, size_t i)
{
    return bs->state[i] & BLOCK_STATE_MASK;
}

#endif

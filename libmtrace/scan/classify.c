/* SPDX-License-Identifier: GPL-3.0-or-later */
/* classify.c - see classify.h.  The heuristics and the clique walk
 * follow the rules memcheck documents (mc_leakcheck.c), written anew.
 */
#include "scan/classify.h"
#include "../include/mtrace-format.h"
#include <string.h>

#define WORD sizeof(uintptr_t)
#define VTABLE_WORDS 20 /* words looked at for two function pointers */
#define PAGE_SIZE_MIN 4096

/* ---- heuristics ----------------------------------------------------------- */

static const struct map_info *mapping_of(const struct blockset *bs,
                                         uintptr_t a)
{
    return map_info_find(bs->maps, bs->nmaps, a);
}

/* A vtable: a word in a readable file mapping (a module's .data.rel.ro)
 * from which, within VTABLE_WORDS words, at least two non-null words
 * point into executable file mappings and none elsewhere. */
static int is_vtable(struct blockset *bs, uintptr_t p)
{
    const struct map_info *m = mapping_of(bs, p);
    if (m == NULL ||
        (m->flags & (MAPF_FILE | MAPF_READ)) != (MAPF_FILE | MAPF_READ))
        return 0;
    int functions = 0;
    for (int k = 0; k < VTABLE_WORDS && p + (k + 1) * WORD <= m->hi; k++) {
        uintptr_t f;
        if (!blockset_read_word(bs, p + k * WORD, &f))
            return 0;
        if (f == 0)
            continue;
        const struct map_info *code = mapping_of(bs, f);
        if (code == NULL ||
            (code->flags & (MAPF_FILE | MAPF_EXEC)) != (MAPF_FILE | MAPF_EXEC))
            return 0;
        if (++functions == 2)
            return 1;
    }
    return 0;
}

static int plausible_vtable_ptr(uintptr_t v)
{
    return v % WORD == 0 && v >= PAGE_SIZE_MIN;
}

/* Where each heuristic looks, relative to the block start S of SIZE
 * bytes, for an interior pointer PTR:
 * - std::string (copy-on-write representation): PTR = S + 3 words, after
 *   length, capacity and reference count, with capacity + 1 + 3 words ==
 *   SIZE and length <= capacity;
 * - length64: PTR = S + 8, the first word holding SIZE - 8 (sqlite's
 *   allocations carry their size in front);
 * - new[] cookie: PTR = S + 1 word, the first word a non-zero element
 *   count that divides the rest of the block;
 * - multiple inheritance: PTR aligned, both *S and *PTR vtables. */
int heuristic_reaches(struct blockset *bs, uintptr_t ptr, size_t i)
{
    uintptr_t s = block_start(bs, i), w0, w1;
    uint64_t size = block_size(bs, i);
    if (ptr == s + 3 * WORD && size >= 3 * WORD + 1 &&
        blockset_read_word(bs, s + WORD, &w1) &&
        blockset_read_word(bs, s, &w0) && 3 * WORD + w1 + 1 == size && w0 <= w1)
        return 1;
    if (ptr == s + 8 && size >= 8 && blockset_read_word(bs, s, &w0) && w0 > 0 &&
        size - 8 == w0)
        return 1;
    if (ptr == s + WORD && size >= WORD && blockset_read_word(bs, s, &w0) &&
        w0 > 0 && (size - WORD) % w0 == 0)
        return 1;
    if (ptr % WORD == 0 && bs->nmaps && ptr + WORD <= s + size &&
        blockset_read_word(bs, ptr, &w1) && plausible_vtable_ptr(w1) &&
        blockset_read_word(bs, s, &w0) && plausible_vtable_ptr(w0) &&
        is_vtable(bs, w1) && is_vtable(bs, w0))
        return 1;
    return 0;
}

/* ---- cliques ------------------------------------------------------------ */

/* Scans block J of the clique headed by LEADER: every UNREACHED block it
 * points to (start or interior pointer alike) joins the clique, bringing
 * along the bytes of any clique it headed before. */
static void clique_scan(struct blockset *bs, size_t j, size_t leader)
{
    uintptr_t lo = (block_start(bs, j) + WORD - 1) & ~(WORD - 1);
    uintptr_t hi = (block_start(bs, j) + block_size(bs, j)) & ~(WORD - 1);
    uintptr_t base = bs->lo, span = bs->hi - bs->lo;
    for (uintptr_t a = lo; a < hi; a += WORD) {
        uintptr_t w;
        if (!blockset_read_word(bs, a, &w) || w - base >= span)
            continue;
        long k = blockset_find(bs, w);
        if (k < 0 || (size_t)k == leader ||
            block_state(bs, (size_t)k) != BLOCK_UNREACHED)
            continue;
        if ((block_flags(bs, j) & BLOCK_LOADER) &&
            w != block_start(bs, (size_t)k))
            continue; /* a stale entry of the loader's (BLOCK_LOADER) */
        block_set_flags(bs, (size_t)k,
                        (block_flags(bs, (size_t)k) & ~BLOCK_STATE_MASK) |
                            BLOCK_INDIRECT | BLOCK_PENDING);
        bs->markstack[bs->top++] = (uint32_t)k;
        bs->leader[k] = (uint32_t)leader;
        bs->indirect[leader] += block_size(bs, (size_t)k) + bs->indirect[k];
        bs->indirect[k] = 0;
    }
}

/* A mapping's memory is read carefully (mark.h, BLOCK_KIND_MMAP). */
static void clique_scan_block(struct blockset *bs, size_t j, size_t leader)
{
    int careful = bs->careful;
    bs->careful |= (block_flags(bs, j) & BLOCK_KIND_MMAP) != 0;
    clique_scan(bs, j, leader);
    bs->careful = careful;
}

int classify_lost(struct blockset *bs)
{
    size_t cap = bs->cap;
    bs->leader = bs->ops.map(cap * sizeof *bs->leader, bs->ops.ctx);
    bs->indirect = bs->ops.map(cap * sizeof *bs->indirect, bs->ops.ctx);
    if (bs->leader == NULL || bs->indirect == NULL)
        return -1;
    bs->mapped_bytes += cap * (sizeof *bs->leader + sizeof *bs->indirect);
    /* In address order, as memcheck does: a block that headed a clique
     * and is then reached from a later one joins that one. */
    for (size_t i = 0; i < bs->n; i++) {
        if (block_state(bs, i) != BLOCK_UNREACHED)
            continue;
        bs->leader[i] = (uint32_t)i;
        clique_scan_block(bs, i, i);
        while (bs->top) {
            size_t j = bs->markstack[--bs->top];
            block_set_flags(bs, j, block_flags(bs, j) & ~BLOCK_PENDING);
            clique_scan_block(bs, j, i);
        }
    }
    return 0;
}

enum verdict block_verdict(const struct blockset *bs, size_t i)
{
    switch (block_state(bs, i)) {
    case BLOCK_REACHABLE:
        return VERDICT_REACHABLE;
    case BLOCK_POSSIBLE:
        return VERDICT_POSSIBLE;
    case BLOCK_INDIRECT:
        return VERDICT_INDIRECT;
    default:
        return VERDICT_DEFINITE;
    }
}

char verdict_letter(enum verdict v)
{
    static const char letters[VERDICT_COUNT] = { MTF_VERDICT_REACHABLE,
                                                 MTF_VERDICT_POSSIBLE,
                                                 MTF_VERDICT_INDIRECT,
                                                 MTF_VERDICT_DEFINITE };
    return letters[v];
}

const char *verdict_name(enum verdict v)
{
    static const char *const names[VERDICT_COUNT] = {
        "still-reachable", "possibly-lost", "indirectly-lost", "definitely-lost"
    };
    return names[v];
}

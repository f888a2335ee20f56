/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunkwords.h - the words glibc's allocator leaves in a block it hands out.
 *
 * A free chunk keeps glibc's list pointers in its first user words: fd and
 * bk (small and unsorted chunks), and fd_nextsize and bk_nextsize (large
 * chunks); they point at other chunks' headers.  When free chunks merge,
 * the absorbed chunk's header and list words stay where they were, in the
 * middle of the bigger chunk.  malloc() hands the memory out again with
 * all those words as they were, and a block the program never fully
 * writes keeps them: to the reachability scan they are pointers, and they
 * kept real leaks "possibly lost", "indirectly lost" or "still reachable"
 * (after heavy churn, 1 to 3 leaks of 8).  valgrind never sees such
 * words: a word the program did not write is undefined to memcheck, and
 * its scan ignores it.  libmtrace cannot know what the program wrote, so
 * the shim zeroes a block before the program gets it, while the scan is
 * on (reach=1): then a word the program did not write is 0, as memcheck
 * would have it undefined.  malloc() promises no contents, and realloc()
 * none past the old size.  Not zeroed: calloc()'s blocks (zeroed
 * already) and chunks glibc mapped for the block alone (fresh pages; the
 * chunk header says so).  Past CHUNK_ZERO_MAX bytes only the first list
 * words are cleared, so that a big buffer the program fills bit by bit
 * is not faulted in whole: its middle may keep merged chunks' words.
 * The cost is in bench/RESULTS.md.
 */
#ifndef MT_CHUNKWORDS_H
#define MT_CHUNKWORDS_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* fd, bk, fd_nextsize, bk_nextsize. */
#define CHUNK_LIST_BYTES (4 * sizeof(void *))
#define CHUNK_ZERO_MAX (64u << 10)
#define CHUNK_IS_MMAPPED_BIT 2u

static inline size_t chunkwords_words(size_t n)
{
    return n & ~(sizeof(void *) - 1);
}

/* A new block of SIZE bytes at P, from malloc() and the aligned
 * allocators. */
static inline void chunkwords_clear_new(void *p, size_t size)
{
    if (size > CHUNK_ZERO_MAX) {
        if (((const size_t *)p)[-1] & CHUNK_IS_MMAPPED_BIT)
            return;
        size = CHUNK_LIST_BYTES;
    }
    memset(p, 0, chunkwords_words(size));
}

/* A block that realloc() grew from OLD_SIZE to NEW_SIZE bytes, moved or
 * not: the program's bytes end at OLD_SIZE, what lies past them is the
 * allocator's as for a new block.  Past CHUNK_ZERO_MAX new bytes, only
 * the window where the list words can be: in place, the absorbed chunk's
 * header and list words start at most one chunk header plus alignment
 * past OLD_SIZE; moved, glibc copied the old chunk's usable size, which
 * ends at most that far past OLD_SIZE. */
#define CHUNK_REALLOC_WINDOW (CHUNK_LIST_BYTES + 5 * sizeof(void *))

static inline void chunkwords_clear_grown(void *p, size_t old_size,
                                          size_t new_size)
{
    if (new_size <= old_size)
        return;
    size_t from = chunkwords_words(old_size + sizeof(void *) - 1);
    size_t to = chunkwords_words(new_size);
    if (new_size - old_size > CHUNK_ZERO_MAX) {
        if (((const size_t *)p)[-1] & CHUNK_IS_MMAPPED_BIT)
            return;
        to = chunkwords_words(old_size + CHUNK_REALLOC_WINDOW);
    }
    if (from < to)
        memset((char *)p + from, 0, to - from);
}

#endif

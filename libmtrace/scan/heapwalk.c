/* SPDX-License-Identifier: GPL-3.0-or-later */
/* heapwalk.c - see heapwalk.h.  The walk follows glibc's chunk layout
 * (malloc/malloc.c): each chunk's second word is its size with three flag
 * bits, the next chunk's PREV_INUSE bit says whether it is in use, the
 * main arena's chunks run from the start of [heap] to its top chunk, and a
 * thread arena's heap (64 MiB-aligned, heap_info first) from after its
 * headers to the end of the heap's used size.  Every step is checked
 * against the mapping, so a heap in another shape (another allocator)
 * only ends the walk. */
#define _GNU_SOURCE
#include "scan/heapwalk.h"
#include "base/arena.h"
#include "symbols/maps.h"
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#define WORD sizeof(uintptr_t)
#define PREV_INUSE 1u
#define IS_MMAPPED 2u
#define SIZE_BITS 7u
#define MIN_CHUNK 32u
#define ARENA_HEAP_SIZE (64ul << 20)

struct chunk {
    uintptr_t start; /* the block: chunk + 16 */
    uint64_t size;   /* the chunk's size field, flags included */
};

static struct chunk *chunks;
static size_t nchunks, capchunks;

size_t heapwalk_count(void)
{
    return nchunks;
}

static void remember(uintptr_t chunk, uint64_t size_field)
{
    if (nchunks == capchunks) {
        size_t cap = capchunks ? capchunks * 2 : 4096;
        struct chunk *n = pages_map(cap * sizeof *n);
        if (n == NULL)
            return;
        if (chunks)
            memcpy(n, chunks, nchunks * sizeof *n);
        pages_unmap(chunks, capchunks * sizeof *chunks);
        chunks = n;
        capchunks = cap;
    }
    chunks[nchunks++] = (struct chunk){ chunk + 2 * WORD, size_field };
}

/* Walks the chunks from FIRST while they stay inside [FIRST, END); the
 * last one may be the top chunk (never in use).  Returns the address the
 * walk stopped at. */
static uintptr_t walk(uintptr_t first, uintptr_t end)
{
    uintptr_t c = first;
    while (c + 4 * WORD <= end) {
        uint64_t field = ((const uint64_t *)c)[1], size = field & ~SIZE_BITS;
        if (size < MIN_CHUNK || size % 16 || (field & IS_MMAPPED) ||
            size > end - c)
            break;
        uintptr_t next = c + size;
        if (next + 2 * WORD > end)
            break; /* the top chunk: it ends the heap */
        if (((const uint64_t *)next)[1] & PREV_INUSE)
            remember(c, field);
        c = next;
    }
    return c;
}

/* ---- finding the heaps ------------------------------------------------ */

/* A thread arena's heap: the chunks start after heap_info (and, in an
 * arena's first heap, its malloc_state), at a place not known from
 * outside; the right one is the start from which the chain of chunks
 * ends exactly at the heap's used size. */
static void walk_arena_heap(uintptr_t heap, uintptr_t mapped_end)
{
    const uintptr_t *info = (const uintptr_t *)heap;
    uintptr_t used = info[2];
    if (used % 4096 || used == 0 || used > ARENA_HEAP_SIZE ||
        heap + used > mapped_end || info[0] % WORD)
        return;
    uintptr_t end = heap + used;
    for (uintptr_t first = heap + 4 * WORD; first < heap + 8192; first += 16) {
        size_t before = nchunks;
        uintptr_t stop = walk(first, end);
        /* Reached the top chunk, which runs to the end of the heap. */
        if (stop + 2 * WORD <= end &&
            stop + (((const uint64_t *)stop)[1] & ~SIZE_BITS) == end)
            return;
        nchunks = before; /* a wrong start: forget what it found */
    }
}

static int walk_mapping(const struct mapping *m, void *arg)
{
    uintptr_t brk_now = *(const uintptr_t *)arg;
    if (m->perms[0] != 'r' || m->perms[1] != 'w')
        return 0;
    if (strcmp(m->path, "[heap]") == 0)
        walk(m->start, brk_now > m->start && brk_now < m->end ? brk_now
                                                               : m->end);
    else if (*m->path == '\0' && m->start % ARENA_HEAP_SIZE == 0)
        walk_arena_heap(m->start, m->end);
    return 0;
}

void heapwalk_snapshot(void)
{
    uintptr_t brk_now = (uintptr_t)syscall(SYS_brk, 0);
    maps_each(walk_mapping, &brk_now);
}

/* The header at CHUNK, read without faulting (the heap may have shrunk). */
static int read_header(uintptr_t chunk, uint64_t *field, uint64_t *next_field)
{
    uint64_t w[2];
    struct iovec local = { w, sizeof w }, remote = { (void *)chunk, sizeof w };
    if (process_vm_readv(getpid(), &local, 1, &remote, 1, 0) != sizeof w)
        return 0;
    *field = w[1];
    uintptr_t next = chunk + (w[1] & ~SIZE_BITS);
    remote = (struct iovec){ (void *)next, sizeof w };
    if (process_vm_readv(getpid(), &local, 1, &remote, 1, 0) != sizeof w)
        return 0;
    *next_field = w[1];
    return 1;
}

void heapwalk_each_live(void (*fn)(uintptr_t, uint64_t, void *), void *arg)
{
    for (size_t i = 0; i < nchunks; i++) {
        uint64_t field, next;
        uintptr_t chunk = chunks[i].start - 2 * WORD;
        if (read_header(chunk, &field, &next) && field == chunks[i].size &&
            (next & PREV_INUSE))
            /* An in-use chunk's user data runs into the next chunk's
             * first word. */
            fn(chunks[i].start, (field & ~SIZE_BITS) - WORD, arg);
    }
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mark.c - see mark.h. */
#define _GNU_SOURCE
#include "scan/mark.h"
#include "scan/classify.h"
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

/* The page index: 4 KiB pages; a page holds at most 128 of glibc's
 * smallest chunks (a 7-step search in two cache lines of the table). */
#define PAGE_SHIFT 12
/* A block over this many pages is kept in the big list instead. */
#define BIG_PAGES 64
#define BOUNCE_SIZE 65536
#define WORD sizeof(uintptr_t)
/* Blocks whose memory is being fetched before they are scanned, and
 * pointers whose index slot is being fetched before they are looked up:
 * enough to overlap a dozen cache misses. */
#define RING 32
#define PENDQ 64
#define PREFETCH_LINES 8 /* of a block entering the ring */
#define DIGIT_BITS 11

struct page_slot {
    uintptr_t key; /* page number + 1; 0: empty */
    uint32_t first, last;
};

static void *take(struct blockset *bs, size_t size)
{
    void *p = bs->ops.map(size, bs->ops.ctx);
    if (p)
        bs->mapped_bytes += size;
    return p;
}

static void give(struct blockset *bs, void *p, size_t size)
{
    if (p) {
        bs->ops.unmap(p, size, bs->ops.ctx);
        bs->mapped_bytes -= size;
    }
}

int blockset_init(struct blockset *bs, size_t cap,
                  const struct scratch_ops *ops)
{
    memset(bs, 0, sizeof *bs);
    bs->ops = *ops;
    bs->cap = cap ? cap : 1;
    bs->heuristics = 1;
    bs->b = take(bs, bs->cap * sizeof *bs->b);
    return bs->b ? 0 : -1;
}

static int note_big_size(struct blockset *bs, uintptr_t start, uint64_t size)
{
    /* Blocks of 4 GiB and more: a handful at most; the list grows by
     * copying. */
    size_t n = bs->nbigsize;
    struct big_size *grown = take(bs, (n + 1) * sizeof *grown);
    if (grown == NULL)
        return -1;
    if (n)
        memcpy(grown, bs->bigsize, n * sizeof *grown);
    give(bs, bs->bigsize, n * sizeof *grown);
    grown[n] = (struct big_size){ start, size };
    bs->bigsize = grown;
    bs->nbigsize = n + 1;
    return 0;
}

int blockset_add(struct blockset *bs, uintptr_t start, uint64_t size,
                 uint32_t stack, unsigned flags)
{
    if (bs->n == bs->cap || bs->pages || start > BLK_ADDR_MASK)
        return -1;
    uint32_t small = (uint32_t)size;
    if (size >= BLK_BIG) {
        if (note_big_size(bs, start, size))
            return -1;
        small = BLK_BIG;
    }
    bs->b[bs->n++] = (struct blk){
        (uint64_t)start |
            (uint64_t)(flags & (BLOCK_FOREIGN | BLOCK_LOADER |
                                BLOCK_KIND_MASK))
                << BLK_FLAG_SHIFT,
        small, stack
    };
    return 0;
}

uint64_t block_big_size(const struct blockset *bs, size_t i)
{
    uintptr_t s = block_start(bs, i);
    for (size_t k = 0; k < bs->nbigsize; k++)
        if (bs->bigsize[k].start == s)
            return bs->bigsize[k].size;
    return BLK_BIG;
}

/* LSD radix sort of the blocks by start, DIGIT_BITS a pass over bits 4
 * to 47 of a user-space address (four passes: malloc's blocks are 16-byte
 * aligned; a final pass puts any others in order); a pass whose digit is
 * the same for every block is skipped.  Returns the sorted array (A or
 * TMP). */
static struct blk *radix_sort(struct blk *a, struct blk *tmp, size_t n,
                              uint32_t *count)
{
    const size_t digits = 1u << DIGIT_BITS, mask = digits - 1;
    for (int shift = 4; shift < 48; shift += DIGIT_BITS) {
        memset(count, 0, digits * sizeof *count);
        for (size_t i = 0; i < n; i++)
            count[(a[i].word >> shift) & mask]++;
        if (n == 0 || count[(a[0].word >> shift) & mask] == n)
            continue;
        uint32_t sum = 0;
        for (size_t d = 0; d < digits; d++) {
            uint32_t c = count[d];
            count[d] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++)
            tmp[count[(a[i].word >> shift) & mask]++] = a[i];
        struct blk *t = a;
        a = tmp;
        tmp = t;
    }
    for (size_t i = 1; i < n; i++) /* starts within 16 bytes of another */
        for (size_t j = i; j > 0 && (a[j].word & BLK_ADDR_MASK) <
                                        (a[j - 1].word & BLK_ADDR_MASK);
             j--) {
            struct blk t = a[j];
            a[j] = a[j - 1];
            a[j - 1] = t;
        }
    return a;
}

static uint64_t extent(uint64_t size)
{
    return size ? size : 1; /* a zero-sized block holds its start */
}

static size_t page_hash(uintptr_t page, size_t mask)
{
    return (size_t)((page * 0x9e3779b97f4a7c15ull) >> 20) & mask;
}

static struct page_slot *probe(struct page_slot *s, struct page_slot *pages,
                               size_t mask, uintptr_t page)
{
    while (s->key && s->key != page + 1)
        s = &pages[(size_t)(s - pages + 1) & mask];
    return s;
}

static int build_index(struct blockset *bs)
{
    size_t entries = 0;
    for (size_t i = 0; i < bs->n; i++) {
        uintptr_t s = block_start(bs, i);
        uintptr_t p0 = s >> PAGE_SHIFT;
        uintptr_t p1 = (s + extent(block_size(bs, i)) - 1) >> PAGE_SHIFT;
        if (p1 - p0 >= BIG_PAGES)
            bs->nbig++;
        else
            entries += p1 - p0 + 1;
    }
    size_t slots = 64;
    while (slots < 2 * entries)
        slots *= 2;
    bs->page_mask = slots - 1;
    bs->pages = take(bs, slots * sizeof *bs->pages);
    bs->big = take(bs, (bs->nbig + 1) * sizeof *bs->big);
    if (bs->pages == NULL || bs->big == NULL)
        return -1;
    size_t b = 0;
    for (size_t i = 0; i < bs->n; i++) {
        uintptr_t s = block_start(bs, i);
        uintptr_t p0 = s >> PAGE_SHIFT;
        uintptr_t p1 = (s + extent(block_size(bs, i)) - 1) >> PAGE_SHIFT;
        if (p1 - p0 >= BIG_PAGES) {
            bs->big[b++] = (uint32_t)i;
            continue;
        }
        for (uintptr_t p = p0; p <= p1; p++) {
            struct page_slot *sl = probe(
                &bs->pages[page_hash(p, bs->page_mask)], bs->pages,
                bs->page_mask, p);
            if (sl->key == 0)
                *sl = (struct page_slot){ p + 1, (uint32_t)i, (uint32_t)i };
            else
                sl->last = (uint32_t)i;
        }
    }
    return 0;
}

/* Pool block P and a block C that is no pool block (its chunk): they
 * overlap, and C is left out. */
static int carved_from(const struct blockset *bs, size_t p, size_t c)
{
    return (block_flags(bs, p) & BLOCK_KIND_POOL) &&
           !(block_flags(bs, c) & BLOCK_KIND_POOL);
}

int blockset_finish(struct blockset *bs)
{
    size_t n = bs->n, cap = bs->cap;
    struct blk *tmp = take(bs, cap * sizeof *tmp);
    uint32_t *count = take(bs, (1u << DIGIT_BITS) * sizeof *count);
    bs->markstack = take(bs, cap * sizeof *bs->markstack);
    bs->bounce = take(bs, BOUNCE_SIZE);
    int ok = tmp && count && bs->markstack && bs->bounce;
    if (ok) {
        struct blk *sorted = radix_sort(bs->b, tmp, n, count);
        if (sorted != bs->b) { /* keep B the array that stays */
            struct blk *t = bs->b;
            bs->b = sorted;
            tmp = t;
        }
    }
    give(bs, tmp, cap * sizeof *tmp);
    give(bs, count, (1u << DIGIT_BITS) * sizeof *count);
    if (!ok)
        return -1;
    /* Blocks that overlap: a pool's chunk and the pool blocks carved
     * from it (BLOCK_KIND_POOL: the pool block wins, the chunk is left
     * out), a chunk remembered from before collection (BLOCK_FOREIGN,
     * heapwalk.h) whose memory a collected block now holds, or an
     * inconsistent table.  A collected block wins, else the first;
     * lookups then stay well defined. */
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (k && block_start(bs, i) <
                     block_start(bs, k - 1) + extent(block_size(bs, k - 1))) {
            if (carved_from(bs, k - 1, i))
                continue; /* the chunk I holds pool block K - 1 */
            int keep_new = carved_from(bs, i, k - 1) ||
                           ((block_flags(bs, k - 1) & BLOCK_FOREIGN) &&
                            !(block_flags(bs, i) & BLOCK_FOREIGN));
            if (keep_new)
                bs->b[k - 1] = bs->b[i];
            continue;
        }
        bs->b[k++] = bs->b[i];
    }
    bs->n = k;
    bs->lo = k ? block_start(bs, 0) : 1;
    bs->hi = bs->lo;
    for (size_t i = 0; i < k; i++) {
        uintptr_t end = block_start(bs, i) + extent(block_size(bs, i));
        if (end > bs->hi)
            bs->hi = end;
    }
    return build_index(bs);
}

void blockset_destroy(struct blockset *bs)
{
    size_t cap = bs->cap;
    give(bs, bs->b, cap * sizeof *bs->b);
    give(bs, bs->markstack, cap * sizeof *bs->markstack);
    give(bs, bs->leader, cap * sizeof *bs->leader);
    give(bs, bs->indirect, cap * sizeof *bs->indirect);
    give(bs, bs->pages, (bs->page_mask + 1) * sizeof *bs->pages);
    give(bs, bs->big, (bs->nbig + 1) * sizeof *bs->big);
    give(bs, bs->bigsize, bs->nbigsize * sizeof *bs->bigsize);
    give(bs, bs->bounce, BOUNCE_SIZE);
    memset(bs, 0, sizeof *bs);
}

static int contains(const struct blockset *bs, long i, uintptr_t w)
{
    return i >= 0 &&
           w - block_start(bs, (size_t)i) < extent(block_size(bs, (size_t)i));
}

/* The last index in [FIRST, LAST] whose start is <= W, or FIRST - 1. */
static long last_start_at_most(const struct blockset *bs, long first, long last,
                               uintptr_t w)
{
    while (first <= last) {
        long mid = first + (last - first) / 2;
        if (block_start(bs, (size_t)mid) <= w)
            first = mid + 1;
        else
            last = mid - 1;
    }
    return last;
}

static long find_big(const struct blockset *bs, uintptr_t w)
{
    long lo = 0, hi = (long)bs->nbig - 1;
    while (lo <= hi) {
        long mid = lo + (hi - lo) / 2;
        if (block_start(bs, bs->big[mid]) <= w)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return hi >= 0 && contains(bs, bs->big[hi], w) ? (long)bs->big[hi] : -1;
}

/* W's block, its page slot found from SLOT (W's home slot). */
static long find_from(const struct blockset *bs, struct page_slot *slot,
                      uintptr_t w)
{
    const struct page_slot *s = probe(slot, bs->pages, bs->page_mask,
                                      w >> PAGE_SHIFT);
    if (s->key) {
        long i = last_start_at_most(bs, s->first, s->last, w);
        if (i >= (long)s->first && contains(bs, i, w))
            return i;
    }
    return bs->nbig ? find_big(bs, w) : -1;
}

static struct page_slot *home_slot(const struct blockset *bs, uintptr_t w)
{
    return &bs->pages[page_hash(w >> PAGE_SHIFT, bs->page_mask)];
}

long blockset_find(const struct blockset *bs, uintptr_t w)
{
    if (w - bs->lo >= bs->hi - bs->lo)
        return -1;
    return find_from(bs, home_slot(bs, w), w);
}

/* Copies [ADDR, ADDR+N) to TO without faulting; returns the bytes read. */
static size_t read_careful(void *to, uintptr_t addr, size_t n)
{
    struct iovec local = { to, n }, remote = { (void *)addr, n };
    ssize_t got = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
    return got > 0 ? (size_t)got : 0;
}

int blockset_read_word(struct blockset *bs, uintptr_t addr, uintptr_t *out)
{
    if (addr % WORD)
        return 0;
    if (!bs->careful) {
        *out = *(const uintptr_t *)addr;
        return 1;
    }
    /* Not through the bounce buffer: scan() may be reading words there. */
    return read_careful(out, addr, WORD) == WORD;
}

const struct map_info *map_info_find(const struct map_info *maps, size_t n,
                                     uintptr_t a)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (maps[mid].hi <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && maps[lo].lo <= a ? &maps[lo] : NULL;
}

int map_info_readable(const struct map_info *maps, size_t n, uintptr_t a,
                      size_t len)
{
    const struct map_info *m = map_info_find(maps, n, a);
    return a % WORD == 0 && m && (m->flags & MAPF_READ) && a + len <= m->hi;
}

/* ---- the mark --------------------------------------------------------- */

static void push(struct blockset *bs, size_t i)
{
    unsigned f = block_flags(bs, i);
    if (f & BLOCK_PENDING)
        return;
    block_set_flags(bs, i, f | BLOCK_PENDING);
    bs->markstack[bs->top++] = (uint32_t)i;
}

static void set_state(struct blockset *bs, size_t i, unsigned st)
{
    block_set_flags(bs, i, (block_flags(bs, i) & ~BLOCK_STATE_MASK) | st);
}

/* glibc's own pointers to the chunk after a block (the arena's top, the
 * links of a free neighbour) point at that chunk's header, which lies in
 * the block's last 8 bytes when its size leaves no slack (glibc lets a
 * block use its neighbour's first word): such a word is no pointer of the
 * program's into the block. */
static int next_chunk_header(uintptr_t start, uint64_t size, uintptr_t w)
{
    uint64_t chunk = (size + 8 + 15) & ~(uint64_t)15;
    return w == start + (chunk < 32 ? 32 : chunk) - 16;
}

/* How a word was found (the DEFINITE argument below): in a root or a
 * reachable block (SOURCE_DEFINITE), and in a loader's block
 * (SOURCE_LOADER: only a start pointer counts, see BLOCK_LOADER). */
#define SOURCE_DEFINITE 1
#define SOURCE_LOADER 2

/* memcheck's rule: a start pointer (or one a heuristic accepts) from a
 * definite source makes the block REACHABLE; any other pointer makes an
 * UNREACHED block POSSIBLE.  Each change (re)scans the block. */
static void consider_block(struct blockset *bs, long i, uintptr_t w,
                           int definite)
{
    if (i < 0)
        return;
    uintptr_t start = block_start(bs, (size_t)i);
    unsigned f = block_flags(bs, (size_t)i), st = f & BLOCK_STATE_MASK;
    if (w != start && (definite & SOURCE_LOADER))
        return;
    definite &= SOURCE_DEFINITE;
    if (w != start && !(f & BLOCK_KIND_MASK) &&
        next_chunk_header(start, block_size(bs, (size_t)i), w))
        return;
    if (f & BLOCK_LOADER)
        w = start;
    if (st == BLOCK_REACHABLE) {
        if (w == start && (f & BLOCK_HEURISTIC))
            block_set_flags(bs, (size_t)i, f & ~BLOCK_HEURISTIC);
        return;
    }
    if (definite) {
        int heuristic = w != start && bs->heuristics &&
                        !(f & BLOCK_KIND_MASK) &&
                        heuristic_reaches(bs, w, (size_t)i);
        if (w == start || heuristic) {
            set_state(bs, (size_t)i, BLOCK_REACHABLE);
            if (heuristic)
                block_set_flags(bs, (size_t)i,
                                block_flags(bs, (size_t)i) | BLOCK_HEURISTIC);
            push(bs, (size_t)i);
            return;
        }
    }
    if (st == BLOCK_UNREACHED) {
        set_state(bs, (size_t)i, BLOCK_POSSIBLE);
        push(bs, (size_t)i);
    }
}

/* Candidate pointers go through two queues: in the first while their
 * page's index slot is fetched, in the second while the blocks that slot
 * names are; a lookup then finds both in the cache. */
struct cand {
    uintptr_t w;
    struct page_slot *slot;
    uint32_t first, last; /* second queue: the slot's range */
    int definite;
};

struct queue {
    struct cand q[PENDQ];
    unsigned head, count;
};

struct pipe {
    struct queue slots, blocks;
};

static struct cand take_oldest(struct queue *q)
{
    struct cand c = q->q[q->head];
    q->head = (q->head + 1) % PENDQ;
    q->count--;
    return c;
}

static void put(struct queue *q, struct cand c)
{
    q->q[(q->head + q->count++) % PENDQ] = c;
}

/* Second stage: the block, from the slot's range. */
static void resolve_block(struct blockset *bs, struct pipe *p)
{
    struct cand c = take_oldest(&p->blocks);
    long i = -1;
    if (c.slot) {
        i = last_start_at_most(bs, c.first, c.last, c.w);
        if (i < (long)c.first || !contains(bs, i, c.w))
            i = -1;
    }
    if (i < 0 && bs->nbig)
        i = find_big(bs, c.w);
    consider_block(bs, i, c.w, c.definite);
}

/* First stage: the page slot; its blocks are fetched for the second. */
static void resolve_slot(struct blockset *bs, struct pipe *p)
{
    struct cand c = take_oldest(&p->slots);
    const struct page_slot *s = probe(c.slot, bs->pages, bs->page_mask,
                                      c.w >> PAGE_SHIFT);
    if (s->key) {
        c.first = s->first;
        c.last = s->last;
        __builtin_prefetch(&bs->b[c.first]);
        __builtin_prefetch(&bs->b[c.last]);
    } else {
        c.slot = NULL;
    }
    if (p->blocks.count == PENDQ)
        resolve_block(bs, p);
    put(&p->blocks, c);
}

static void candidate(struct blockset *bs, struct pipe *p, uintptr_t w,
                      int definite)
{
    struct page_slot *slot = home_slot(bs, w);
    __builtin_prefetch(slot);
    if (p->slots.count == PENDQ)
        resolve_slot(bs, p);
    put(&p->slots, (struct cand){ w, slot, 0, 0, definite });
}

/* Moves one pointer forward; 0 when the pipe is empty. */
static int advance(struct blockset *bs, struct pipe *p)
{
    if (p->blocks.count) {
        resolve_block(bs, p);
        return 1;
    }
    if (p->slots.count) {
        resolve_slot(bs, p);
        return 1;
    }
    return 0;
}

static void flush(struct blockset *bs, struct pipe *p)
{
    while (advance(bs, p))
        ;
}

static void scan_words(struct blockset *bs, struct pipe *p, const uintptr_t *w,
                       size_t n, int definite)
{
    uintptr_t lo = bs->lo, span = bs->hi - bs->lo;
    for (size_t k = 0; k < n; k++)
        if (w[k] - lo < span)
            candidate(bs, p, w[k], definite);
}

static void scan(struct blockset *bs, struct pipe *p, uintptr_t lo,
                 uintptr_t hi, int definite)
{
    lo = (lo + WORD - 1) & ~(WORD - 1);
    hi &= ~(WORD - 1);
    if (lo >= hi)
        return;
    bs->bytes_scanned += hi - lo;
    if (!bs->careful) {
        scan_words(bs, p, (const uintptr_t *)lo, (hi - lo) / WORD, definite);
        return;
    }
    while (lo < hi) {
        size_t n = hi - lo < BOUNCE_SIZE ? hi - lo : BOUNCE_SIZE;
        size_t got = read_careful(bs->bounce, lo, n);
        scan_words(bs, p, (const uintptr_t *)bs->bounce, got / WORD, definite);
        if (got < n) /* unreadable: skip to the next page */
            got = ((lo + got) | 4095) + 1 - lo;
        lo += got;
    }
}

void mark_range(struct blockset *bs, uintptr_t lo, uintptr_t hi)
{
    struct pipe p;
    p.slots.count = p.blocks.count = 0;
    p.slots.head = p.blocks.head = 0;
    scan(bs, &p, lo, hi, 1);
    flush(bs, &p);
}

void mark_value(struct blockset *bs, uintptr_t w)
{
    if (w - bs->lo < bs->hi - bs->lo)
        consider_block(bs, blockset_find(bs, w), w, 1);
}

/* Only a block that is the stack and little more (its allocator's
 * rounding): one that holds other data too is scanned whole, as before. */
void mark_opaque(struct blockset *bs, uintptr_t lo, uintptr_t hi)
{
    long i = blockset_find(bs, lo);
    if (i < 0)
        return;
    uintptr_t s = block_start(bs, (size_t)i);
    uint64_t n = block_size(bs, (size_t)i);
    if (s + n >= hi && n <= hi - lo + 64)
        set_state(bs, (size_t)i, BLOCK_REACHABLE); /* not pushed */
}

void mark_drain(struct blockset *bs)
{
    struct pipe p;
    p.slots.count = p.blocks.count = 0;
    p.slots.head = p.blocks.head = 0;
    uint32_t ring[RING];
    unsigned head = 0, count = 0;
    for (;;) {
        /* Blocks enter the ring as they leave the stack; their memory is
         * fetched meanwhile.  They keep PENDING until scanned. */
        while (count < RING && bs->top) {
            uint32_t i = bs->markstack[--bs->top];
            const char *m = (const char *)block_start(bs, i);
            uint64_t size = block_size(bs, i);
            for (uint64_t at = 0; at < size && at < PREFETCH_LINES * 64;
                 at += 64)
                __builtin_prefetch(m + at);
            ring[(head + count++) % RING] = i;
        }
        if (count == 0) {
            if (!advance(bs, &p)) /* may push more blocks */
                return;
            continue;
        }
        uint32_t i = ring[head];
        head = (head + 1) % RING;
        count--;
        block_set_flags(bs, i, block_flags(bs, i) & ~BLOCK_PENDING);
        uintptr_t s = block_start(bs, i);
        int source = block_state(bs, i) == BLOCK_REACHABLE ? SOURCE_DEFINITE
                                                           : 0;
        if (block_flags(bs, i) & BLOCK_LOADER)
            source |= SOURCE_LOADER;
        int careful = bs->careful;
        bs->careful |= (block_flags(bs, i) & BLOCK_KIND_MMAP) != 0;
        scan(bs, &p, s, s + block_size(bs, i), source);
        bs->careful = careful;
    }
}

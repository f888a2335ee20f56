/* mark.c - see mark.h.  GPL-3.0-or-later. */
#define _GNU_SOURCE
#include "mark.h"
#include "classify.h"
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

/* The page index: 4 KiB pages; a small heap's index fits the cache, and
 * a page holds at most 128 of glibc's smallest chunks (a 7-step search). */
#define PAGE_SHIFT 12
/* A block over this many pages is kept in the big list instead. */
#define BIG_PAGES 64
#define BOUNCE_SIZE 65536
#define WORD sizeof(uintptr_t)

struct page_slot {
    uintptr_t key; /* page number + 1; 0: empty */
    uint32_t first, last;
};

/* What blockset_add collects; sorted by start in blockset_finish. */
struct rec {
    uintptr_t start;
    uint64_t size;
    uint32_t stack, flags;
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
    bs->sort_tmp_size = bs->cap * sizeof(struct rec);
    bs->sort_tmp = take(bs, bs->sort_tmp_size);
    return bs->sort_tmp ? 0 : -1;
}

int blockset_add(struct blockset *bs, uintptr_t start, uint64_t size,
                 uint32_t stack, unsigned flags)
{
    if (bs->n == bs->cap || bs->start)
        return -1;
    ((struct rec *)bs->sort_tmp)[bs->n++] =
        (struct rec){ start, size, stack, flags };
    return 0;
}

/* LSD radix sort of the records by start, 16 bits a pass over the 48
 * bits of a user-space address; a pass whose digit is the same for every
 * record is skipped.  Returns the sorted array (A or TMP). */
static struct rec *radix_sort(struct rec *a, struct rec *tmp, size_t n,
                              uint32_t *count)
{
    for (int shift = 0; shift < 48; shift += 16) {
        memset(count, 0, 65536 * sizeof *count);
        for (size_t i = 0; i < n; i++)
            count[(a[i].start >> shift) & 0xffff]++;
        if (n == 0 || count[(a[0].start >> shift) & 0xffff] == n)
            continue;
        uint32_t sum = 0;
        for (size_t d = 0; d < 65536; d++) {
            uint32_t c = count[d];
            count[d] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++)
            tmp[count[(a[i].start >> shift) & 0xffff]++] = a[i];
        struct rec *t = a;
        a = tmp;
        tmp = t;
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

static struct page_slot *page_slot(struct page_slot *pages, size_t mask,
                                   uintptr_t page)
{
    size_t i = page_hash(page, mask);
    while (pages[i].key && pages[i].key != page + 1)
        i = (i + 1) & mask;
    return &pages[i];
}

static int build_index(struct blockset *bs)
{
    size_t entries = 0;
    for (size_t i = 0; i < bs->n; i++) {
        uintptr_t p0 = bs->start[i] >> PAGE_SHIFT;
        uintptr_t p1 = (bs->start[i] + extent(bs->size[i]) - 1) >> PAGE_SHIFT;
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
        uintptr_t p0 = bs->start[i] >> PAGE_SHIFT;
        uintptr_t p1 = (bs->start[i] + extent(bs->size[i]) - 1) >> PAGE_SHIFT;
        if (p1 - p0 >= BIG_PAGES) {
            bs->big[b++] = (uint32_t)i;
            continue;
        }
        for (uintptr_t p = p0; p <= p1; p++) {
            struct page_slot *s = page_slot(bs->pages, bs->page_mask, p);
            if (s->key == 0)
                *s = (struct page_slot){ p + 1, (uint32_t)i, (uint32_t)i };
            else
                s->last = (uint32_t)i;
        }
    }
    return 0;
}

int blockset_finish(struct blockset *bs)
{
    size_t n = bs->n;
    struct rec *a = bs->sort_tmp, *tmp = take(bs, bs->sort_tmp_size);
    uint32_t *count = take(bs, 65536 * sizeof *count);
    size_t cap = n ? n : 1;
    bs->start = take(bs, cap * sizeof *bs->start);
    bs->size = take(bs, cap * sizeof *bs->size);
    bs->stack = take(bs, cap * sizeof *bs->stack);
    bs->state = take(bs, cap);
    bs->markstack = take(bs, cap * sizeof *bs->markstack);
    int ok = tmp && count && bs->start && bs->size && bs->stack &&
             bs->state && bs->markstack;
    if (ok) {
        struct rec *sorted = radix_sort(a, tmp, n, count);
        for (size_t i = 0; i < n; i++) {
            bs->start[i] = sorted[i].start;
            bs->size[i] = sorted[i].size;
            bs->stack[i] = sorted[i].stack;
            bs->state[i] = (uint8_t)(sorted[i].flags & BLOCK_FOREIGN);
        }
    }
    give(bs, tmp, bs->sort_tmp_size);
    give(bs, count, 65536 * sizeof *count);
    give(bs, bs->sort_tmp, bs->sort_tmp_size);
    bs->sort_tmp = NULL;
    if (!ok)
        return -1;
    /* Two records for one address cannot come from a consistent live
     * table; keep the first so that lookups stay well defined. */
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (k == 0 || bs->start[i] >= bs->start[k - 1] + extent(bs->size[k - 1])) {
            bs->start[k] = bs->start[i];
            bs->size[k] = bs->size[i];
            bs->stack[k] = bs->stack[i];
            bs->state[k] = bs->state[i];
            k++;
        }
    bs->n = k;
    bs->lo = k ? bs->start[0] : 1;
    bs->hi = bs->lo;
    for (size_t i = 0; i < k; i++)
        if (bs->start[i] + extent(bs->size[i]) > bs->hi)
            bs->hi = bs->start[i] + extent(bs->size[i]);
    bs->bounce = take(bs, BOUNCE_SIZE);
    if (bs->bounce == NULL)
        return -1;
    return build_index(bs);
}

void blockset_destroy(struct blockset *bs)
{
    size_t cap = bs->cap;
    give(bs, bs->sort_tmp, bs->sort_tmp_size);
    give(bs, bs->start, cap * sizeof *bs->start);
    give(bs, bs->size, cap * sizeof *bs->size);
    give(bs, bs->stack, cap * sizeof *bs->stack);
    give(bs, bs->state, cap);
    give(bs, bs->markstack, cap * sizeof *bs->markstack);
    give(bs, bs->leader, cap * sizeof *bs->leader);
    give(bs, bs->indirect, cap * sizeof *bs->indirect);
    give(bs, bs->pages, (bs->page_mask + 1) * sizeof *bs->pages);
    give(bs, bs->big, (bs->nbig + 1) * sizeof *bs->big);
    give(bs, bs->bounce, BOUNCE_SIZE);
    memset(bs, 0, sizeof *bs);
}

/* The last index in [FIRST, LAST] whose start is <= W, or FIRST - 1. */
static long last_start_at_most(const uintptr_t *start, long first, long last,
                               uintptr_t w)
{
    while (first <= last) {
        long mid = first + (last - first) / 2;
        if (start[mid] <= w)
            first = mid + 1;
        else
            last = mid - 1;
    }
    return last;
}

static int contains(const struct blockset *bs, long i, uintptr_t w)
{
    return i >= 0 && w - bs->start[i] < extent(bs->size[i]);
}

static long find_big(const struct blockset *bs, uintptr_t w)
{
    long lo = 0, hi = (long)bs->nbig - 1;
    while (lo <= hi) {
        long mid = lo + (hi - lo) / 2;
        if (bs->start[bs->big[mid]] <= w)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return hi >= 0 && contains(bs, bs->big[hi], w) ? (long)bs->big[hi] : -1;
}

long blockset_find(const struct blockset *bs, uintptr_t w)
{
    if (w - bs->lo >= bs->hi - bs->lo)
        return -1;
    const struct page_slot *s =
        page_slot(bs->pages, bs->page_mask, w >> PAGE_SHIFT);
    if (s->key) {
        long i = last_start_at_most(bs->start, s->first, s->last, w);
        if (i >= (long)s->first && contains(bs, i, w))
            return i;
    }
    return bs->nbig ? find_big(bs, w) : -1;
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

static void push(struct blockset *bs, size_t i)
{
    if (bs->state[i] & BLOCK_PENDING)
        return;
    bs->state[i] |= BLOCK_PENDING;
    bs->markstack[bs->top++] = (uint32_t)i;
}

static void set_state(struct blockset *bs, size_t i, unsigned st)
{
    bs->state[i] = (uint8_t)((bs->state[i] & ~BLOCK_STATE_MASK) | st);
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

/* memcheck's rule: a start pointer (or one a heuristic accepts) from a
 * definite source makes the block REACHABLE; any other pointer makes an
 * UNREACHED block POSSIBLE.  Each change (re)scans the block. */
static void consider(struct blockset *bs, uintptr_t w, int definite)
{
    long i = blockset_find(bs, w);
    if (i < 0)
        return;
    unsigned st = block_state(bs, (size_t)i);
    if (w != bs->start[i] && next_chunk_header(bs->start[i], bs->size[i], w))
        return;
    if (st == BLOCK_REACHABLE) {
        if (w == bs->start[i])
            bs->state[i] &= (uint8_t)~BLOCK_HEURISTIC;
        return;
    }
    if (definite) {
        int heuristic = w != bs->start[i] && bs->heuristics &&
                        heuristic_reaches(bs, w, (size_t)i);
        if (w == bs->start[i] || heuristic) {
            set_state(bs, (size_t)i, BLOCK_REACHABLE);
            if (heuristic)
                bs->state[i] |= BLOCK_HEURISTIC;
            push(bs, (size_t)i);
            return;
        }
    }
    if (st == BLOCK_UNREACHED) {
        set_state(bs, (size_t)i, BLOCK_POSSIBLE);
        push(bs, (size_t)i);
    }
}

static void scan_words(struct blockset *bs, const uintptr_t *w, size_t n,
                       int definite)
{
    uintptr_t lo = bs->lo, span = bs->hi - bs->lo;
    for (size_t k = 0; k < n; k++)
        if (w[k] - lo < span)
            consider(bs, w[k], definite);
}

static void scan(struct blockset *bs, uintptr_t lo, uintptr_t hi, int definite)
{
    lo = (lo + WORD - 1) & ~(WORD - 1);
    hi &= ~(WORD - 1);
    if (lo >= hi)
        return;
    bs->bytes_scanned += hi - lo;
    if (!bs->careful) {
        scan_words(bs, (const uintptr_t *)lo, (hi - lo) / WORD, definite);
        return;
    }
    while (lo < hi) {
        /* Up to the next page boundary at least, so that a page that
         * vanished costs one failed read. */
        size_t n = hi - lo < BOUNCE_SIZE ? hi - lo : BOUNCE_SIZE;
        size_t got = read_careful(bs->bounce, lo, n);
        scan_words(bs, (const uintptr_t *)bs->bounce, got / WORD, definite);
        if (got < n) /* unreadable: skip to the next page */
            got = ((lo + got) | 4095) + 1 - lo;
        lo += got;
    }
}

void mark_range(struct blockset *bs, uintptr_t lo, uintptr_t hi)
{
    scan(bs, lo, hi, 1);
}

void mark_value(struct blockset *bs, uintptr_t w)
{
    if (w - bs->lo < bs->hi - bs->lo)
        consider(bs, w, 1);
}

void mark_drain(struct blockset *bs)
{
    while (bs->top) {
        size_t i = bs->markstack[--bs->top];
        bs->state[i] &= (uint8_t)~BLOCK_PENDING;
        int definite = block_state(bs, i) == BLOCK_REACHABLE;
        scan(bs, bs->start[i], bs->start[i] + bs->size[i], definite);
    }
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* feeder.c - cutting the log into segments of whole lines (see feeder.h).
 *
 * Copyright (C) 2026 the libmtrace authors. */
#define _GNU_SOURCE /* memrchr */
#include "read/feeder.h"
#include "base/util.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* A read asks for at least MIN_READ bytes of room; a long line is
 * skipped in steps of SKIP_BYTES. */
enum { MIN_READ = 1 << 16, SKIP_BYTES = 1 << 20 };

static size_t page_size;

/* ---- the mapping and SIGBUS -------------------------------------------
 * A mapped file that shrinks under the reader turns the next access past
 * its new end into SIGBUS.  The handler puts zero pages over the rest of
 * the mapping so the access completes, and the feeder reports a read
 * error (EIO) at the end.  Any other SIGBUS gets the default action. */

static const char *volatile bus_map; /* one mapping at a time */
static volatile size_t bus_len;      /* rounded up to whole pages */
static volatile sig_atomic_t bus_hit;

static void on_sigbus(int sig, siginfo_t *si, void *ctx)
{
    char *a = si->si_addr;
    const char *map = bus_map;
    (void)ctx;
    if (!map || a < map || a >= map + bus_len) {
        signal(sig, SIG_DFL);
        return;
    }
    char *from = (char *)((uintptr_t)a & ~(uintptr_t)(page_size - 1));
    mmap(from, (size_t)(map + bus_len - from), PROT_READ,
         MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    bus_hit = 1;
}

static size_t round_up(size_t n)
{
    return (n + page_size - 1) & ~(page_size - 1);
}

static void try_map(struct feeder *f)
{
    struct stat st;
    struct source *src = f->src;

    if (src->format != SRC_PLAIN || !src->owns_fd || bus_map ||
        fstat(src->fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
        (uint64_t)st.st_size > SIZE_MAX / 2)
        return;
    size_t len = (size_t)st.st_size;
    void *p = mmap(NULL, len, PROT_READ, MAP_PRIVATE, src->fd, 0);
    if (p == MAP_FAILED)
        return;
    madvise(p, len, MADV_SEQUENTIAL);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGBUS, &sa, NULL);
    bus_len = round_up(len);
    bus_hit = 0;
    bus_map = p;
    f->map = p;
    f->map_len = len;
}

/* Give back the pages wholly inside [FROM, TO) of the mapping. */
static void drop_pages(const struct feeder *f, size_t from, size_t to)
{
    from = round_up(from);
    to &= ~(page_size - 1);
    if (from < to)
        madvise((void *)(f->map + from), to - from, MADV_DONTNEED);
}

void feeder_init(struct feeder *f, struct source *src, size_t target)
{
    memset(f, 0, sizeof *f);
    if (!page_size)
        page_size = (size_t)sysconf(_SC_PAGESIZE);
    f->src = src;
    /* Tiny segments are for tests: every line a segment of its own. */
    f->target = target < 1               ? 1
                : target > FEED_LINE_MAX ? FEED_LINE_MAX
                                         : target;
    try_map(f);
}

void feeder_destroy(struct feeder *f)
{
    if (f->map) {
        bus_map = NULL;
        munmap((void *)f->map, f->map_len);
        f->map = NULL;
    }
    free(f->carry);
    f->carry = NULL;
}

void segment_free(struct segment *seg)
{
    free(seg->mem);
    memset(seg, 0, sizeof *seg);
}

void feeder_prefault(const struct segment *seg)
{
#ifdef MADV_POPULATE_READ
    if (!seg->mapped || seg->len == 0)
        return;
    uintptr_t from = (uintptr_t)seg->buf & ~(uintptr_t)(page_size - 1);
    uintptr_t to = (uintptr_t)seg->buf + seg->len;
    madvise((void *)from, to - from, MADV_POPULATE_READ); /* best effort */
#else
    (void)seg;
#endif
}

void feeder_release(struct feeder *f, const struct segment *seg)
{
    if (!seg->mapped)
        return;
    size_t end = (size_t)(seg->buf + seg->len - f->map);
    drop_pages(f, f->released, end);
    if (end > f->released)
        f->released = end;
}

static int marker(struct segment *seg)
{
    seg->buf = NULL;
    seg->len = 0;
    seg->mapped = 0;
    seg->long_line = 1;
    return 1;
}

static void set_carry(struct feeder *f, const char *p, size_t n)
{
    if (n > f->carry_cap) {
        f->carry_cap = n * 2;
        free(f->carry);
        f->carry = xmalloc(f->carry_cap);
    }
    if (n)
        memcpy(f->carry, p, n);
    f->carry_len = n;
}

/* A long line starts at LS: the lines before it (from START) first, then
 * its marker; its bytes are skipped from SKIP on. */
static int long_line(struct feeder *f, struct segment *seg, const char *start,
                     const char *ls)
{
    f->discarding = 1;
    if (ls == start)
        return marker(seg);
    f->marker_next = 1;
    seg->len = (size_t)(ls - start);
    return 1;
}

/* ---- mapped ------------------------------------------------------------- */

/* The mapping is used up: read on from its end, with the unfinished line
 * at its end (if any) carried over. */
static int leave_map(struct feeder *f, size_t carry_from)
{
    if (carry_from < f->map_len && !f->discarding)
        set_carry(f, f->map + carry_from, f->map_len - carry_from);
    f->map_pos = f->map_len;
    f->map_left = 1;
    if (bus_hit) {
        snprintf(f->src->error, sizeof f->src->error,
                 "read error: %s (the file shrank while it was read)",
                 strerror(EIO));
        f->failed = 1;
        return -1;
    }
    if (src_seek(f->src, (off_t)f->map_len) < 0) {
        f->failed = 1;
        return -1;
    }
    return 0;
}

/* Skip the rest of a long line in the mapping, dropping its pages. */
static void skip_mapped(struct feeder *f)
{
    while (f->map_pos < f->map_len) {
        size_t n = f->map_len - f->map_pos;
        if (n > SKIP_BYTES)
            n = SKIP_BYTES;
        const char *nl = memchr(f->map + f->map_pos, '\n', n);
        if (nl) {
            f->map_pos = (size_t)(nl + 1 - f->map);
            f->discarding = 0;
            return;
        }
        drop_pages(f, f->map_pos, f->map_pos + n);
        f->map_pos += n;
    }
}

/* Returns as feeder_next, or 2 when the mapping is used up. */
static int next_mapped(struct feeder *f, struct segment *seg)
{
    if (f->discarding)
        skip_mapped(f);
    const char *start = f->map + f->map_pos, *end = f->map + f->map_len;
    if (start == end)
        return leave_map(f, f->map_len) < 0 ? -1 : 2;
    const char *want = (size_t)(end - start) > f->target ? start + f->target
                                                         : end;
    const char *nl = memrchr(start, '\n', (size_t)(want - start));
    const char *ls = nl ? nl + 1 : start; /* the line that crosses WANT */
    if (ls < want) {
        size_t room = (size_t)(end - ls) < FEED_LINE_MAX + 1
                          ? (size_t)(end - ls)
                          : FEED_LINE_MAX + 1;
        nl = memchr(want, '\n', room - (size_t)(want - ls));
        if (nl) {
            ls = nl + 1;
        } else if (room == FEED_LINE_MAX + 1) {
            f->map_pos = (size_t)(ls + room - f->map);
            seg->buf = start;
            seg->mapped = 1;
            return long_line(f, seg, start, ls);
        } else if (ls == start) { /* no whole line left in the mapping */
            return leave_map(f, f->map_pos) < 0 ? -1 : 2;
        }
    }
    seg->buf = start;
    seg->len = (size_t)(ls - start);
    seg->mapped = 1;
    f->map_pos = (size_t)(ls - f->map);
    return 1;
}

/* ---- read ---------------------------------------------------------------- */

static void reserve(struct segment *seg, size_t need)
{
    if (seg->cap >= need)
        return;
    size_t cap = seg->cap ? seg->cap : need;
    while (cap < need)
        cap *= 2;
    seg->mem = xrealloc(seg->mem, cap);
    seg->cap = cap;
}

/* read() into SEG's free room; returns the count, 0 at the end, -1. */
static ssize_t read_more(struct feeder *f, struct segment *seg, size_t at)
{
    ssize_t got = src_read(f->src, seg->mem + at, seg->cap - at);
    if (got < 0)
        f->failed = 1;
    else if (got == 0)
        f->done = 1;
    return got;
}

/* Skip the rest of a long line, with SEG's buffer as scratch; what
 * follows its newline becomes the carry. */
static int skip_read(struct feeder *f, struct segment *seg)
{
    reserve(seg, SKIP_BYTES);
    while (f->discarding) {
        ssize_t got = read_more(f, seg, 0);
        if (got < 0)
            return -1;
        if (got == 0)
            break;
        const char *nl = memchr(seg->mem, '\n', (size_t)got);
        if (nl) {
            set_carry(f, nl + 1, (size_t)(seg->mem + got - (nl + 1)));
            break;
        }
    }
    f->discarding = 0;
    return 0;
}

static int next_read(struct feeder *f, struct segment *seg)
{
    if (f->discarding && skip_read(f, seg) < 0)
        return -1;
    if (f->done && f->carry_len == 0)
        return 0;
    reserve(seg, f->target + MIN_READ);
    seg->mapped = 0;
    if (f->carry_len)
        memcpy(seg->mem, f->carry, f->carry_len);
    size_t len = f->carry_len;
    f->carry_len = 0;
    size_t ls = 0; /* after the last newline read; the carry has none */
    while (!f->done) {
        if (len >= f->target && ls > 0)
            break;
        if (len - ls > FEED_LINE_MAX) {
            seg->buf = seg->mem;
            return long_line(f, seg, seg->mem, seg->mem + ls);
        }
        if (seg->cap - len < MIN_READ)
            reserve(seg, seg->cap * 2);
        ssize_t got = read_more(f, seg, len);
        if (got < 0)
            return -1;
        const char *nl = memrchr(seg->mem + len, '\n', (size_t)got);
        len += (size_t)got;
        if (nl)
            ls = (size_t)(nl + 1 - seg->mem);
    }
    seg->buf = seg->mem;
    if (!f->done) {
        set_carry(f, seg->mem + ls, len - ls);
        seg->len = ls;
        return 1;
    }
    seg->len = len;
    if (len == 0)
        return 0;
    seg->unterminated = seg->mem[len - 1] != '\n';
    return 1;
}

int feeder_next(struct feeder *f, struct segment *seg)
{
    seg->long_line = seg->unterminated = 0;
    if (f->failed)
        return -1;
    if (f->marker_next) {
        f->marker_next = 0;
        return marker(seg);
    }
    if (f->map && !f->map_left) {
        int got = next_mapped(f, seg);
        if (got != 2)
            return got;
    }
    return next_read(f, seg);
}

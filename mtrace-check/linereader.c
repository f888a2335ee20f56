/* linereader.c - streaming line reader (see linereader.h).
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#include "linereader.h"
#include "fields.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

enum { CHUNK = 1 << 18, PREFETCH_AHEAD = 1024 };

/* The one mapped log (one at a time: the SIGBUS handler must find it). */
static char *volatile bus_map;
static volatile size_t bus_len; /* rounded up to whole pages */
static volatile size_t bus_page;
static volatile sig_atomic_t bus_hit;

/* The mapped file shrank and a page past its new end was touched: put
 * zero pages over the rest of the mapping so the access completes, and
 * remember it; the reader turns it into a read error (EIO) at the end.
 * Any other SIGBUS gets the default action when the access is retried. */
static void on_sigbus(int sig, siginfo_t *si, void *ctx)
{
    char *a = si->si_addr, *map = bus_map;
    (void)ctx;
    if (!map || a < map || a >= map + bus_len) {
        signal(sig, SIG_DFL);
        return;
    }
    char *from = (char *)((uintptr_t)a & ~(uintptr_t)(bus_page - 1));
    mmap(from, (size_t)(map + bus_len - from), PROT_READ,
         MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    bus_hit = 1;
}

/* Map a regular, non-empty file: the lines are then read in place, with
 * no copy through read() (a tenth of the run time on a big log). */
static void try_map(struct line_reader *lr, const struct stat *st)
{
    if (!S_ISREG(st->st_mode) || st->st_size <= 0 || bus_map ||
        (uint64_t)st->st_size > SIZE_MAX / 2)
        return;
    size_t len = (size_t)st->st_size, page = (size_t)sysconf(_SC_PAGESIZE);
    char *p = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, lr->fd, 0);
    if (p == MAP_FAILED)
        return;
    madvise(p, len, MADV_SEQUENTIAL);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGBUS, &sa, NULL);
    bus_page = page;
    bus_len = (len + page - 1) & ~(page - 1);
    bus_hit = 0;
    bus_map = p;
    free(lr->buf);
    lr->buf = p;
    lr->cap = lr->end = lr->mapped = len;
}

static void unmap(struct line_reader *lr)
{
    bus_map = NULL;
    munmap(lr->buf, lr->mapped);
    lr->mapped = 0;
}

/* The mapping is used up: carry its unfinished last line into a heap
 * buffer and go on with read() from the mapping's end, for whatever was
 * appended since the open.  Returns -1 (EIO) if the file shrank. */
static int leave_map(struct line_reader *lr)
{
    size_t rest = lr->end - lr->start, cap = CHUNK;
    while (cap < rest * 2)
        cap *= 2;
    char *buf = xmalloc(cap);
    memcpy(buf, lr->buf + lr->start, rest);
    off_t at = (off_t)lr->mapped;
    int shrunk = bus_hit;
    unmap(lr);
    lr->buf = buf;
    lr->cap = cap;
    lr->start = 0;
    lr->end = rest;
    if (shrunk || lseek(lr->fd, at, SEEK_SET) != at) {
        lr->read_errno = shrunk ? EIO : errno;
        return -1;
    }
    return 0;
}

void lr_init_fd(struct line_reader *lr, int fd)
{
    memset(lr, 0, sizeof *lr);
    lr->fd = fd;
    lr->cap = CHUNK;
    lr->buf = xmalloc(lr->cap);
}

int lr_open(struct line_reader *lr, const char *path)
{
    struct stat st;
    int fd = 0;

    if (strcmp(path, "-") != 0) {
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return errno;
    }
    int known = fstat(fd, &st) == 0;
    if (known && S_ISDIR(st.st_mode)) {
        if (fd != 0)
            close(fd);
        return EISDIR;
    }
    lr_init_fd(lr, fd);
    lr->owns_fd = fd != 0;
    /* Standard input may start anywhere in its file: read it. */
    if (known && fd != 0)
        try_map(lr, &st);
    return 0;
}

/* Make room for another read: drop consumed bytes, grow if the pending
 * partial line already fills the buffer (a line of megabytes). */
static void make_room(struct line_reader *lr)
{
    if (lr->start > 0) {
        memmove(lr->buf, lr->buf + lr->start, lr->end - lr->start);
        lr->end -= lr->start;
        lr->start = 0;
    }
    if (lr->end == lr->cap) {
        lr->cap *= 2;
        lr->buf = xrealloc(lr->buf, lr->cap);
    }
}

/* Read more bytes; returns bytes read, 0 at EOF, -1 on error. */
static ssize_t fill(struct line_reader *lr)
{
    ssize_t got;

    if (lr->mapped && leave_map(lr) < 0)
        return -1;
    make_room(lr);
    do
        got = read(lr->fd, lr->buf + lr->end, lr->cap - lr->end);
    while (got < 0 && errno == EINTR);
    if (got < 0) {
        lr->read_errno = errno;
        return -1;
    }
    lr->end += (size_t)got;
    return got;
}

int lr_next(struct line_reader *lr, const char **line, size_t *len)
{
    size_t scanned = lr->start;

    for (;;) {
        char *nl = memchr(lr->buf + scanned, '\n', lr->end - scanned);
        if (nl) {
            *line = lr->buf + lr->start;
            *len = (size_t)(nl - *line);
            lr->start = (size_t)(nl - lr->buf) + 1;
            return 1;
        }
        if (lr->at_eof)
            break;
        scanned = lr->end - lr->start; /* offset survives make_room */
        ssize_t got = fill(lr);
        scanned += lr->start;
        if (got < 0)
            return -1;
        if (got == 0)
            lr->at_eof = 1;
    }
    if (lr->start < lr->end) { /* truncated last line */
        *line = lr->buf + lr->start;
        *len = lr->end - lr->start;
        lr->start = lr->end;
        return 1;
    }
    return 0;
}

int lr_next_split(struct line_reader *lr, const char **line, size_t *len,
                  struct slice *f, size_t max, size_t *nf)
{
    const char *nl;

    for (;;) {
        const char *p = lr->buf + lr->start, *end = lr->buf + lr->end;
        /* Mapped pages are not in the cache yet, and the hardware
		 * prefetcher stops at page boundaries: ask for a few lines on. */
        __builtin_prefetch(p + PREFETCH_AHEAD);
        *nf = split_line(p, end, f, max, &nl);
        if (nl || (lr->at_eof && p < end)) {
            /* A line, or the truncated last line. */
            *line = p;
            *len = (size_t)((nl ? nl : end) - p);
            lr->start = (size_t)((nl ? nl + 1 : end) - lr->buf);
            return 1;
        }
        if (lr->at_eof)
            return 0;
        /* The line continues past the buffer: read more and split again
		 * from its start, since fill() may move it. */
        ssize_t got = fill(lr);
        if (got < 0)
            return -1;
        if (got == 0)
            lr->at_eof = 1;
    }
}

void lr_close(struct line_reader *lr)
{
    if (lr->owns_fd)
        close(lr->fd);
    if (lr->mapped)
        unmap(lr);
    else
        free(lr->buf);
    lr->buf = NULL;
}

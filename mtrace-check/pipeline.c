/* pipeline.c - a reader thread and the engine thread joined by a ring of
 * buffers (see pipeline.h).  Each buffer ends after a newline; the bytes
 * of a line cut by the buffer's end are carried into the next one, and a
 * buffer grows until it holds at least one whole line (a line of
 * megabytes).  The reader also splits the lines: for each line it stores
 * its length and its fields as byte offsets (short lines only; the engine
 * splits long ones itself), so the engine thread does nothing but replay.
 * The threads meet once per buffer, not once per line.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#define _GNU_SOURCE /* memrchr */
#include "pipeline.h"
#include "fields.h"
#include "lineindex.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {
    RING = 4, /* buffers in flight */
    BUFFER_BYTES = 1 << 20,
};

struct buffer {
    struct line_indexer index; /* its lines, split by the reader */
    char *data;
    size_t cap;
    size_t len;    /* bytes handed to the engine */
    size_t filled; /* bytes read (len plus the carried tail) */
    int last;      /* no buffer follows: the end, or an error */
    int read_errno;
};

struct ring {
    struct buffer slots[RING];
    size_t head, tail, count;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int fd;
};

static struct buffer *take_empty(struct ring *r)
{
    pthread_mutex_lock(&r->lock);
    while (r->count == RING)
        pthread_cond_wait(&r->changed, &r->lock);
    struct buffer *b = &r->slots[r->head];
    pthread_mutex_unlock(&r->lock);
    b->len = b->filled = 0;
    b->last = b->read_errno = 0;
    return b;
}

static void publish(struct ring *r)
{
    pthread_mutex_lock(&r->lock);
    r->head = (r->head + 1) % RING;
    r->count++;
    pthread_cond_broadcast(&r->changed);
    pthread_mutex_unlock(&r->lock);
}

static struct buffer *take_full(struct ring *r)
{
    pthread_mutex_lock(&r->lock);
    while (r->count == 0)
        pthread_cond_wait(&r->changed, &r->lock);
    struct buffer *b = &r->slots[r->tail];
    pthread_mutex_unlock(&r->lock);
    return b;
}

static void give_back(struct ring *r)
{
    pthread_mutex_lock(&r->lock);
    r->tail = (r->tail + 1) % RING;
    r->count--;
    pthread_cond_broadcast(&r->changed);
    pthread_mutex_unlock(&r->lock);
}

/* read() until the buffer is full or the input ends; returns bytes read,
 * or -1 with errno set. */
static ssize_t read_some(int fd, struct buffer *b)
{
    ssize_t got;
    do
        got = read(fd, b->data + b->filled, b->cap - b->filled);
    while (got < 0 && errno == EINTR);
    if (got > 0)
        b->filled += (size_t)got;
    return got;
}

/* Read into B until it holds enough whole lines for a handoff, or the
 * input ends, and split them.  Returns 0 when B is the last buffer. */
static int load_buffer(int fd, struct buffer *b)
{
    for (;;) {
        ssize_t got = read_some(fd, b);
        if (got <= 0) {
            b->len = b->filled; /* a truncated last line too */
            b->last = 1;
            b->read_errno = got < 0 ? errno : 0;
            index_buffer(&b->index, b->data, b->len);
            return 0;
        }
        const char *nl = memrchr(b->data, '\n', b->filled);
        if (!nl) {
            if (b->filled == b->cap) /* no whole line yet: grow */
                b->data = xrealloc(b->data, b->cap *= 2);
            continue;
        }
        if (b->filled < b->cap / 2)
            continue; /* fill up before a handoff */
        b->len = (size_t)(nl - b->data) + 1;
        index_buffer(&b->index, b->data, b->len);
        return 1;
    }
}

/* Start TO with the part of a line that FROM's end cut off. */
static void carry_over(const struct buffer *from, struct buffer *to)
{
    size_t carry = from->filled - from->len;
    if (carry > to->cap)
        to->data = xrealloc(to->data, to->cap = carry * 2);
    memmove(to->data, from->data + from->len, carry);
    to->filled = carry;
}

static void *reader(void *arg)
{
    struct ring *r = arg;
    struct buffer *b = take_empty(r);

    while (load_buffer(r->fd, b)) {
        struct buffer *done = b;
        publish(r);
        b = take_empty(r);
        carry_over(done, b);
    }
    publish(r);
    return NULL;
}

static void replay_buffer(struct engine *e, const struct buffer *b)
{
    struct slice f[ENGINE_FIELDS];
    const char *p = b->data;

    for (size_t i = 0; i < b->index.nlines; i++) {
        const struct line_index *li = &b->index.lines[i];
        if (li->is_long) {
            size_t nf = split_fields(p, li->len, f, ENGINE_FIELDS);
            engine_split_line(e, p, li->len, f, nf);
        } else {
            for (size_t k = 0; k < li->nf; k++)
                f[k] = (struct slice){ p + li->start[k], li->size[k] };
            engine_hashed_line(e, p, li->len, f, li->nf, li->addr_hash);
        }
        p += li->len + 1;
    }
}

static void ring_init(struct ring *r, int fd)
{
    memset(r, 0, sizeof *r);
    r->fd = fd;
    pthread_mutex_init(&r->lock, NULL);
    pthread_cond_init(&r->changed, NULL);
    for (int i = 0; i < RING; i++) {
        r->slots[i].cap = BUFFER_BYTES;
        r->slots[i].data = xmalloc(BUFFER_BYTES);
        indexer_init(&r->slots[i].index);
    }
}

static void ring_destroy(struct ring *r)
{
    for (int i = 0; i < RING; i++) {
        free(r->slots[i].data);
        indexer_destroy(&r->slots[i].index);
    }
    pthread_mutex_destroy(&r->lock);
    pthread_cond_destroy(&r->changed);
}

/* Alone, splitting line by line is faster than indexing whole buffers
 * (the bitmaps pay off only when another core builds them). */
int replay_serial(struct line_reader *lr, struct engine *e)
{
    struct slice f[ENGINE_FIELDS];
    const char *line;
    size_t len, nf;
    int got;

    while ((got = lr_next_split(lr, &line, &len, f, ENGINE_FIELDS, &nf)) > 0)
        engine_split_line(e, line, len, f, nf);
    return got < 0 ? -1 : 0;
}

int spare_cpu(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    double load;

    if (cpus < 2 || getloadavg(&load, 1) != 1)
        return 0;
    return load <= (double)cpus - 1.5;
}

int pipeline_run(struct line_reader *lr, struct engine *e)
{
    struct ring r;
    pthread_t thread;
    int read_errno = 0;

    ring_init(&r, lr->fd);
    if (pthread_create(&thread, NULL, reader, &r) != 0) {
        ring_destroy(&r);
        return replay_serial(lr, e);
    }
    for (;;) {
        struct buffer *b = take_full(&r);
        replay_buffer(e, b);
        int last = b->last;
        read_errno = b->read_errno;
        give_back(&r);
        if (last)
            break;
    }
    pthread_join(thread, NULL);
    ring_destroy(&r);
    if (read_errno) {
        lr->read_errno = read_errno;
        return -1;
    }
    return 0;
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* source.c - reading a log, plain or compressed (see source.h).
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "read/source.h"
#include "read/zsource.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static ssize_t read_fd(struct source *s, void *buf, size_t n)
{
    ssize_t got;
    do
        got = read(s->fd, buf, n);
    while (got < 0 && errno == EINTR);
    if (got < 0)
        snprintf(s->error, sizeof s->error, "read error: %s", strerror(errno));
    return got;
}

/* The file's bytes as they are: the looked-at head first, then read(2). */
static ssize_t read_raw(struct source *s, void *buf, size_t n)
{
    if (s->head_pos < s->head_len) {
        size_t k = s->head_len - s->head_pos;
        if (k > n)
            k = n;
        memcpy(buf, s->head + s->head_pos, k);
        s->head_pos += k;
        return (ssize_t)k;
    }
    return read_fd(s, buf, n);
}

/* zstd frames start with 28 b5 2f fd, skippable frames with 5? 2a 4d 18;
 * gzip members with 1f 8b.  No text log starts with these bytes. */
static enum src_format sniff(const unsigned char *h, size_t n)
{
    if (n >= 4 && h[0] == 0x28 && h[1] == 0xb5 && h[2] == 0x2f && h[3] == 0xfd)
        return SRC_ZSTD;
    if (n >= 4 && (h[0] & 0xf0) == 0x50 && h[1] == 0x2a && h[2] == 0x4d &&
        h[3] == 0x18)
        return SRC_ZSTD;
    if (n >= 2 && h[0] == 0x1f && h[1] == 0x8b)
        return SRC_GZIP;
    return SRC_PLAIN;
}

/* Read the first few bytes (a pipe may hand them out one at a time). */
static int read_head(struct source *s)
{
    while (s->head_len < 4) {
        ssize_t got = read_fd(s, s->head + s->head_len, 4 - s->head_len);
        if (got < 0)
            return -1;
        if (got == 0)
            break;
        s->head_len += (size_t)got;
    }
    return 0;
}

void src_open_fd(struct source *s, int fd)
{
    memset(s, 0, sizeof *s);
    s->fd = fd;
    if (read_head(s) < 0)
        return; /* the error is reported by the first src_read */
    s->format = sniff(s->head, s->head_len);
    if (s->format != SRC_PLAIN)
        s->dec = zdec_new(s->format);
}

int src_open(struct source *s, const char *path)
{
    struct stat st;
    int fd = 0;

    if (strcmp(path, "-") != 0) {
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return errno;
    }
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        if (fd != 0)
            close(fd);
        return EISDIR;
    }
    /* The whole file is read once, front to back. */
    posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    src_open_fd(s, fd);
    s->owns_fd = fd != 0;
    return 0;
}

ssize_t src_read(struct source *s, char *buf, size_t n)
{
    if (s->error[0])
        return -1;
    if (!s->dec)
        return read_raw(s, buf, n);
    return zdec_read(s->dec, s, read_raw, buf, n);
}

void src_close(struct source *s)
{
    if (s->dec)
        zdec_free(s->dec);
    if (s->owns_fd)
        close(s->fd);
    s->dec = NULL;
    s->owns_fd = 0;
}

int src_seek(struct source *s, off_t off)
{
    s->head_pos = s->head_len;
    if (lseek(s->fd, off, SEEK_SET) == off)
        return 0;
    snprintf(s->error, sizeof s->error, "read error: %s", strerror(errno));
    return -1;
}

const char *src_format_name(enum src_format f)
{
    switch (f) {
    case SRC_ZSTD:
        return "zstd";
    case SRC_GZIP:
        return "gzip";
    case SRC_PLAIN:
        break;
    }
    return "plain";
}

long src_peek(const char *path, char *buf, size_t cap)
{
    struct source s;
    struct stat st;
    size_t n = 0;

    /* Only a regular file can be read twice: a FIFO's bytes would be lost
     * to the log reader (and opening one could wait for a writer). */
    if (cap == 0 || stat(path, &st) != 0 || !S_ISREG(st.st_mode) ||
        src_open(&s, path) != 0)
        return -1;
    while (n + 1 < cap) {
        ssize_t got = src_read(&s, buf + n, cap - 1 - n);
        if (got <= 0)
            break;
        n += (size_t)got;
    }
    int failed = n == 0 && s.error[0];
    src_close(&s);
    buf[n] = '\0';
    return failed ? -1 : (long)n;
}

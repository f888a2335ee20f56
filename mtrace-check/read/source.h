/* SPDX-License-Identifier: GPL-3.0-or-later */
/* source.h - the bytes of a log, wherever they are: a file, a pipe,
 * standard input or a device, plain or compressed with zstd or gzip.
 * Compression is told by the first bytes (the formats' magic numbers),
 * never by the file name, so a compressed log also reads from standard
 * input.  Bytes are read with read(2) into the caller's buffer and
 * decompressed there: the memory used is the caller's buffers and the
 * decompressor's window, never the size of the log.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_SOURCE_H
#define MTC_SOURCE_H

#include <stddef.h>
#include <sys/types.h>

enum src_format { SRC_PLAIN, SRC_ZSTD, SRC_GZIP };

struct zdecoder; /* zsource.h */

struct source {
    int fd;
    int owns_fd;
    enum src_format format;
    /* Bytes read to look for a magic number, handed out again first. */
    unsigned char head[8];
    size_t head_len, head_pos;
    struct zdecoder *dec; /* NULL for a plain log */
    int truncated;        /* the compressed stream ended inside a frame */
    char error[160];      /* what went wrong when a read returned -1 */
};

/* Open PATH ("-": standard input) and look at its first bytes.  Returns 0,
 * or an errno value (EISDIR for a directory); ENOMEM-free: running out of
 * memory ends the program. */
int src_open(struct source *s, const char *path);

/* The same on an open descriptor, which stays open after src_close (it
 * is read, never mapped). */
void src_open_fd(struct source *s, int fd);

/* Up to N bytes of the (decompressed) log into BUF: the count, 0 at its
 * end, or -1 on an error described by s->error.  A compressed stream that
 * stops inside a frame (a log cut short while written) ends normally,
 * with s->truncated set. */
ssize_t src_read(struct source *s, char *buf, size_t n);

void src_close(struct source *s);

/* Go on reading a plain file at offset OFF (after mapping the bytes
 * before it); 0, or -1 (s->error says why). */
int src_seek(struct source *s, off_t off);

/* "zstd", "gzip" or "plain". */
const char *src_format_name(enum src_format f);

/* The first bytes of the (decompressed) file at PATH, up to CAP - 1 of
 * them, NUL-terminated, in BUF; returns how many, or -1 when PATH cannot
 * be read or is not a regular file (a pipe cannot be read twice). */
long src_peek(const char *path, char *buf, size_t cap);

#endif

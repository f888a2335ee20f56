/* SPDX-License-Identifier: GPL-3.0-or-later */
/* zsource.c - zstd and gzip decompression for source.c (see zsource.h).
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "read/zsource.h"
#include "base/diag.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

enum { IN_BYTES = 1 << 17 };

struct zdecoder {
    enum src_format format;
    ZSTD_DCtx *zstd;
    z_stream gz;
    unsigned char *in;
    size_t in_pos, in_len;
    int in_eof;
    int mid_frame; /* a frame (member) was begun and not finished */
    int pending;   /* the last step filled its output: more may be held */
};

struct zdecoder *zdec_new(enum src_format f)
{
    struct zdecoder *d = xcalloc(1, sizeof *d);
    d->format = f;
    d->in = xmalloc(IN_BYTES);
    int ok = f == SRC_ZSTD ? (d->zstd = ZSTD_createDCtx()) != NULL
                           : inflateInit2(&d->gz, 15 + 32) == Z_OK; /* gzip */
    if (!ok)
        diag_fatal(NULL, "out of memory (%s decompressor)", src_format_name(f));
    return d;
}

void zdec_free(struct zdecoder *d)
{
    if (d->zstd)
        ZSTD_freeDCtx(d->zstd);
    else
        inflateEnd(&d->gz);
    free(d->in);
    free(d);
}

/* More compressed input when the buffer is used up; -1 on a read error. */
static int refill(struct zdecoder *d, struct source *s, zraw_fn raw)
{
    if (d->in_pos < d->in_len || d->in_eof)
        return 0;
    ssize_t got = raw(s, d->in, IN_BYTES);
    if (got < 0)
        return -1;
    d->in_pos = 0;
    d->in_len = (size_t)got;
    d->in_eof = got == 0;
    return 0;
}

/* One decompression step into OUT; returns bytes produced, -1 on bad
 * data (the message in s->error). */
static ssize_t step_zstd(struct zdecoder *d, struct source *s, char *buf,
                         size_t n)
{
    ZSTD_inBuffer in = { d->in, d->in_len, d->in_pos };
    ZSTD_outBuffer out = { buf, n, 0 };
    size_t r = ZSTD_decompressStream(d->zstd, &out, &in);
    d->in_pos = in.pos;
    if (ZSTD_isError(r)) {
        snprintf(s->error, sizeof s->error, "corrupt zstd data: %s",
                 ZSTD_getErrorName(r));
        return -1;
    }
    d->mid_frame = r != 0; /* 0: a frame just ended */
    return (ssize_t)out.pos;
}

static ssize_t step_gzip(struct zdecoder *d, struct source *s, char *buf,
                         size_t n)
{
    if (!d->mid_frame && d->in_pos < d->in_len) {
        inflateReset(&d->gz); /* the next member of a concatenation */
        d->mid_frame = 1;
    }
    d->gz.next_in = d->in + d->in_pos;
    d->gz.avail_in = (uInt)(d->in_len - d->in_pos);
    d->gz.next_out = (Bytef *)buf;
    d->gz.avail_out = n > UINT32_MAX ? UINT32_MAX : (uInt)n;
    int r = inflate(&d->gz, Z_NO_FLUSH);
    d->in_pos = d->in_len - d->gz.avail_in;
    if (r == Z_STREAM_END) {
        d->mid_frame = 0;
    } else if (r != Z_OK && r != Z_BUF_ERROR) {
        snprintf(s->error, sizeof s->error, "corrupt gzip data: %s",
                 d->gz.msg ? d->gz.msg : "inflate failed");
        return -1;
    }
    return (ssize_t)(n - d->gz.avail_out);
}

ssize_t zdec_read(struct zdecoder *d, struct source *s, zraw_fn raw, char *buf,
                  size_t n)
{
    for (;;) {
        if (refill(d, s, raw) < 0)
            return -1;
        int no_input = d->in_pos == d->in_len; /* only at the end */
        if (!no_input || d->pending) {
            ssize_t got = d->zstd ? step_zstd(d, s, buf, n)
                                  : step_gzip(d, s, buf, n);
            d->pending = got == (ssize_t)n;
            if (got != 0)
                return got;
        }
        if (no_input) {
            /* The input is over; a frame left open was cut short. */
            s->truncated = d->mid_frame;
            return 0;
        }
    }
}

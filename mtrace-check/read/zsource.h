/* SPDX-License-Identifier: GPL-3.0-or-later */
/* zsource.h - streaming decompression of zstd and gzip logs (libzstd,
 * zlib) for source.c.  Concatenated frames (zstd) and members (gzip) are
 * read one after the other, as zstdcat and zcat do.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#ifndef MTC_ZSOURCE_H
#define MTC_ZSOURCE_H

#include "read/source.h"

/* Reads compressed bytes for the decoder: a count, 0 at the end of the
 * input, -1 on an error (described in the source). */
typedef ssize_t (*zraw_fn)(struct source *s, void *buf, size_t n);

struct zdecoder *zdec_new(enum src_format f);
void zdec_free(struct zdecoder *d);

/* Up to N decompressed bytes into BUF, pulling input through RAW: as
 * src_read (see source.h). */
ssize_t zdec_read(struct zdecoder *d, struct source *s, zraw_fn raw, char *buf,
                  size_t n);

#endif

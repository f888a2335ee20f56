/* lineindex.h - splitting a whole buffer of log lines at once.  The reader
 * thread turns its buffer into bitmaps (whitespace, field starts, field
 * ends, newlines) 64 bytes at a time, then reads every line and its fields
 * off the bitmaps with bit scans: each byte is looked at once, whatever the
 * length of the lines.  The result is what split_fields gives per line.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_LINEINDEX_H
#define MTC_LINEINDEX_H

#include "engine.h"

/* Field offsets fit in a byte for lines shorter than this; longer lines
 * are marked and split again by whoever replays them. */
enum { SHORT_LINE = 256 };

struct line_index {
    uint64_t addr_hash; /* hash_bytes of the address field */
    uint32_t len;       /* without the newline */
    uint8_t nf;
    uint8_t is_long;
    uint8_t start[ENGINE_FIELDS];
    uint8_t size[ENGINE_FIELDS];
};

struct line_indexer {
    struct line_index *lines;
    size_t nlines, cap_lines;
    uint64_t *starts, *ends, *newlines; /* one bit per byte */
    size_t cap_words;
};

void indexer_init(struct line_indexer *ix);
void indexer_destroy(struct line_indexer *ix);

/* Index the lines of DATA[0, LEN): every line ends at a newline, except
 * possibly the last.  Replaces the previous contents of IX->lines. */
void index_buffer(struct line_indexer *ix, const char *data, size_t len);

#endif

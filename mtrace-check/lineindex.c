/* lineindex.c - whole-buffer line and field splitting (see lineindex.h).
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#include "lineindex.h"
#include "fields.h"
#include "wsmask.h"

#include <stdlib.h>
#include <string.h>

void indexer_init(struct line_indexer *ix)
{
    memset(ix, 0, sizeof *ix);
}

void indexer_destroy(struct line_indexer *ix)
{
    free(ix->lines);
    free(ix->starts);
    free(ix->ends);
    free(ix->newlines);
    memset(ix, 0, sizeof *ix);
}

static void reserve_words(struct line_indexer *ix, size_t words)
{
    if (words <= ix->cap_words)
        return;
    ix->cap_words = words * 2;
    ix->starts = xrealloc(ix->starts, ix->cap_words * sizeof(uint64_t));
    ix->ends = xrealloc(ix->ends, ix->cap_words * sizeof(uint64_t));
    ix->newlines = xrealloc(ix->newlines, ix->cap_words * sizeof(uint64_t));
}

/* Pass 1: field starts (text after whitespace or at 0), field ends (the
 * first whitespace byte after text, or LEN) and newlines, as bitmaps.
 * Bytes past LEN count as whitespace, so a last field ends at LEN. */
static void build_bitmaps(struct line_indexer *ix, const unsigned char *data,
                          size_t len)
{
    size_t nwords = (len + 63) / 64;
    uint64_t carry = 0; /* was the byte before this block text? */

    reserve_words(ix, nwords + 2);
    for (size_t w = 0; w < nwords; w++) {
        const unsigned char *blk = data + 64 * w;
        size_t avail = len - 64 * w;
        unsigned char tmp[64];
        uint64_t ws, nl;
        if (avail < 64) {
            memset(tmp, ' ', sizeof tmp);
            memcpy(tmp, blk, avail);
            blk = tmp;
        }
        whitespace_masks64(blk, &ws, &nl);
        uint64_t text = ~ws;
        uint64_t before = (text << 1) | carry;
        ix->starts[w] = text & ~before;
        ix->ends[w] = ~text & before;
        ix->newlines[w] = nl;
        carry = text >> 63;
    }
    ix->starts[nwords] = ix->starts[nwords + 1] = 0;
    ix->ends[nwords] = carry; /* a field touching LEN = 64 * nwords */
    ix->ends[nwords + 1] = 0;
    ix->newlines[nwords] = ix->newlines[nwords + 1] = 0;
}

/* The 64 bits of MAP starting at bit POS (the map has a zero word past
 * its last one, so POS may be anywhere up to LEN). */
static inline uint64_t window(const uint64_t *map, size_t pos)
{
    size_t w = pos >> 6;
    unsigned b = pos & 63;
    uint64_t lo = map[w] >> b;
    return b ? lo | (map[w + 1] << (64 - b)) : lo;
}

/* The first set bit at or after FROM and before LIMIT, or LIMIT. */
static inline size_t next_bit(const uint64_t *map, size_t from, size_t limit)
{
    if (from >= limit)
        return limit;
    size_t w = from >> 6;
    uint64_t m = map[w] & (~(uint64_t)0 << (from & 63));
    while (!m) {
        if (++w << 6 >= limit)
            return limit;
        m = map[w];
    }
    size_t at = (w << 6) + (size_t)__builtin_ctzll(m);
    return at < limit ? at : limit;
}

static struct line_index *new_line(struct line_indexer *ix)
{
    if (ix->nlines == ix->cap_lines) {
        ix->cap_lines = ix->cap_lines ? ix->cap_lines * 2 : 32768;
        ix->lines = xrealloc(ix->lines, ix->cap_lines * sizeof *ix->lines);
    }
    return &ix->lines[ix->nlines++];
}

/* The engine's address field, hashed here so the replaying thread need
 * not: "@ WHERE op ADDR" or "op ADDR". */
static uint64_t address_hash(const char *line, const struct line_index *li)
{
    size_t at = li->nf > 0 && li->size[0] == 1 && line[li->start[0]] == '@' ? 3
                                                                            : 1;
    if (at >= li->nf)
        return hash_bytes("", 0);
    return hash_bytes(line + li->start[at], li->size[at]);
}

/* A line that ends within 64 bytes of POS, LIMIT bytes long: its fields
 * come pairwise out of one window of the start and end maps. */
static void short_line_fields(const struct line_indexer *ix, size_t pos,
                              unsigned limit, struct line_index *li)
{
    uint64_t below_limit = limit ? ~(uint64_t)0 >> (64 - limit) : 0;
    uint64_t st = window(ix->starts, pos) & below_limit;
    uint64_t en = window(ix->ends, pos); /* pairs with st, in order */

    li->nf = 0;
    while (st && li->nf < ENGINE_FIELDS) {
        unsigned s = (unsigned)__builtin_ctzll(st);
        unsigned e = (unsigned)__builtin_ctzll(en);
        li->start[li->nf] = (uint8_t)s;
        li->size[li->nf] = (uint8_t)(e - s);
        li->nf++;
        st &= st - 1;
        en &= en - 1;
    }
}

/* Any other line: field by field with bit searches. */
static void long_line_fields(const struct line_indexer *ix, size_t pos,
                             size_t end, size_t len, struct line_index *li)
{
    li->nf = 0;
    for (size_t s = pos; li->nf < ENGINE_FIELDS;) {
        s = next_bit(ix->starts, s, end);
        if (s == end)
            break;
        size_t e = next_bit(ix->ends, s + 1, len + 1);
        li->start[li->nf] = (uint8_t)(s - pos);
        li->size[li->nf] = (uint8_t)(e - s);
        li->nf++;
        s = e;
    }
}

/* Pass 2: lines and their fields, read off the bitmaps. */
static void read_lines(struct line_indexer *ix, const char *data, size_t len)
{
    size_t pos = 0;

    while (pos < len) {
        /* Bits past LEN are zero, so a newline seen here is a real one. */
        uint64_t nl = window(ix->newlines, pos);
        size_t end = nl ? pos + (size_t)__builtin_ctzll(nl)
                        : next_bit(ix->newlines, pos, len);
        struct line_index *li = new_line(ix);
        li->len = (uint32_t)(end - pos);
        li->is_long = end - pos >= SHORT_LINE;
        if (nl)
            short_line_fields(ix, pos, (unsigned)(end - pos), li);
        else if (!li->is_long)
            long_line_fields(ix, pos, end, len, li);
        if (!li->is_long)
            li->addr_hash = address_hash(data + pos, li);
        pos = end + 1;
    }
}

void index_buffer(struct line_indexer *ix, const char *data, size_t len)
{
    ix->nlines = 0;
    build_bitmaps(ix, (const unsigned char *)data, len);
    read_lines(ix, data, len);
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* preview.c - the "#b" records (see preview.h).
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "replay/preview.h"
#include "read/fields.h"

#include <stdlib.h>
#include <string.h>

void previews_init(struct previews *p)
{
    memset(p, 0, sizeof *p);
    u64map_init(&p->by_addr);
}

static void free_preview(void *v)
{
    struct block_preview *b = v;
    free(b->type);
    free(b);
}

void previews_destroy(struct previews *p)
{
    u64map_each(&p->by_addr, free_preview);
    u64map_destroy(&p->by_addr);
    memset(p, 0, sizeof *p);
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* HEX into OUT: exactly N bytes; 0, or -1. */
static int parse_bytes(struct slice hex, unsigned char *out, uint64_t n)
{
    if (hex.n != 2 * n)
        return -1;
    for (size_t i = 0; i < n; i++) {
        int hi = hex_digit(hex.p[2 * i]), lo = hex_digit(hex.p[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return -1;
        out[i] = (unsigned char)(hi << 4 | lo);
    }
    return 0;
}

/* "MID:0xOFF". */
static int parse_ref(struct slice s, uint64_t *mid, uint64_t *off)
{
    const char *colon = memchr(s.p, ':', s.n);
    if (colon == NULL)
        return -1;
    struct slice a = { s.p, (size_t)(colon - s.p) };
    struct slice b = { colon + 1, s.n - a.n - 1 };
    return parse_dec_u64(a, mid) || parse_0xhex_u64(b, off) ? -1 : 0;
}

void previews_record(struct previews *p, const struct slice *f, size_t nf,
                     uint64_t scan_line)
{
    struct block_preview b;
    uint64_t addr, n;
    memset(&b, 0, sizeof b);
    if (scan_line == 0 || nf < 4 || nf > 5 || parse_0xhex_u64(f[1], &addr) ||
        parse_dec_u64(f[2], &n) || n > MTF_PREVIEW_BYTES ||
        parse_bytes(f[3], b.bytes, n) ||
        (nf == 5 && parse_ref(f[4], &b.mid, &b.off))) {
        p->bad_records++;
        return;
    }
    b.n = (unsigned)n;
    b.has_ref = nf == 5;
    b.scan_line = scan_line;
    void **slot = u64map_put(&p->by_addr, addr);
    if (*slot)
        free_preview(*slot);
    struct block_preview *kept = xmalloc(sizeof *kept);
    *kept = b;
    *slot = kept;
}

struct block_preview *previews_find(const struct previews *p,
                                    const struct verdicts *v,
                                    const struct block *b)
{
    if (v->scans == 0 || b->line > v->scan_line)
        return NULL;
    void **slot = u64map_get((struct u64map *)&p->by_addr,
                             perl_hex(block_key(b)));
    struct block_preview *e = slot ? *slot : NULL;
    return e && e->scan_line == v->scan_line ? e : NULL;
}

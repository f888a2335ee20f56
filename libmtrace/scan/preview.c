/* SPDX-License-Identifier: GPL-3.0-or-later */
/* preview.c - the "#b" records of a scan (see preview.h): for the first
 * definitely lost block of each allocation stack, in address order, how
 * many of its first bytes follow and those bytes in hex (the count comes
 * first: glibc's Perl mtrace reads the third field of every line with
 * hex(), and a long hex string there overflows with a warning), and its first word as MID:0xOFF when a module holds
 * that address.  Reads go through blockset_read_word, which is careful
 * when a thread could not be stopped.  The module records ("#m") a
 * pointer names are written first if the log lacks them.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "scan/preview.h"
#include "../include/mtrace-format.h"
#include "base/fmt.h"
#include "log/tracelog.h"
#include "scan/classify.h"
#include "symbols/modmap.h"
#include <string.h>

/* The stacks given a record in this scan: open addressing on stack + 1
 * (0: empty); twice PREVIEW_MAX slots, so it never fills. */
#define SEEN_SLOTS (2 * PREVIEW_MAX)
static uint32_t seen[SEEN_SLOTS];

/* 1 when STACK is new to this scan (and now noted). */
static int first_of_stack(uint32_t stack)
{
    uint32_t key = stack + 1, h = (key * 2654435761u) % SEEN_SLOTS;
    while (seen[h] && seen[h] != key)
        h = (h + 1) % SEEN_SLOTS;
    if (seen[h])
        return 0;
    seen[h] = key;
    return 1;
}

static const struct module *module_of(uintptr_t w)
{
    for (int i = 0; i < modmap_count(); i++) {
        const struct module *m = modmap_get(i);
        if (m && w >= m->lo && w < m->hi && !atomic_load(&m->unloaded))
            return m;
    }
    return NULL;
}

static char *put_hex_bytes(char *p, const unsigned char *b, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        *p++ = digits[b[i] >> 4];
        *p++ = digits[b[i] & 15];
    }
    return p;
}

/* The record of block I. */
static void put_block(struct blockset *bs, size_t i)
{
    uintptr_t start = block_start(bs, i), words[MTF_PREVIEW_BYTES / 8];
    uint64_t size = block_size(bs, i);
    size_t n = size < MTF_PREVIEW_BYTES ? (size_t)size : MTF_PREVIEW_BYTES;
    size_t nwords = (n + 7) / 8;
    for (size_t k = 0; k < nwords; k++)
        if (!blockset_read_word(bs, start + 8 * k, &words[k]))
            return; /* unreadable: no record */
    const struct module *m = n >= 8 ? module_of(words[0]) : NULL;
    if (m)
        tracelog_scan_module(m->id);
    char line[64 + 2 * MTF_PREVIEW_BYTES], *p = line;
    memcpy(p, MTF_REC_PREVIEW " ", 3);
    p = fmt_ptr(p + 3, start);
    *p++ = ' ';
    p = fmt_dec(p, n);
    *p++ = ' ';
    p = put_hex_bytes(p, (const unsigned char *)words, n);
    if (m) {
        *p++ = ' ';
        p = fmt_dec(p, (uint64_t)m->id);
        *p++ = ':';
        p = fmt_ptr(p, words[0] - m->bias);
    }
    *p++ = '\n';
    tracelog_scan_put(line, (size_t)(p - line));
}

void preview_put(struct blockset *bs)
{
    size_t written = 0;
    memset(seen, 0, sizeof seen);
    for (size_t i = 0; i < bs->n && written < PREVIEW_MAX; i++) {
        if (block_verdict(bs, i) != VERDICT_DEFINITE ||
            (block_flags(bs, i) & BLOCK_FOREIGN) || block_size(bs, i) == 0 ||
            !first_of_stack(block_stack(bs, i)))
            continue;
        put_block(bs, i);
        written++;
    }
}

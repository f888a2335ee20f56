/* SPDX-License-Identifier: GPL-3.0-or-later */
/* json.c - JSON strings from arbitrary bytes (see json.h).
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "output/json.h"

#include <inttypes.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at P (at most N bytes), 0 if none. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
    size_t need;
    uint32_t cp;

    if (p[0] < 0x80)
        return 1;
    if (p[0] >= 0xc2 && p[0] <= 0xdf)
        need = 2, cp = p[0] & 0x1f;
    else if (p[0] >= 0xe0 && p[0] <= 0xef)
        need = 3, cp = p[0] & 0x0f;
    else if (p[0] >= 0xf0 && p[0] <= 0xf4)
        need = 4, cp = p[0] & 0x07;
    else
        return 0;
    if (need > n)
        return 0;
    for (size_t i = 1; i < need; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (p[i] & 0x3f);
    }
    /* Reject overlong forms, surrogates and values past U+10FFFF. */
    if ((need == 3 && cp < 0x800) || (need == 4 && cp < 0x10000) ||
        (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
        return 0;
    return need;
}

void json_string(FILE *out, struct slice s)
{
    const unsigned char *p = (const unsigned char *)s.p;

    putc('"', out);
    for (size_t i = 0; i < s.n;) {
        unsigned char c = p[i];
        size_t k = utf8_len(p + i, s.n - i);
        if (c == '"' || c == '\\') {
            putc('\\', out);
            putc(c, out);
        } else if (c == '\n') {
            fputs("\\n", out);
        } else if (c == '\t') {
            fputs("\\t", out);
        } else if (c < 0x20 || c == 0x7f || k == 0) {
            fprintf(out, "\\u%04x", c);
        } else {
            fwrite(p + i, 1, k, out);
            i += k;
            continue;
        }
        i++;
    }
    putc('"', out);
}

void json_cstring(FILE *out, const char *s)
{
    if (!s)
        fputs("null", out);
    else
        json_string(out, (struct slice){ s, strlen(s) });
}

void json_hex(FILE *out, uint64_t v)
{
    fprintf(out, "\"0x%" PRIx64 "\"", v);
}

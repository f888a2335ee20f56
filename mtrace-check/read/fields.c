/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fields.c - tokenizer and number parsers (see fields.h for the rules).
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "read/fields.h"
#include "read/wsmask.h"

#include <string.h>

/* Perl >= 5.18 \s on byte strings: \t \n \v \f \r and space.  Verified
 * against perl 5.36 for all 256 byte values. */
static const unsigned char space_table[256] = {
    ['\t'] = 1, ['\n'] = 1, ['\v'] = 1, ['\f'] = 1, ['\r'] = 1, [' '] = 1,
};

int perl_is_space(unsigned char c)
{
    return space_table[c];
}

static uint64_t load_word(const unsigned char *s)
{
    uint64_t w;
    memcpy(&w, s, 8);
    return w;
}

/* The first whitespace byte in [s, end), or end.  Eight bytes at a time:
 * every whitespace byte is below 0x21, and the lowest byte flagged by the
 * "has a byte less than" trick is always a true one, so only flagged bytes
 * need the exact table test (NUL and other control bytes are flagged too). */
static const unsigned char *next_space(const unsigned char *s,
                                       const unsigned char *end)
{
    const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;

    while (end - s >= 8) {
        uint64_t w = load_word(s);
        uint64_t m = (w - ones * 0x21) & ~w & highs;
        if (!m) {
            s += 8;
            continue;
        }
        const unsigned char *c = s + (__builtin_ctzll(m) >> 3);
        if (space_table[*c])
            return c;
        s = c + 1;
    }
    while (s < end && !space_table[*s])
        s++;
    return s;
}

size_t split_fields(const char *line, size_t len, struct slice *out, size_t max)
{
    const unsigned char *s = (const unsigned char *)line, *end = s + len;
    size_t count = 0;

    while (count < max) {
        while (s < end && space_table[*s])
            s++;
        if (s == end)
            break;
        const unsigned char *start = s;
        s = next_space(s, end);
        out[count].p = (const char *)start;
        out[count].n = (size_t)(s - start);
        count++;
    }
    return count;
}

#ifdef __SSE2__
#define low_bits wsmask_low_bits
#define short_line_fields wsmask_fields

static size_t split_short_line(const char *line, struct slice *out, size_t max,
                               const char **nl)
{
    uint64_t ws, nlm;

    whitespace_masks64((const unsigned char *)line, &ws, &nlm);
    return short_line_fields(line, ws, nlm, out, max, nl);
}

#ifdef MTC_WSMASK_AVX2
/* The same masks in half the instructions, where the CPU has AVX2: about
 * 5% of the run time on a big log. */
static __attribute__((target("avx2"))) size_t split_short_line_avx2(
    const char *line, struct slice *out, size_t max, const char **nl)
{
    uint64_t ws, nlm;

    whitespace_masks64_avx2((const unsigned char *)line, &ws, &nlm);
    return short_line_fields(line, ws, nlm, out, max, nl);
}

int have_avx2;

/* Before main(), hence before any thread splits lines. */
static __attribute__((constructor)) void detect_avx2(void)
{
    __builtin_cpu_init();
    have_avx2 = __builtin_cpu_supports("avx2") != 0;
}

static size_t split_short(const char *line, struct slice *out, size_t max,
                          const char **nl)
{
    return have_avx2 ? split_short_line_avx2(line, out, max, nl)
                     : split_short_line(line, out, max, nl);
}
#else
#define split_short split_short_line
#endif

/* State of split_line across 64-byte blocks: a field may span blocks. */
struct splitter {
    const char *line;
    struct slice *out;
    size_t max, count;
    size_t field_start;
    int in_field;
    size_t stop; /* where a field past MAX starts */
};

static void close_field(struct splitter *sp, size_t at)
{
    sp->out[sp->count].p = sp->line + sp->field_start;
    sp->out[sp->count].n = at - sp->field_start;
    sp->count++;
    sp->in_field = 0;
}

/* Field boundaries among the first LIMIT bytes of the block at POS, whose
 * whitespace bitmap is WS.  Returns 1 when a field beyond MAX begins: the
 * rest of the line no longer matters. */
static int split_block(struct splitter *sp, size_t pos, uint64_t ws,
                       unsigned limit)
{
    uint64_t inside = low_bits(limit);

    for (unsigned b = 0; b < limit;) {
        uint64_t m = (sp->in_field ? ws & inside : ~ws & inside) >> b;
        if (!m)
            return 0;
        b += (unsigned)__builtin_ctzll(m);
        if (sp->in_field) {
            close_field(sp, pos + b);
        } else if (sp->count == sp->max) {
            sp->stop = pos + b;
            return 1;
        } else {
            sp->field_start = pos + b;
            sp->in_field = 1;
        }
    }
    return 0;
}

/* split_line with the line looked at 64 bytes at a time: whitespace and
 * newlines become bitmaps, and fields are read off them with bit scans,
 * with no per-byte branches. */
size_t split_line(const char *line, const char *end, struct slice *out,
                  size_t max, const char **nl)
{
    size_t total = (size_t)(end - line);
    struct splitter sp = { line, out, max, 0, 0, 0, 0 };

    if (total >= 64) {
        size_t n = split_short(line, out, max, nl);
        if (*nl)
            return n;
    }
    for (size_t pos = 0; pos < total; pos += 64) {
        size_t avail = total - pos;
        unsigned char tmp[64];
        const unsigned char *blk = (const unsigned char *)line + pos;
        uint64_t ws, nlm;
        if (avail < 64) {
            memset(tmp, 0, sizeof tmp);
            memcpy(tmp, blk, avail);
            blk = tmp;
        }
        whitespace_masks64(blk, &ws, &nlm);
        unsigned limit = avail < 64 ? (unsigned)avail : 64;
        nlm &= low_bits(limit);
        if (nlm)
            limit = (unsigned)__builtin_ctzll(nlm);
        if (split_block(&sp, pos, ws, limit)) {
            *nl = nlm ? line + pos + limit
                      : memchr(line + sp.stop, '\n', total - sp.stop);
            return sp.count;
        }
        if (nlm) {
            if (sp.in_field)
                close_field(&sp, pos + limit);
            *nl = line + pos + limit;
            return sp.count;
        }
    }
    if (sp.in_field)
        close_field(&sp, total);
    *nl = NULL;
    return sp.count;
}

#else

size_t split_line(const char *p, const char *end, struct slice *out, size_t max,
                  const char **nl)
{
    const unsigned char *s = (const unsigned char *)p,
                        *e = (const unsigned char *)end;
    size_t count = 0;

    for (;;) {
        while (s < e && space_table[*s] && *s != '\n')
            s++;
        if (s == e || *s == '\n')
            break;
        if (count == max) {
            s = memchr(s, '\n', (size_t)(e - s));
            *nl = (const char *)s;
            return count;
        }
        const unsigned char *start = s;
        s = next_space(s, e);
        out[count].p = (const char *)start;
        out[count].n = (size_t)(s - start);
        count++;
    }
    *nl = s < e ? (const char *)s : NULL;
    return count;
}

#endif

static int hex_value(unsigned char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Each hex digit's value plus one; 0 for every other byte. */
static const unsigned char hex_plus1[256] = {
    ['0'] = 1,  ['1'] = 2,  ['2'] = 3,  ['3'] = 4,  ['4'] = 5,  ['5'] = 6,
    ['6'] = 7,  ['7'] = 8,  ['8'] = 9,  ['9'] = 10, ['a'] = 11, ['b'] = 12,
    ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16, ['A'] = 11, ['B'] = 12,
    ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

/* What a log nearly always holds, "0x" and 1 to 16 digits: no '_', no
 * overflow, no early stop, so one table lookup per digit.  Returns 0 for
 * anything else, left to the general loop. */
static int plain_hex(const unsigned char *p, size_t n, uint64_t *out)
{
    uint64_t v = 0;

    if (n < 3 || n > 18 || p[0] != '0' || p[1] != 'x')
        return 0;
    for (size_t i = 2; i < n; i++) {
        unsigned d = hex_plus1[p[i]];
        if (!d)
            return 0;
        v = (v << 4) | (d - 1);
    }
    *out = v;
    return 1;
}

int parse_frame_field(const char *p, const char *end, uint64_t *mid,
                      uint64_t *off, const char **field_end)
{
    const unsigned char *s = (const unsigned char *)p;
    const unsigned char *e = (const unsigned char *)end;
    const unsigned char *digits = s;
    uint64_t m = 0, v = 0;
    unsigned d;

    while (s < e && (unsigned)(*s - '0') < 10u)
        m = m * 10 + (uint64_t)(*s++ - '0');
    if (s == digits || s - digits > 19 || e - s < 3 || s[0] != ':' ||
        s[1] != '0' || s[2] != 'x')
        return 0;
    s += 3;
    const unsigned char *hex = s;
    while (s < e && (d = hex_plus1[*s]) != 0) {
        v = (v << 4) | (d - 1);
        s++;
    }
    if (s == hex || s - hex > 16 || (s < e && !space_table[*s]))
        return 0;
    *mid = m;
    *off = v;
    *field_end = (const char *)s;
    return 1;
}

uint64_t perl_hex(struct slice s)
{
    const unsigned char *p = (const unsigned char *)s.p;
    size_t n = s.n, i = 0;
    uint64_t v = 0;
    int overflow = 0;

    if (plain_hex(p, n, &v))
        return v;

    if (n >= 1 && (p[0] == 'x' || p[0] == 'X'))
        i = 1;
    else if (n >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
        i = 2;
    for (; i < n && p[i] != '\0'; i++) {
        int d = hex_value(p[i]);
        if (d < 0) {
            /* One '_' between digits is allowed, as in Perl's grok_hex. */
            if (p[i] == '_' && i + 1 < n && hex_value(p[i + 1]) >= 0)
                continue;
            break;
        }
        if (v >> 60)
            overflow = 1;
        v = (v << 4) | (uint64_t)d;
    }
    return overflow ? UINT64_MAX : v;
}

uint64_t c_strtou64_hex(struct slice s)
{
    const unsigned char *p = (const unsigned char *)s.p;
    size_t n = s.n, i = 0;
    uint64_t v = 0;
    int negative = 0, overflow = 0, digits = 0;

    /* Up to the first NUL: that is where the exec'd argument would end. */
    for (size_t k = 0; k < n; k++)
        if (p[k] == '\0') {
            n = k;
            break;
        }
    while (i < n && (p[i] == ' ' || (p[i] >= '\t' && p[i] <= '\r')))
        i++;
    if (i < n && (p[i] == '+' || p[i] == '-'))
        negative = p[i++] == '-';
    /* "0x" is a prefix only when a hex digit follows; else "0" is the number. */
    if (i + 2 < n && p[i] == '0' && (p[i + 1] == 'x' || p[i + 1] == 'X') &&
        hex_value(p[i + 2]) >= 0)
        i += 2;
    for (; i < n; i++) {
        int d = hex_value(p[i]);
        if (d < 0)
            break;
        digits = 1;
        if (v >> 60)
            overflow = 1;
        v = (v << 4) | (uint64_t)d;
    }
    if (!digits)
        return 0;
    if (overflow)
        return UINT64_MAX;
    return negative ? (uint64_t)0 - v : v;
}

int parse_dec_u64(struct slice s, uint64_t *out)
{
    uint64_t v = 0;

    if (s.n == 0 || s.n > 19)
        return -1;
    for (size_t i = 0; i < s.n; i++) {
        if (s.p[i] < '0' || s.p[i] > '9')
            return -1;
        v = v * 10 + (uint64_t)(s.p[i] - '0');
    }
    *out = v;
    return 0;
}

struct slice field_key_value(struct slice f, const char *key)
{
    size_t n = strlen(key);
    if (f.n > n + 1 && !memcmp(f.p, key, n) && f.p[n] == '=')
        return (struct slice){ f.p + n + 1, f.n - n - 1 };
    return (struct slice){ f.p, 0 };
}

int parse_0xhex_u64(struct slice s, uint64_t *out)
{
    uint64_t v = 0;

    if (s.n < 3 || s.p[0] != '0' || s.p[1] != 'x' || s.n > 18)
        return -1;
    for (size_t i = 2; i < s.n; i++) {
        int d = hex_value((unsigned char)s.p[i]);
        if (d < 0)
            return -1;
        v = (v << 4) | (uint64_t)d;
    }
    *out = v;
    return 0;
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fmt.c - see fmt.h. */
#include "base/fmt.h"
#include <string.h>

static const char hex_digits[] = "0123456789abcdef";
/* Two digits at a time: every event line has two or three numbers, and
 * a byte per step halves the work of a digit per step. */
static const char hex_pairs[512] =
    "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
    "202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
    "404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
    "606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
    "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
    "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
    "c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
    "e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";
static const char dec_pairs[200] =
    "0001020304050607080910111213141516171819202122232425262728293031"
    "3233343536373839404142434445464748495051525354555657585960616263"
    "6465666768697071727374757677787980818283848586878889909192939495"
    "96979899";

char *fmt_hex(char *out, uint64_t v)
{
    /* Digit count from the highest set bit, then fill from the right. */
    int digits = v ? (67 - __builtin_clzll(v)) / 4 : 1;
    char *end = out + digits, *p = end;
    while (p - out >= 2) {
        p -= 2;
        memcpy(p, &hex_pairs[(v & 0xff) * 2], 2);
        v >>= 8;
    }
    if (p > out)
        *--p = hex_digits[v & 0xf];
    return end;
}

char *fmt_ptr(char *out, uint64_t v)
{
    *out++ = '0';
    *out++ = 'x';
    return fmt_hex(out, v);
}

char *fmt_size(char *out, uint64_t v)
{
    if (v == 0) {
        *out++ = '0';
        return out;
    }
    return fmt_ptr(out, v);
}

char *fmt_dec(char *out, uint64_t v)
{
    /* Count the digits first, then fill from the right. */
    int digits = 1;
    for (uint64_t t = v; t >= 10; t /= 10)
        digits++;
    char *end = out + digits, *p = end;
    while (p - out >= 2) {
        p -= 2;
        memcpy(p, &dec_pairs[(v % 100) * 2], 2);
        v /= 100;
    }
    if (p > out)
        *--p = (char)('0' + v);
    return end;
}

int fmt_expand(const char *pattern, const char *keys, const char *const *values,
               char *out, size_t size)
{
    size_t n = 0;
    for (const char *p = pattern; *p; p++) {
        const char *piece = p;
        size_t len = 1;
        const char *key = p[0] == '%' && p[1] ? strchr(keys, p[1]) : NULL;
        if (key) {
            piece = values[key - keys];
            len = strlen(piece);
            p++;
        }
        if (n + len >= size)
            return -1;
        memcpy(out + n, piece, len);
        n += len;
    }
    out[n] = '\0';
    return 0;
}

/* fmt.c - see fmt.h.  GPL-3.0-or-later. */
#include "fmt.h"
#include <string.h>

static const char hex_digits[] = "0123456789abcdef";

char *fmt_hex(char *out, uint64_t v)
{
    /* Digit count from the highest set bit, then fill from the right. */
    int digits = v ? (67 - __builtin_clzll(v)) / 4 : 1;
    char *end = out + digits, *p = end;
    do {
        *--p = hex_digits[v & 0xf];
        v >>= 4;
    } while (p > out);
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
    do {
        *--p = (char)('0' + v % 10);
        v /= 10;
    } while (p > out);
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

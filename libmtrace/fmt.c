/* fmt.c - see fmt.h.  GPL-3.0-or-later. */
#include "fmt.h"

static const char hex_digits[] = "0123456789abcdef";

char *fmt_hex(char *out, uint64_t v)
{
    int shift = 60;
    while (shift > 0 && ((v >> shift) & 0xf) == 0)
        shift -= 4;
    for (; shift >= 0; shift -= 4)
        *out++ = hex_digits[(v >> shift) & 0xf];
    return out;
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
    char tmp[20];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        *out++ = tmp[--n];
    return out;
}

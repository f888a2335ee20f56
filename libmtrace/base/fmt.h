/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fmt.h - number formatting without stdio (stdio allocates and is not
 * reentrant).  Each writes into OUT, which must have room for 20 bytes, and
 * returns the end of what it wrote (no terminating NUL). */
#ifndef MT_FMT_H
#define MT_FMT_H
#include <stddef.h>
#include <stdint.h>
#include <emmintrin.h>

/* Lowercase hex digits, no prefix: 0 -> "0", 0x1a -> "1a". */
char *fmt_hex(char *out, uint64_t v);
/* "0x" + hex, as printf("%p") for a non-NULL pointer. */
char *fmt_ptr(char *out, uint64_t v);
/* As printf("%#lx"): 0 -> "0", otherwise "0x" + hex. */
char *fmt_size(char *out, uint64_t v);
/* Decimal. */
char *fmt_dec(char *out, uint64_t v);

/* fmt_hex for the hot path, without a loop or a table: the 16 nibbles of
 * V are spread to 16 bytes and turned into digits together (SSE2, which
 * every x86-64 has).  It writes 16 bytes at OUT whatever the length: OUT
 * needs that much room, and the bytes after the returned end are garbage. */
static inline char *fmt_hex16(char *out, uint64_t v)
{
    int digits = v ? (67 - __builtin_clzll(v)) / 4 : 1;
    v <<= 4 * (16 - digits); /* the first digit to the top nibble */
    __m128i x = _mm_cvtsi64_si128((long long)__builtin_bswap64(v));
    __m128i low4 = _mm_set1_epi8(0x0f);
    __m128i nibbles = _mm_unpacklo_epi8(_mm_and_si128(_mm_srli_epi16(x, 4), low4),
                                        _mm_and_si128(x, low4));
    __m128i letters = _mm_and_si128(_mm_cmpgt_epi8(nibbles, _mm_set1_epi8(9)),
                                    _mm_set1_epi8('a' - '0' - 10));
    __m128i text = _mm_add_epi8(_mm_add_epi8(nibbles, _mm_set1_epi8('0')),
                                letters);
    _mm_storeu_si128((__m128i *)(void *)out, text);
    return out + digits;
}

/* PATTERN into OUT (SIZE bytes) with each "%K" replaced by VALUES[i] where
 * K is KEYS[i]; any other "%" sequence is copied as it is.  Returns 0, or
 * -1 when OUT is too small. */
int fmt_expand(const char *pattern, const char *keys, const char *const *values,
               char *out, size_t size);

#endif

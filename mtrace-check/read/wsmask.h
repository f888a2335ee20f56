/* SPDX-License-Identifier: GPL-3.0-or-later */
/* wsmask.h - whitespace and newline bitmaps of 64 bytes, the inner step of
 * splitters (fields.c, and the segment replay's loop in speculate.c);
 * inline because it runs once per line or per 64 bytes of the log.
 * "Whitespace" is Perl's split(' ') set: \t \n \v \f \r and space.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#ifndef MTC_WSMASK_H
#define MTC_WSMASK_H

#include "base/util.h"

#include <stdint.h>

#ifdef __SSE2__
#include <emmintrin.h>

/* Bit i of *WS: P[i] is whitespace; of *NL: P[i] is '\n'. */
static inline __attribute__((always_inline)) void whitespace_masks64(
    const unsigned char *p, uint64_t *ws, uint64_t *nl)
{
    const __m128i space = _mm_set1_epi8(' '), newline = _mm_set1_epi8('\n');
    const __m128i above = _mm_set1_epi8('\t' - 1),
                  below = _mm_set1_epi8('\r' + 1);
    uint64_t w = 0, n = 0;

    /* Unrolled: the loop counter and shifts cost as much as the work. */
#pragma GCC unroll 4
    for (int i = 0; i < 4; i++) {
        __m128i c = _mm_loadu_si128((const __m128i *)(p + 16 * i));
        /* \t..\r by signed compares: bytes >= 0x80 are negative, so out. */
        __m128i range = _mm_and_si128(_mm_cmpgt_epi8(c, above),
                                      _mm_cmplt_epi8(c, below));
        __m128i is_ws = _mm_or_si128(_mm_cmpeq_epi8(c, space), range);
        w |= (uint64_t)(uint16_t)_mm_movemask_epi8(is_ws) << (16 * i);
        n |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(c, newline))
             << (16 * i);
    }
    *ws = w;
    *nl = n;
}

static inline uint64_t wsmask_low_bits(unsigned n)
{
    return n >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << n) - 1;
}

/* The fields of a line whose newline is within the 64 bytes at LINE, from
 * their masks: field starts and ends are bitmaps, taken pairwise with bit
 * scans.  At most MAX fields into OUT; *NL is set to the newline, or to
 * NULL (and nothing is split) when the line is longer. */
static inline __attribute__((always_inline)) size_t wsmask_fields(
    const char *line, uint64_t ws, uint64_t nlm, struct slice *out, size_t max,
    const char **nl)
{
    if (!nlm) {
        *nl = NULL;
        return 0;
    }
    unsigned limit = (unsigned)__builtin_ctzll(nlm);
    uint64_t inside = wsmask_low_bits(limit);
    uint64_t text = ~ws & inside;
    uint64_t starts = text & ~(text << 1);
    uint64_t ends = ~text & (text << 1); /* one past each field */
    size_t count = 0;

    while (starts && count < max) {
        unsigned s = (unsigned)__builtin_ctzll(starts);
        unsigned e = (unsigned)__builtin_ctzll(ends);
        out[count].p = line + s;
        out[count].n = e - s;
        count++;
        starts &= starts - 1;
        ends &= ends - 1;
    }
    *nl = line + limit;
    return count;
}

/* The same with two 32-byte steps, for CPUs with AVX2 (chosen at run
 * time: called only from functions built for AVX2, when have_avx2). */
#if defined __x86_64__ && !defined __AVX2__
#define MTC_WSMASK_AVX2 1
#include <immintrin.h>

extern int have_avx2; /* fields.c, set before main() */

static inline __attribute__((target("avx2"), always_inline)) void
whitespace_masks64_avx2(const unsigned char *p, uint64_t *ws, uint64_t *nl)
{
    const __m256i space = _mm256_set1_epi8(' '),
                  newline = _mm256_set1_epi8('\n');
    const __m256i above = _mm256_set1_epi8('\t' - 1),
                  below = _mm256_set1_epi8('\r' + 1);
    __m256i c0 = _mm256_loadu_si256((const __m256i *)p);
    __m256i c1 = _mm256_loadu_si256((const __m256i *)(p + 32));
    __m256i r0 = _mm256_and_si256(_mm256_cmpgt_epi8(c0, above),
                                  _mm256_cmpgt_epi8(below, c0));
    __m256i r1 = _mm256_and_si256(_mm256_cmpgt_epi8(c1, above),
                                  _mm256_cmpgt_epi8(below, c1));
    __m256i w0 = _mm256_or_si256(_mm256_cmpeq_epi8(c0, space), r0);
    __m256i w1 = _mm256_or_si256(_mm256_cmpeq_epi8(c1, space), r1);

    *ws = (uint32_t)_mm256_movemask_epi8(w0) |
          (uint64_t)(uint32_t)_mm256_movemask_epi8(w1) << 32;
    *nl =
        (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(c0, newline)) |
        (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(c1, newline))
            << 32;
}
#endif

#else

static inline void whitespace_masks64(const unsigned char *p, uint64_t *ws,
                                      uint64_t *nl)
{
    uint64_t w = 0, n = 0;
    for (int i = 0; i < 64; i++) {
        w |= (uint64_t)(p[i] == ' ' || (p[i] >= '\t' && p[i] <= '\r')) << i;
        n |= (uint64_t)(p[i] == '\n') << i;
    }
    *ws = w;
    *nl = n;
}

#endif
#endif

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* util.h - small helpers shared by every part of mtrace-check: checked
 * allocation, byte slices (log fields may contain NUL bytes, so strings are
 * carried as pointer + length, never as C strings), and a string hash.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#ifndef MTC_UTIL_H
#define MTC_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* A view into bytes owned by someone else. */
struct slice {
    const char *p;
    size_t n;
};

#define SLICE_LIT(s) ((struct slice){ (s), sizeof(s) - 1 })

/* Allocation that never returns NULL: running out of memory is reported
 * and ends the program with status 2 (an input we cannot process). */
void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
char *xmemdup0(const char *p, size_t n); /* copy plus a terminating NUL */
char *xstrdup(const char *s);

int slice_eq(struct slice a, const char *lit);
int slice_starts(struct slice a, const char *lit);

/* The last component of PATH (after its last '/'); NULL for NULL. */
const char *path_base(const char *path);

static inline uint64_t load_u64(const unsigned char *p)
{
    uint64_t v;
    __builtin_memcpy(&v, p, 8);
    return v;
}

/* memcmp(a, b, n) == 0 without a library call for the short keys that
 * dominate (pointers are 10-14 bytes, WHERE fields 20-30): overlapping
 * 8-byte loads from both ends. */
static inline int bytes_eq(const void *a, const void *b, size_t n)
{
    const unsigned char *x = a, *y = b;
    if (n >= 8 && n <= 16)
        return ((load_u64(x) ^ load_u64(y)) |
                (load_u64(x + n - 8) ^ load_u64(y + n - 8))) == 0;
    if (n > 16 && n <= 32)
        return ((load_u64(x) ^ load_u64(y)) |
                (load_u64(x + 8) ^ load_u64(y + 8)) |
                (load_u64(x + n - 16) ^ load_u64(y + n - 16)) |
                (load_u64(x + n - 8) ^ load_u64(y + n - 8))) == 0;
    return __builtin_memcmp(x, y, n) == 0;
}

/* 64-bit hash of a byte string.  Keys of 8 to 16 bytes (pointers) take
 * the inline path: two overlapping loads and one mixing step. */
uint64_t hash_bytes_any(const void *p, size_t n);

static inline uint64_t hash_bytes(const void *p, size_t n)
{
    const unsigned char *s = p;
    if (n < 8 || n > 16)
        return hash_bytes_any(p, n);
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ (n * 0xff51afd7ed558ccdULL);
    uint64_t a = load_u64(s) * 0x94d049bb133111ebULL;
    uint64_t b = load_u64(s + n - 8) * 0xbf58476d1ce4e5b9ULL;
    h ^= a ^ ((b << 29) | (b >> 35));
    h *= 0xff51afd7ed558ccdULL;
    return h ^ (h >> 32);
}
uint64_t hash_u64(uint64_t x);

#endif

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* util.c - checked allocation, slices, hashing and messages.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "base/util.h"
#include "base/diag.h"

#include <stdlib.h>
#include <string.h>

static void out_of_memory(size_t n)
{
    diag_fatal(NULL, "out of memory (%zu bytes)", n);
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        out_of_memory(n);
    return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
    void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
    if (!p)
        out_of_memory(nmemb * size);
    return p;
}

void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        out_of_memory(n);
    return q;
}

char *xmemdup0(const char *p, size_t n)
{
    char *q = xmalloc(n + 1);
    if (n)
        memcpy(q, p, n);
    q[n] = '\0';
    return q;
}

char *xstrdup(const char *s)
{
    return xmemdup0(s, strlen(s));
}

int slice_eq(struct slice a, const char *lit)
{
    size_t n = strlen(lit);
    return a.n == n && memcmp(a.p, lit, n) == 0;
}

int slice_starts(struct slice a, const char *lit)
{
    size_t n = strlen(lit);
    return a.n >= n && memcmp(a.p, lit, n) == 0;
}

uint64_t hash_u64(uint64_t x)
{
    /* splitmix64 finalizer: cheap and spreads sequential keys. */
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

static uint64_t load8(const unsigned char *s)
{
    uint64_t w;
    memcpy(&w, s, 8);
    return w;
}

/* Bytes 0..n-1 (n < 8) as a little-endian number, without a variable-size
 * memcpy call. */
static uint64_t load_short(const unsigned char *s, size_t n)
{
    uint64_t w = 0;
    if (n & 4) {
        uint32_t v;
        memcpy(&v, s, 4);
        w = v;
        s += 4;
    }
    if (n & 2) {
        uint16_t v;
        memcpy(&v, s, 2);
        w |= (uint64_t)v << ((n & 4) * 8);
        s += 2;
    }
    if (n & 1)
        w |= (uint64_t)*s << ((n & 6) * 8);
    return w;
}

/* Word-at-a-time multiply-xorshift hash: keys are mostly 10-40 bytes
 * (pointers, WHERE strings) and hashed once per log line; a pointer's
 * 9-16 bytes take two loads and one mixing step. */
uint64_t hash_bytes_any(const void *p, size_t n)
{
    const unsigned char *s = p;
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ (n * 0xff51afd7ed558ccdULL);

    if (n < 8)
        return hash_u64(h ^ load_short(s, n));
    const unsigned char *last = s + n - 8;
    while (s + 8 < last) {
        h = (h ^ load8(s)) * 0xbf58476d1ce4e5b9ULL;
        h ^= h >> 31;
        s += 8;
    }
    /* One or two final, possibly overlapping, words cover the tail. */
    uint64_t a = load8(s) * 0x94d049bb133111ebULL;
    uint64_t b = load8(last) * 0xbf58476d1ce4e5b9ULL;
    h ^= a ^ ((b << 29) | (b >> 35));
    h *= 0xff51afd7ed558ccdULL;
    return h ^ (h >> 32);
}

const char *path_base(const char *path)
{
    const char *slash = path ? strrchr(path, '/') : NULL;
    return slash ? slash + 1 : path;
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mainarena.c - see mainarena.h. */
#define _GNU_SOURCE
#include "scan/mainarena.h"
#include <stdint.h>
#include <string.h>

#define WORD sizeof(uintptr_t)
/* struct malloc_state on x86-64, glibc 2.27 and later: mutex, flags and
 * have_fastchunks (16 bytes with padding), fastbinsY[10], top and
 * last_remainder, then bins[254], binmap[4] (16 bytes), next,
 * next_free, attached_threads, system_mem, max_system_mem. */
#define BINS_AT (16 + 10 * WORD + 2 * WORD)
#define NBINS 127 /* bin heads: bins[] holds two words for each */
#define NEXT_AT (BINS_AT + 2 * NBINS * WORD + 16)
#define STATE_SIZE (NEXT_AT + 5 * WORD)
/* A shape this many empty bins at least, and at most this many heads a
 * thread stopped inside malloc() may have left half-linked. */
#define MIN_EMPTY 16
#define MAX_ODD 2
#define MAX_ARENAS 4096

static struct addr_range libc_data[4]; /* libc's writable segments */
static size_t nlibc_data;
static uintptr_t found; /* the struct's address, once known */

void mainarena_init(const struct addr_range *libc, size_t n)
{
    size_t cap = sizeof libc_data / sizeof libc_data[0];
    nlibc_data = n < cap ? n : cap;
    memcpy(libc_data, libc, nlibc_data * sizeof *libc);
}

static uintptr_t word_at(uintptr_t a)
{
    return *(const uintptr_t *)a;
}

/* Whether a struct malloc_state starts at A: its bin heads, and the list
 * of arenas through it. */
static int is_arena(const struct map_info *maps, size_t nmaps, uintptr_t a)
{
    if (!map_info_readable(maps, nmaps, a, STATE_SIZE))
        return 0;
    unsigned empty = 0, odd = 0;
    for (size_t i = 0; i < NBINS; i++) {
        uintptr_t head = a + BINS_AT + 2 * WORD * i - 2 * WORD;
        uintptr_t fd = word_at(head + 2 * WORD), bk = word_at(head + 3 * WORD);
        if (fd == head && bk == head)
            empty++;
        else if (fd == head || bk == head || fd % 16 || bk % 16 || !fd || !bk)
            odd++;
    }
    if (empty < MIN_EMPTY || odd > MAX_ODD)
        return 0;
    uintptr_t next = word_at(a + NEXT_AT);
    for (int n = 0; n < MAX_ARENAS && next != a; n++) {
        if (!map_info_readable(maps, nmaps, next + NEXT_AT, WORD))
            return 0;
        next = word_at(next + NEXT_AT);
    }
    return next == a;
}

/* An empty bin's first word, at X, holds X - 16: each such word is tried
 * as each bin's. */
static uintptr_t search(const struct map_info *maps, size_t nmaps,
                        const struct addr_range *seg)
{
    uintptr_t lo = (seg->lo + WORD - 1) & ~(WORD - 1);
    for (uintptr_t x = lo; x + 2 * WORD <= seg->hi; x += WORD) {
        if (!map_info_readable(maps, nmaps, x, 2 * WORD))
            continue;
        if (word_at(x) != x - 2 * WORD || word_at(x + WORD) != x - 2 * WORD)
            continue;
        for (size_t i = 0; i < NBINS; i++) {
            uintptr_t a = x - BINS_AT - 2 * WORD * i;
            if (a >= seg->lo && a + STATE_SIZE <= seg->hi &&
                is_arena(maps, nmaps, a))
                return a;
        }
    }
    return 0;
}

int mainarena_find(const struct map_info *maps, size_t nmaps,
                   struct addr_range *out)
{
    for (size_t i = 0; found == 0 && i < nlibc_data; i++)
        found = search(maps, nmaps, &libc_data[i]);
    if (found == 0)
        return -1;
    *out = (struct addr_range){ found, found + STATE_SIZE };
    return 0;
}

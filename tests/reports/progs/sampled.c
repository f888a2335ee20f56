/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sampled.c - a program whose live heap is made of a few stacks of known
 * shapes: many small blocks, medium blocks, blocks of mixed sizes, blocks
 * larger than the sampling rate, a small stack below 5% of the heap, and
 * churn that is freed again.  Run exactly and in sampling mode, its two
 * reports must agree within 10% on every stack holding 5% of the live
 * bytes.  mtrace() starts collection; the second mtrace() writes the
 * report.  "sampled leak" leaves the blocks unfreed at exit.
 */
#include <mcheck.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void *keep[500000];
static size_t kept;

static uint64_t next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void hold(void *p, size_t n)
{
    if (p == NULL)
        exit(2);
    memset(p, 1, n < 16 ? n : 16);
    keep[kept++] = p;
}

__attribute__((noinline)) static void hold_small_blocks(void)
{
    for (int i = 0; i < 400000; i++)
        hold(malloc(24), 24); /* 9.6 MB */
}

__attribute__((noinline)) static void hold_medium_blocks(void)
{
    for (int i = 0; i < 30000; i++)
        hold(malloc(600), 600); /* 18 MB */
}

__attribute__((noinline)) static void hold_mixed_blocks(void)
{
    uint64_t s = 88172645463325252ull;
    for (int i = 0; i < 8000; i++) {
        size_t n = 100 + next(&s) % 2900; /* ~12.4 MB */
        hold(calloc(1, n), n);
    }
}

__attribute__((noinline)) static void hold_large_blocks(void)
{
    for (int i = 0; i < 40; i++)
        hold(malloc(65536), 65536); /* 2.6 MB, above the rate */
}

__attribute__((noinline)) static void hold_few_blocks(void)
{
    for (int i = 0; i < 100; i++)
        hold(malloc(40), 40); /* 4 KB: far below 5% */
}

__attribute__((noinline)) static void churn(void)
{
    for (int i = 0; i < 300000; i++) {
        char *p = malloc(64 + i % 200);
        if (p == NULL)
            exit(2);
        p[0] = 1;
        free(p);
    }
}

int main(int argc, char **argv)
{
    mtrace();
    hold_small_blocks();
    churn();
    hold_medium_blocks();
    hold_mixed_blocks();
    hold_large_blocks();
    hold_few_blocks();
    mtrace(); /* the report */
    if (argc > 1 && strcmp(argv[1], "leak") == 0)
        return 0; /* everything kept leaks */
    for (size_t i = 0; i < kept; i++)
        free(keep[i]);
    return 0;
}

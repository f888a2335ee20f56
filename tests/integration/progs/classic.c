/* SPDX-License-Identifier: GPL-3.0-or-later
 * classic.c - every operation glibc's tracer logs, for a line-by-line
 * comparison of MEMLEAK_CONFIG=classic with libc_malloc_debug.so.
 * Known leaks: 100 (malloc), 6 (strdup), 60 (calloc), 256 (memalign),
 * 4096 (valloc), 48 (aligned_alloc), 512 (realloc'd), and pvalloc(100),
 * which glibc 2.36's tracer logs as 0x1001 = 4097 bytes (its ALIGN_UP
 * masks with -(pagesize - 1)); libmtrace logs the same size. */
#include <malloc.h>
#include <mcheck.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"

static void *keep[9];

static __attribute__((noinline)) void *helper(size_t n)
{
    void *p = malloc(n);

    escape(p);
    return p;
}

static void aligned_ops(void)
{
    void *p = NULL;

    keep[3] = memalign(64, 256);
    keep[4] = valloc(4096);
    keep[5] = aligned_alloc(32, 48);
    keep[7] = pvalloc(100);
    if (posix_memalign(&p, 128, 300) == 0)
        free(p);
}

static void realloc_ops(void)
{
    char *p = realloc(NULL, 40);

    memset(p, 1, 40);
    p = realloc(p, 4000);
    p = realloc(p, 30);
    free(p);
    p = helper(10);
    keep[6] = realloc(p, 512);
    p = helper(20);
    p = realloc(p, 0);
    escape(p);
}

int main(void)
{
    mtrace();
    keep[0] = helper(100);
    keep[1] = strdup("hello");
    keep[2] = calloc(6, 10);
    free(helper(1));
    free(NULL);
    aligned_ops();
    realloc_ops();
    free(used(calloc(1, 1)));
    escape(keep);
    muntrace();
    return 0;
}

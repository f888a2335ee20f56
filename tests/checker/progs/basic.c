/* SPDX-License-Identifier: GPL-3.0-or-later */
/* basic.c - single-threaded allocation patterns for the comparison tests:
 * leaks from malloc, calloc, realloc, strdup (a libc caller), memalign,
 * frees and reallocs of blocks allocated before mtrace() (glibc's checker
 * warns "was never alloc'd"), and an early muntrace().
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include <malloc.h>
#include <mcheck.h>
#include <stdlib.h>
#include <string.h>

static void *make(size_t n)
{
    return malloc(n);
}

static char *copy(const char *s)
{
    return strdup(s);
}

int main(int argc, char **argv)
{
    void *before = malloc(10), *before2 = malloc(20), *aligned;
    (void)argv;

    mtrace();
    void *a = make(100);
    void *b = calloc(3, 7);
    char *s = copy("leaked string");
    void *r = malloc(5);
    r = realloc(r, 5000);
    free(before);                   /* never alloc'd while tracing */
    before2 = realloc(before2, 64); /* realloc never alloc'd */
    aligned = memalign(64, 256);
    if (posix_memalign(&aligned, 32, 48) != 0)
        return 2;
    free(b);
    for (int i = 0; i < argc * 5; i++)
        free(make((size_t)i + 1));
    (void)a, (void)s, (void)r, (void)before2;
    return 0;
}

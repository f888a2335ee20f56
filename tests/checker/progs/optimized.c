/* SPDX-License-Identifier: GPL-3.0-or-later */
/* optimized.c - built with -O2: inlined helpers and loops give addr2line
 * answers with "(discriminator N)", which the checker must print as is.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include <mcheck.h>
#include <stdlib.h>

static inline void *grab(size_t n)
{
    return malloc(n); /* CALL:grab */
}

__attribute__((noinline)) static void fill(void **v, int n)
{
    for (int i = 0; i < n; i++)
        v[i] = i % 3 ? grab((size_t)i * 8 + 1) : calloc(1, (size_t)i + 2);
}

int main(int argc, char **argv)
{
    void *v[40];
    (void)argv;

    mtrace();
    fill(v, 30 + argc);
    for (int i = 0; i < 30; i += 2)
        free(v[i]);
    return 0;
}

/* SPDX-License-Identifier: GPL-3.0-or-later
 * leak_static.c - leaks from static functions.
 * Known leaks: 63 (calloc 21x3), 100, 200, 5000 (realloc'd block). */
#include <mcheck.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"

static void *keep[4];

static __attribute__((noinline)) void *make_record(size_t n)
{
    char *p = malloc(n);

    memset(p, 'r', n);
    escape(p);
    return p;
}

/* Small enough to be inlined at -O2: the leak is then attributed to main. */
static void *make_table(size_t n, size_t width)
{
    void *p = calloc(n, width);

    escape(p);
    return p;
}

static __attribute__((noinline)) void churn(void)
{
    for (int i = 0; i < 100; i++) {
        void *p = malloc(32 + i);

        escape(p);
        free(p);
    }
}

int main(void)
{
    mtrace();
    keep[0] = make_record(100);
    keep[1] = make_record(200);
    free(make_record(300));
    keep[2] = make_table(21, 3);
    churn();
    keep[3] = realloc(make_record(10), 5000);
    escape(keep);
    return 0;
}

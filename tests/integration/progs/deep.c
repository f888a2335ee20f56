/* SPDX-License-Identifier: GPL-3.0-or-later
 * deep.c - allocates at the bottom of a deep recursion (build with -O0).
 * Known leaks: one 64-byte block.  Usage: deep [LEVELS] (default 40) */
#include <mcheck.h>
#include <stdlib.h>
#include "util.h"

static __attribute__((noinline)) void *descend(int n)
{
    void *p;

    if (n <= 1)
        return malloc(64);
    p = descend(n - 1);
    escape(p);
    return p;
}

int main(int argc, char **argv)
{
    int levels = argc > 1 ? atoi(argv[1]) : 40;
    void *p;

    mtrace();
    p = descend(levels);
    escape(p);
    return 0;
}

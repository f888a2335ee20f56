/* SPDX-License-Identifier: GPL-3.0-or-later
 * leak_strdup.c - leaks through strdup/strndup.
 * Known leaks: 13 ("twelve bytes"), 5 (strndup 4 chars), 41 (40 chars). */
#include <mcheck.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"

static char *names[3];

static __attribute__((noinline)) char *remember(const char *s)
{
    char *p = strdup(s);

    escape(p);
    return p;
}

static __attribute__((noinline)) char *remember_prefix(const char *s, size_t n)
{
    char *p = strndup(s, n);

    escape(p);
    return p;
}

int main(void)
{
    mtrace();
    names[0] = remember("twelve bytes");
    free(remember("x"));
    names[1] = remember_prefix("abcdefghij", 4);
    names[2] = remember("0123456789012345678901234567890123456789");
    free(remember_prefix("freed", 2));
    escape(names);
    return 0;
}

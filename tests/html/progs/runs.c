/* SPDX-License-Identifier: GPL-3.0-or-later */
/* runs.c - two runs to compare (mtrace-check --diff, browser-test.py):
 *   runs old   leak_text (4096 bytes, a string), grow_cache (2 blocks of
 *              2048 bytes), shrink_pool (3 blocks of 2048 bytes)
 *   runs new   the same but grow_cache leaks 4 blocks and shrink_pool 1,
 *              and leak_extra (8192 bytes) is new
 * Every leak is definitely lost.  The exit scan classifies them. */
#include <mcheck.h>
#include <stdlib.h>
#include <string.h>

/* Keeps GCC from deleting an allocation whose result looks unused. */
static void escape(const void *p)
{
    __asm__ volatile("" : : "r"(p) : "memory");
}

/* N bytes filled with C, escaped: its caller's leak (a macro: the
 * caller is the allocation's innermost frame). */
#define LEAK(n, c)                                                             \
    do {                                                                       \
        char *p_ = malloc(n);                                                  \
        memset(p_, c, n);                                                      \
        escape(p_);                                                            \
    } while (0)

__attribute__((noinline)) static void leak_text(void)
{
    char *p = malloc(4096);
    memset(p, 0, 4096);
    strcpy(p, "session token: 1234");
    escape(p);
}

__attribute__((noinline)) static void grow_cache(int n)
{
    for (int i = 0; i < n; i++)
        LEAK(2048, i);
}

__attribute__((noinline)) static void shrink_pool(int n)
{
    for (int i = 0; i < n; i++)
        LEAK(2048, 'p' + i); /* not grow_cache's body: GCC would fold them */
}

__attribute__((noinline)) static void leak_extra(void)
{
    LEAK(8192, 0);
}

int main(int argc, char **argv)
{
    int new = argc > 1 && strcmp(argv[1], "new") == 0;
    mtrace();
    leak_text();
    grow_cache(new ? 4 : 2);
    shrink_pool(new ? 1 : 3);
    if (new)
        leak_extra();
    return 0;
}

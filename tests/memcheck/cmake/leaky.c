/* SPDX-License-Identifier: GPL-3.0-or-later
 * leaky.c - a test that leaks: a block nothing points to (definitely
 * lost), a tree whose root is lost (one definitely, two indirectly lost)
 * and one a global still holds (still reachable). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *kept;
void *volatile sink; /* the compiler keeps every malloc */

__attribute__((noinline)) static void **make(size_t n)
{
    void **p = malloc(n);
    memset(p, 0, n);
    sink = p;
    return p;
}

__attribute__((noinline)) static void build(void)
{
    make(100);
    void **root = make(200);
    root[0] = make(300);
    root[1] = make(400);
    kept = make(500);
}

int main(void)
{
    build();
    sink = NULL;
    puts("leaky done");
    return 0;
}

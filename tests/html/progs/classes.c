/* SPDX-License-Identifier: GPL-3.0-or-later */
/* classes.c - a traced program whose blocks live at the end fall in each
 * reachability class the HTML report shows: a cache held by a global
 * array (still reachable), a list whose head nobody points to (one block
 * definitely lost, the rest indirectly lost through it), a block held only
 * through a pointer into its middle (possibly lost) and a buffer nobody
 * points to (definitely lost).  The exit scan classifies them. */
#include <mcheck.h>
#include <stdlib.h>
#include <string.h>

enum { CACHE = 16, NODES = 8 };

struct node {
    struct node *next;
    char pad[56];
};

/* Not static: GCC drops the stores to a static that is never read. */
char *cache[CACHE]; /* still reachable */
char *interior;     /* possibly lost: points into a block's middle */

/* Keeps GCC from deleting an allocation whose result looks unused. */
static void escape(const void *p)
{
    __asm__ volatile("" : : "r"(p) : "memory");
}

__attribute__((noinline)) static void fill_cache(void)
{
    for (int i = 0; i < CACHE; i++) {
        cache[i] = malloc(256);
        memset(cache[i], 'c', 256);
    }
}

__attribute__((noinline)) static void lose_list(void)
{
    struct node *head = NULL;
    for (int i = 0; i < NODES; i++) {
        struct node *n = malloc(sizeof *n);
        memset(n, 0, sizeof *n);
        n->next = head;
        head = n;
    }
    escape(head);
}

__attribute__((noinline)) static void hold_interior(void)
{
    char *p = malloc(1000);
    memset(p, 'i', 1000);
    interior = p + 200;
}

__attribute__((noinline)) static void lose_buffer(void)
{
    char *p = malloc(3000);
    memset(p, 'b', 3000);
    escape(p);
}

/* Zeroes the stack the helpers used: no stale copy of a pointer below. */
__attribute__((noinline)) static void scrub(void)
{
    volatile char area[8192];
    memset((char *)area, 0, sizeof area);
    escape((const void *)area);
}

int main(void)
{
    mtrace();
    fill_cache();
    lose_list();
    hold_interior();
    lose_buffer();
    scrub();
    return 0;
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* leaky.c - a traced program whose heap profile (mtrace-check --pprof)
 * tests/pprof reads with go tool pprof.  Each function leaves a mark of
 * its own: churn allocates and frees (allocated, not in use), keep holds
 * blocks from a global (in use, still reachable), lose_tree loses a list
 * through make_node, a function inlined into it (one block definitely
 * lost, the others indirectly), lose_buffer and lose_copy lose a buffer
 * and a strdup() copy, hold_middle keeps only a pointer into its block's
 * middle (possibly lost). */
#include <mcheck.h>
#include <stdlib.h>
#include <string.h>

enum { CHURN = 50, KEEP = 4, NODES = 4 };

struct node {
    struct node *next;
    char pad[72];
};

/* Not static: GCC drops the stores to a static that is never read. */
char *kept[KEEP];
char *middle;

/* Keeps GCC from deleting an allocation whose result looks unused. */
static void escape(const void *p)
{
    __asm__ volatile("" : : "r"(p) : "memory");
}

static inline __attribute__((always_inline)) struct node *
make_node(struct node *next)
{
    struct node *n = malloc(sizeof *n);
    memset(n, 0, sizeof *n);
    n->next = next;
    return n;
}

__attribute__((noinline)) static void churn(void)
{
    for (int i = 0; i < CHURN; i++) {
        char *p = malloc(40);
        escape(p);
        free(p);
    }
}

__attribute__((noinline)) static void keep(void)
{
    for (int i = 0; i < KEEP; i++) {
        kept[i] = malloc(256);
        memset(kept[i], 'k', 256);
    }
}

__attribute__((noinline)) static void lose_tree(void)
{
    struct node *head = NULL;
    for (int i = 0; i < NODES; i++)
        head = make_node(head);
    escape(head);
}

__attribute__((noinline)) static void lose_buffer(void)
{
    char *p = malloc(3000);
    memset(p, 'b', 3000);
    escape(p);
}

__attribute__((noinline)) static void lose_copy(const char *s)
{
    escape(strdup(s));
}

__attribute__((noinline)) static void hold_middle(void)
{
    char *p = malloc(500);
    memset(p, 'm', 500);
    middle = p + 100;
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
    char text[100];
    memset(text, 't', sizeof text - 1);
    text[sizeof text - 1] = '\0';
    mtrace();
    churn();
    keep();
    lose_tree();
    lose_buffer();
    lose_copy(text);
    hold_middle();
    scrub();
    return 0;
}

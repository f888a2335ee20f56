/* SPDX-License-Identifier: GPL-3.0-or-later */
/* leaky.c - the demo: a small program with three leaks of the kinds glibc's
 * mtrace reports badly (through strdup, through a helper, through a static
 * function called from two places) and some correct frees.
 */
#include <mcheck.h>
#include <stdlib.h>
#include <string.h>

struct node {
    struct node *next;
    char *name;
};

static struct node *make_node(const char *name)
{
    struct node *n = malloc(sizeof *n);
    n->next = NULL;
    n->name = strdup(name);
    return n;
}

static void free_node(struct node *n)
{
    free(n->name);
    free(n);
}

/* Forgets the name of the node it removes: a leak through strdup. */
static void drop_node_badly(struct node *n)
{
    free(n);
}

/* Where the demo parks pointers it forgets, so the compiler cannot drop
 * the allocations as unused. */
static void *volatile forgotten;

static char *format_greeting(const char *who)
{
    char *s = malloc(strlen(who) + 8);
    strcpy(s, "hello, ");
    strcat(s, who);
    return s;
}

int main(void)
{
    mtrace();
    struct node *a = make_node("alpha");
    struct node *b = make_node("beta");
    free_node(a);
    drop_node_badly(b);
    for (int i = 0; i < 3; i++) {
        char *g = format_greeting("world");
        if (i < 2)
            free(g);
        else
            forgotten = g; /* the third greeting is never freed */
    }
    forgotten = calloc(64, 16); /* never freed */
    muntrace();
    return 0;
}

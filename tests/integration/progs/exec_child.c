/* SPDX-License-Identifier: GPL-3.0-or-later
 * exec_child.c - run by exec_parent; never calls mtrace(), so it is traced
 * only through MEMLEAK_CONFIG=mtraceinit.  Known leaks: 321, 654.
 * Exits with status 7. */
#include <stdlib.h>
#include "util.h"

static __attribute__((noinline)) void *child_alloc(size_t n)
{
    void *p = malloc(n);

    escape(p);
    return p;
}

int main(void)
{
    child_alloc(321);
    child_alloc(654);
    for (int i = 0; i < 50; i++)
        free(child_alloc(10 + i));
    say("child pid %d\n", (int)getpid());
    return 7;
}

/* SPDX-License-Identifier: GPL-3.0-or-later
 * mtraceinit.c - never calls mtrace(): traced only with
 * MEMLEAK_CONFIG=mtraceinit.  Known leaks: 48, 96.  Prints "sum N". */
#include <stdlib.h>
#include <string.h>
#include "util.h"

static __attribute__((noinline)) int *numbers(size_t n)
{
    int *p = malloc(n * sizeof *p);

    for (size_t i = 0; i < n; i++)
        p[i] = (int)i;
    return p;
}

int main(void)
{
    long sum = 0;
    int *keep1 = numbers(12);
    int *keep2 = numbers(24);

    for (int i = 1; i < 100; i++) {
        int *p = numbers(i);

        sum += p[i - 1];
        free(p);
    }
    escape(keep1);
    escape(keep2);
    say("sum %ld\n", sum);
    return 0;
}

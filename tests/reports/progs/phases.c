/* SPDX-License-Identifier: GPL-3.0-or-later */
/* phases.c - three phases with known growth, a report after each:
 *   phase 1: +10 blocks of 100 bytes (grow_small)
 *   phase 2: +5 blocks of 1000 bytes (grow_large), -5 of phase 1's
 *   phase 3: -5 of phase 2's blocks
 * mtrace() starts collection; two later mtrace() calls and muntrace() write
 * the three reports. */
#include <mcheck.h>
#include <stdlib.h>

static void *volatile small[10];
static void *volatile large[5];

/* Global, so that reports name them as they are (no clones). */
void grow_small(void);
void grow_large(void);

__attribute__((noinline)) void grow_small(void)
{
    for (int i = 0; i < 10; i++)
        small[i] = malloc(100);
}

__attribute__((noinline)) void grow_large(void)
{
    for (int i = 0; i < 5; i++)
        large[i] = malloc(1000);
}

int main(void)
{
    mtrace();
    grow_small();
    mtrace();
    grow_large();
    for (int i = 0; i < 5; i++)
        free(small[i]);
    mtrace();
    for (int i = 0; i < 5; i++)
        free(large[i]);
    muntrace();
    return 0;
}

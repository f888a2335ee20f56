/* SPDX-License-Identifier: GPL-3.0-or-later
 * stacks.c - 2^14 distinct call stacks (a path of 14 calls through two
 * functions, chosen by the bits of a counter), each used twice; every
 * block is freed.  Stack records must be written once per distinct stack.
 * Known leaks: none. */
#include <mcheck.h>
#include <stdlib.h>
#include "util.h"

#define BITS 14

static __attribute__((noinline)) void *leaf(size_t n)
{
    return used(malloc(n));
}

static void *left(int depth, unsigned bits);
static void *right(int depth, unsigned bits);

static __attribute__((noinline)) void *step(int depth, unsigned bits)
{
    void *p;

    if (depth == 0)
        return leaf(16 + bits % 64);
    p = (bits & 1) ? left(depth - 1, bits >> 1) : right(depth - 1, bits >> 1);
    escape(p);
    return p;
}

static __attribute__((noinline)) void *left(int depth, unsigned bits)
{
    void *p = step(depth, bits);

    escape(p);
    return p;
}

static __attribute__((noinline)) void *right(int depth, unsigned bits)
{
    void *p = step(depth, bits);

    escape(p);
    return p;
}

int main(void)
{
    mtrace();
    for (int round = 0; round < 2; round++)
        for (unsigned i = 0; i < 1u << BITS; i++)
            free(step(BITS, i));
    say("done\n");
    return 0;
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* pltlib.c - a library linked to the fastunwind tests, whose exported
 * functions call each other through the PLT. */
int pltlib_inner(int depth, void (*cb)(void *), void *arg);
int pltlib_outer(int depth, void (*cb)(void *), void *arg);

int pltlib_inner(int depth, void (*cb)(void *), void *arg)
{
    if (depth == 0)
        cb(arg);
    else
        pltlib_inner(depth - 1, cb, arg); /* interposable: through the PLT */
    __asm__ volatile("" ::: "memory");
    return depth;
}

int pltlib_outer(int depth, void (*cb)(void *), void *arg)
{
    int r = pltlib_inner(depth, cb, arg);
    __asm__ volatile("" ::: "memory");
    return r;
}

/* SPDX-License-Identifier: GPL-3.0-or-later
 * async_unwind.c - a SIGALRM handler allocates every 100 us while the main
 * thread computes without allocating (so malloc is never interrupted), in
 * functions of several frame shapes: the stacks are unwound from arbitrary
 * interrupted instructions (prologues, epilogues, leaf red zones).
 * Known leaks: none.  Prints "ticks>0 1". */
#include <mcheck.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include "util.h"

static volatile sig_atomic_t ticks;

static void on_alarm(int sig)
{
    (void)sig;
    free(used(malloc(24 + ticks % 64)));
    ticks++;
}

static __attribute__((noinline)) unsigned long leaf(unsigned long x)
{
    volatile unsigned long red[4] = { x, x + 1, x + 2, x + 3 };

    return red[0] ^ red[3];
}

static __attribute__((noinline)) unsigned long recurse(int n, unsigned long x)
{
    if (n == 0)
        return leaf(x);
    return recurse(n - 1, x * 31 + 7) + 1;
}

static __attribute__((noinline)) unsigned long wide(unsigned long x)
{
    volatile char buf[512];

    memset((char *)buf, (int)x, sizeof buf);
    return buf[x % sizeof buf] + recurse((int)(x % 20), x);
}

int main(void)
{
    struct itimerval it = { { 0, 100 }, { 0, 100 } };
    struct itimerval off = { { 0, 0 }, { 0, 0 } };
    struct sigaction sa;
    unsigned long sum = 0;

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGALRM, &sa, NULL);
    mtrace();
    setitimer(ITIMER_REAL, &it, NULL);
    for (unsigned long i = 0; i < 15000000; i++)
        sum += (i & 1) ? wide(i) : recurse((int)(i % 30), i);
    setitimer(ITIMER_REAL, &off, NULL);
    escape(&sum);
    say("ticks>0 %d\n", ticks > 0);
    return 0;
}

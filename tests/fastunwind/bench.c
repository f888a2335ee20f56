/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bench.c - nanoseconds per backtrace of a 14-frame and a 32-frame stack:
 * fastunwind against libunwind's unw_backtrace (with the per-thread cache
 * libmtrace selects).  Rounds interleave the unwinders; the median round is
 * reported, in this thread's CPU time (other load on a shared machine
 * counts less) and in wall-clock time.  (glibc's backtrace() is left out:
 * linked with libunwind, its _Unwind_Backtrace is libunwind's.)
 * Usage: bench [ITERATIONS-PER-ROUND]. */
#define _GNU_SOURCE
#define UNW_LOCAL_ONLY
#include "compare.h"
#include "unwind/fastunwind.h"
#include <libunwind.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int (*unwinder)(void **, int);

static const struct {
    const char *name;
    unwinder fn;
} unwinders[] = {
    { "fastunwind_backtrace", fastunwind_backtrace },
    { "unw_backtrace", unw_backtrace },
};
#define N_UNWINDERS (sizeof unwinders / sizeof *unwinders)
#define ROUNDS 15

static int iterations = 200000;

struct timing {
    double cpu, wall; /* ns per backtrace */
    int frames;
};

static double now_ns(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* The timed loop, at the bottom of the chain. */
FU_NOIPA __attribute__((used)) static void timed(unwinder fn, struct timing *t)
{
    void *frames[64];
    double cpu0 = now_ns(CLOCK_THREAD_CPUTIME_ID),
           wall0 = now_ns(CLOCK_MONOTONIC);
    int n = 0;
    for (int i = 0; i < iterations; i++) {
        n = fn(frames, 64);
        __asm__ volatile("" ::"r"(frames) : "memory");
    }
    t->frames = n;
    t->wall = (now_ns(CLOCK_MONOTONIC) - wall0) / iterations;
    t->cpu = (now_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0) / iterations;
}

/* Distinct functions for the frames, of a few frame sizes. */
#define LEVEL(i, next)                                                         \
    __attribute__((noinline)) static void level##i(int depth, unwinder fn,     \
                                                   struct timing *t)           \
    {                                                                          \
        volatile char pad[8 * ((i) % 3) + 1];                                  \
        pad[0] = 0;                                                            \
        if (depth == 0)                                                        \
            timed(fn, t);                                                      \
        else                                                                   \
            level##next(depth - 1, fn, t);                                     \
        __asm__ volatile("" ::"r"(pad[0]) : "memory");                         \
    }
LEVEL(27, 27)
LEVEL(26, 27) LEVEL(25, 26) LEVEL(24, 25) LEVEL(23, 24) LEVEL(22, 23)
    LEVEL(21, 22) LEVEL(20, 21) LEVEL(19, 20) LEVEL(18, 19) LEVEL(17, 18)
        LEVEL(16, 17) LEVEL(15, 16) LEVEL(14, 15) LEVEL(13, 14) LEVEL(12, 13)
            LEVEL(11, 12) LEVEL(10, 11) LEVEL(9, 10) LEVEL(8, 9) LEVEL(7, 8)
                LEVEL(6, 7) LEVEL(5, 6) LEVEL(4, 5) LEVEL(3, 4) LEVEL(2, 3)
                    LEVEL(1, 2) LEVEL(0, 1)

                        static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v)
{
    qsort(v, ROUNDS, sizeof *v, cmp_double);
    return v[ROUNDS / 2];
}

/* LEVELS functions below run(), plus timed(), run(), main() and libc's
 * three frames above: LEVELS + 6 frames from the call site. */
static void run(int levels)
{
    double cpu[N_UNWINDERS][ROUNDS], wall[N_UNWINDERS][ROUNDS];
    int frames[N_UNWINDERS];
    for (int r = 0; r < ROUNDS; r++)
        for (size_t u = 0; u < N_UNWINDERS; u++) {
            struct timing t;
            level0(levels - 1, unwinders[u].fn, &t);
            cpu[u][r] = t.cpu;
            wall[u][r] = t.wall;
            frames[u] = t.frames;
        }
    for (size_t u = 0; u < N_UNWINDERS; u++)
        printf("%-22s %2d frames  median %6.1f ns CPU  %6.1f ns wall\n",
               unwinders[u].name, frames[u], median(cpu[u]), median(wall[u]));
}

int main(int argc, char **argv)
{
    if (argc > 1)
        iterations = atoi(argv[1]);
    unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
    printf("%d rounds of %d backtraces each, interleaved; medians:\n", ROUNDS,
           iterations);
    run(8);
    run(26);
    return 0;
}

/* bench.c - nanoseconds per backtrace of a 14-frame stack: fastunwind
 * against libunwind's unw_backtrace (with the per-thread cache libmtrace
 * selects) and glibc's backtrace().  Rounds interleave the unwinders; the
 * median round is reported.  Times are this thread's CPU time, so that
 * other load on a shared machine counts less.  GPL-3.0-or-later. */
#define _GNU_SOURCE
#define UNW_LOCAL_ONLY
#include "fastunwind.h"
#include <execinfo.h>
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
    { "glibc backtrace", backtrace },
};
#define N_UNWINDERS (sizeof unwinders / sizeof *unwinders)
#define ROUNDS 15

static int iterations = 200000;
static int frames_seen[N_UNWINDERS];

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* The timed loop, at the bottom of the chain. */
__attribute__((noipa)) static double timed(unwinder fn, int *n)
{
    void *frames[64];
    int its = fn == backtrace ? iterations / 20 : iterations;
    double t0 = now_ns();
    for (int i = 0; i < its; i++) {
        *n = fn(frames, 64);
        __asm__ volatile("" ::"r"(frames) : "memory");
    }
    return (now_ns() - t0) / its;
}

#define LEVEL(i, next)                                                          \
    __attribute__((noinline)) static double level##i(int depth, unwinder fn, int *n) \
    {                                                                           \
        volatile char pad[8 * ((i) % 3) + 1];                                   \
        pad[0] = 0;                                                             \
        double t = depth == 0 ? timed(fn, n) : level##next(depth - 1, fn, n);   \
        __asm__ volatile("" ::: "memory");                                      \
        return t + pad[0];                                                      \
    }
LEVEL(9, 9) LEVEL(8, 9) LEVEL(7, 8) LEVEL(6, 7) LEVEL(5, 6)
LEVEL(4, 5) LEVEL(3, 4) LEVEL(2, 3) LEVEL(1, 2) LEVEL(0, 1)

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc > 1)
        iterations = atoi(argv[1]);
    unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
    double ns[N_UNWINDERS][ROUNDS];
    /* 9 levels below main, plus timed(), main and libc's three frames
     * above it: 14 frames from the call site. */
    for (int r = 0; r < ROUNDS; r++)
        for (size_t u = 0; u < N_UNWINDERS; u++)
            ns[u][r] = level0(8, unwinders[u].fn, &frames_seen[u]);
    for (size_t u = 0; u < N_UNWINDERS; u++) {
        qsort(ns[u], ROUNDS, sizeof(double), cmp_double);
        printf("%-22s %2d frames  median %7.1f ns  (min %7.1f, max %7.1f; %d rounds)\n",
               unwinders[u].name, frames_seen[u], ns[u][ROUNDS / 2], ns[u][0],
               ns[u][ROUNDS - 1], ROUNDS);
    }
    return 0;
}

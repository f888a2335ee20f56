/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fdtab.c - the recorded descriptors (see fdtab.h). */
#include "track/fdtab.h"
#include <stdatomic.h>
#include <string.h>

#define WORDS (FDTAB_MAX / 64)
static _Atomic uint64_t bits[WORDS];
static atomic_int words_used; /* words below it may have bits set */

static int in_range(int fd)
{
    return fd >= FDTAB_FIRST && fd < FDTAB_MAX;
}

int fdtab_set(int fd)
{
    if (!in_range(fd))
        return 0;
    uint64_t m = 1ull << (fd % 64);
    int used = atomic_load_explicit(&words_used, memory_order_relaxed);
    while (fd / 64 >= used &&
           !atomic_compare_exchange_weak(&words_used, &used, fd / 64 + 1))
        ;
    return (atomic_fetch_or(&bits[fd / 64], m) & m) != 0;
}

int fdtab_clear(int fd)
{
    if (!in_range(fd))
        return 0;
    uint64_t m = 1ull << (fd % 64);
    return (atomic_fetch_and(&bits[fd / 64], ~m) & m) != 0;
}

int fdtab_has(int fd)
{
    return in_range(fd) &&
           (atomic_load_explicit(&bits[fd / 64], memory_order_relaxed) >>
                (fd % 64) & 1);
}

int fdtab_next(int fd)
{
    if (fd < FDTAB_FIRST)
        fd = FDTAB_FIRST;
    int end = atomic_load_explicit(&words_used, memory_order_relaxed) * 64;
    for (; fd < end; fd = (fd / 64 + 1) * 64) {
        uint64_t w = atomic_load_explicit(&bits[fd / 64],
                                          memory_order_relaxed) >>
                     (fd % 64);
        if (w)
            return fd + __builtin_ctzll(w);
    }
    return -1;
}

int fdtab_take_range(unsigned first, unsigned last, uint64_t *out, int max)
{
    int n = 0;
    if (last >= FDTAB_MAX)
        last = FDTAB_MAX - 1;
    for (int fd = fdtab_next((int)(first < FDTAB_MAX ? first : FDTAB_MAX));
         fd >= 0 && (unsigned)fd <= last && n < max; fd = fdtab_next(fd + 1))
        if (fdtab_clear(fd))
            out[n++] = (uint64_t)fd;
    return n;
}

void fdtab_reset(void)
{
    int used = atomic_load_explicit(&words_used, memory_order_relaxed);
    for (int i = 0; i < used; i++)
        atomic_store_explicit(&bits[i], 0, memory_order_relaxed);
}
